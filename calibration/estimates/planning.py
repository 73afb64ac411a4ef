"""Planning the human work: how many more gold responses each model needs to reach a target CI
half-width with ASSURANCE probability (80 %), at the current judge–human relation, and a
reproducible stratified random sample of its unlabelled responses to label next, stored as a named
annotation queue.

Labelling m more of a model's N unlabelled responses moves them to the n labelled ones. With
today's plug-in moments — on the labelled: var(Y), cov(Y, f), var(f); on the unlabelled: var(f̃);
on all: var(f ∪ f̃) for λ — the PPI variance after m more is

    v(m) = λ_m²·var(f̃)/(N − m) + (var(Y) − 2·λ_m·cov(Y, f) + λ_m²·var(f))/(n + m)

with λ_m tuned as `ppi.tuned_lambda` at (n + m, N − m), and the projected half-width
h(m) = t_{n+m−2}·√v(m) (so h(0) is today's PPI half-width, as `ppi.ppi_mean` computes it).

h(m) is what today's sample suggests; the half-width the labels will give is random, and planning
for h(m) ≤ target reached the target about half the time (measured: 54 %). The variance that
labelling m more will show, s²_m, against today's estimate s²_0 is taken as F-distributed on
(n + m − 2, n − 2) degrees of freedom (predictive distribution of a sample variance given a pilot's
— the pilot's own uncertainty included), so the probability of reaching the target after m more is

    P(m) = F_{n+m−2, n−2}.cdf((target / h(m))²)

and the plan is the smallest m with P(m) ≥ ASSURANCE (None when labelling all N does not reach
it). benchmarks/plan_assurance.py measures how often plans reach their target. With fewer than
three labelled responses there is no relation to go on: the plan then assumes a judge that helps
nothing and people whose scores spread like the judge's (human-only with var(f ∪ f̃), its degrees
of freedom those of the judge's values).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotation.work.sample_queues import (
    create_sample_queue,
    queue_names,
    queued_response_ids,
    stratified_sample,
)
from calibration.estimates.models import ModelSample
from calibration.estimates.ppi import z_value
from calibration.stats.distributions import f_cdf, t_quantile

ASSURANCE = 0.8


@dataclass(frozen=True)
class PlanRow:
    """One model's need: more gold responses for the target with ASSURANCE probability (None: not
    reachable by labelling its judged responses), how many unlabelled responses it has to draw them
    from, and the probability that the planned count reaches the target (at all N when out of reach)."""

    model: str | None
    more_gold_needed: int | None
    unlabelled: int
    assurance: float = float("nan")

    def to_dict(self) -> dict:
        return {"model": self.model, "more_gold_needed": self.more_gold_needed, "assurance": self.assurance}


def _moments(sample: ModelSample) -> tuple[float, float, float, float, float, float, int]:
    """(var(Y), cov(Y, f), var(f)) for the rectifier — centred sums over n − 2, as `ppi_mean`
    spreads the residuals of a tuned λ — then cov(Y, f) for λ (over n, ppi_py's), var(f̃),
    var(f ∪ f̃) and today's degrees of freedom. The judge's spread stands in for the people's when
    fewer than three responses are labelled."""
    y, f, f_unlabelled = sample.gold, sample.judge_labelled, sample.judge_unlabelled
    n = len(y)
    pooled = np.concatenate([f, f_unlabelled])
    spread = float(np.var(pooled, ddof=1)) if len(pooled) > 1 else 0.0
    var_unlabelled = float(np.var(f_unlabelled, ddof=1)) if len(f_unlabelled) > 1 else 0.0
    if n >= 3:
        dy, df = y - y.mean(), f - f.mean()
        syy, syf, sff = float(dy @ dy), float(dy @ df), float(df @ df)
        return syy / (n - 2), syf / (n - 2), sff / (n - 2), syf / n, var_unlabelled, spread, n - 2
    return spread, 0.0, 0.0, 0.0, var_unlabelled, spread, max(len(pooled) - 1, 1)


def projected_half_widths(sample: ModelSample, alpha: float) -> np.ndarray:
    """The projected PPI half-width h(m) after labelling m = 0, 1, …, N more of the model's
    unlabelled responses (module doc)."""
    var_y, cov, var_f, cov_lambda, var_unlabelled, spread, _ = _moments(sample)
    n, N = len(sample.gold), len(sample.judge_unlabelled)
    z_value(alpha)
    m = np.arange(N + 1)
    labelled, unlabelled = n + m, N - m
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(
            (unlabelled > 0) & (spread > 0), cov_lambda / ((1 + labelled / unlabelled) * spread), 0.0
        ).clip(0.0, 1.0)
        imputed = np.where(unlabelled > 0, lam**2 * var_unlabelled / unlabelled, 0.0)
        rectifier = np.where(labelled > 0, (var_y - 2 * lam * cov + lam**2 * var_f) / labelled, np.inf)
        quantile = t_quantile(1 - alpha / 2, np.maximum(labelled - 2, 1))
    return quantile * np.sqrt(np.maximum(imputed + rectifier, 0.0))


def reach_probabilities(sample: ModelSample, half_width: float, alpha: float) -> np.ndarray:
    """P(m): the probability that the half-width after m = 0, 1, …, N more labels is ≤ `half_width`
    (module doc: the predictive F of the variance labelling will show)."""
    widths = projected_half_widths(sample, alpha)
    *_, today_df = _moments(sample)
    n = len(sample.gold)
    later_df = np.maximum(n + np.arange(len(widths)) - 2, 1)
    with np.errstate(divide="ignore"):
        ratio = np.where(widths > 0, (half_width / widths) ** 2, np.inf)
    return f_cdf(ratio, later_df, today_df)


def more_gold_needed(
    sample: ModelSample, half_width: float, alpha: float, assurance: float = ASSURANCE
) -> int | None:
    """The smallest m whose probability of a half-width ≤ `half_width` is at least `assurance`;
    None when no m ≤ N reaches it. ValueError for a half-width that is not positive."""
    _check_half_width(half_width)
    return _first_reaching(reach_probabilities(sample, half_width, alpha), assurance)


def _check_half_width(half_width: float) -> None:
    if not half_width > 0:
        raise ValueError(f"the target half-width must be positive, got {half_width}")


def _first_reaching(probabilities: np.ndarray, assurance: float) -> int | None:
    reached = np.flatnonzero(probabilities >= assurance)
    return int(reached[0]) if len(reached) else None


def plan_more_gold(
    samples: list[ModelSample], half_width: float, alpha: float, assurance: float = ASSURANCE
) -> list[PlanRow]:
    """Each model's need (see module doc), in the order given."""
    _check_half_width(half_width)
    rows = []
    for s in samples:
        probabilities = reach_probabilities(s, half_width, alpha)  # once, for the need and its chance
        needed = _first_reaching(probabilities, assurance)
        chance = float(probabilities[needed if needed is not None else -1])
        rows.append(PlanRow(s.model, needed, len(s.unlabelled_ids), chance))
    return rows


def queue_sample(
    samples: list[ModelSample], plan: list[PlanRow], queued: set[str], seed: int
) -> list[tuple[str, str | None]]:
    """(response id, model) to label next: per model a simple random sample of its unlabelled
    responses not already in a queue, as many as it needs less those already waiting in queues
    (all it has when the target is out of reach). Reproducible from `seed`."""
    strata = {s.model: [rid for rid in s.unlabelled_ids if rid not in queued] for s in samples}
    counts = {
        model: wanted - waiting for model, (wanted, waiting) in queue_counts(samples, plan, queued).items()
    }
    return stratified_sample(strata, counts, seed)


def queue_counts(samples: list[ModelSample], plan: list[PlanRow], queued: set[str]) -> dict:
    """{model: (responses its plan asks for, those of them already waiting in `queued`)}: a new
    queue draws the difference (`queue_sample`)."""
    counts = {}
    for sample, row in zip(samples, plan, strict=True):
        waiting = sum(1 for rid in sample.unlabelled_ids if rid in queued)
        wanted = row.unlabelled if row.more_gold_needed is None else row.more_gold_needed
        counts[sample.model] = (wanted, min(waiting, wanted))
    return counts


def create_plan_queue(store, name: str, samples: list[ModelSample], plan: list[PlanRow], seed: int):
    """Draw `queue_sample` and store it as the annotation queue `name` (its QueueSummary).
    ValueError when there is nothing to draw, or as `create_sample_queue`."""
    if name.strip() in queue_names(store):  # said first: a second run has nothing left to draw
        raise ValueError(f"a queue named '{name.strip()}' exists already")
    drawn = queue_sample(samples, plan, set(queued_response_ids(store)), seed)
    if not drawn:
        raise ValueError(
            "nothing to queue: each model meets the target, waits for responses already queued, or has "
            "no unlabelled response left to draw (a target out of reach stays out of reach)"
        )
    return create_sample_queue(store, name, drawn)
