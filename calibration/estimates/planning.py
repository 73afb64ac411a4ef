"""Planning the human work: how many more gold responses each model needs for a target CI
half-width at the current judge–human relation, and a reproducible stratified random sample of
its unlabelled responses to label next, stored as a named annotation queue.

Labelling m more of a model's N unlabelled responses moves them to the n labelled ones. With
today's plug-in moments — on the labelled: var(Y), cov(Y, f), var(f); on the unlabelled: var(f̃);
on all: var(f ∪ f̃) for λ — the PPI variance after m more is

    v(m) = λ_m²·var(f̃)/(N − m) + (var(Y) − 2·λ_m·cov(Y, f) + λ_m²·var(f))/(n + m)

with λ_m tuned as `ppi.tuned_lambda` at (n + m, N − m), so v(0) is today's PPI variance. The plan
is the smallest m with z·√v(m) ≤ the target (None when labelling all N does not reach it). With
fewer than two labelled responses there is no relation to go on: the plan then assumes a judge that
helps nothing and people whose scores spread like the judge's (human-only with var(f ∪ f̃)).
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


@dataclass(frozen=True)
class PlanRow:
    """One model's need: more gold responses for the target (None: not reachable by labelling
    its judged responses), and how many unlabelled responses it has to draw them from."""

    model: str | None
    more_gold_needed: int | None
    unlabelled: int

    def to_dict(self) -> dict:
        return {"model": self.model, "more_gold_needed": self.more_gold_needed}


def projected_half_widths(sample: ModelSample, alpha: float) -> np.ndarray:
    """The PPI half-width after labelling m = 0, 1, …, N more of the model's unlabelled responses."""
    y, f, f_unlabelled = sample.gold, sample.judge_labelled, sample.judge_unlabelled
    n, N = len(y), len(f_unlabelled)
    pooled = np.concatenate([f, f_unlabelled])
    spread = float(np.var(pooled, ddof=1)) if len(pooled) > 1 else 0.0
    if n >= 2:
        var_y, cov, var_f = (
            float(np.var(y)),
            float(np.mean((y - y.mean()) * (f - f.mean()))),
            float(np.var(f)),
        )
    else:
        var_y, cov, var_f = spread, 0.0, 0.0
    var_unlabelled = float(np.var(f_unlabelled)) if N else 0.0
    m = np.arange(N + 1)
    labelled, unlabelled = n + m, N - m
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(
            (unlabelled > 0) & (spread > 0), cov / ((1 + labelled / unlabelled) * spread), 0.0
        ).clip(0.0, 1.0)
        imputed = np.where(unlabelled > 0, lam**2 * var_unlabelled / unlabelled, 0.0)
        rectifier = np.where(labelled > 0, (var_y - 2 * lam * cov + lam**2 * var_f) / labelled, np.inf)
    return z_value(alpha) * np.sqrt(np.maximum(imputed + rectifier, 0.0))


def more_gold_needed(sample: ModelSample, half_width: float, alpha: float) -> int | None:
    """The smallest m with a projected half-width ≤ `half_width`; None when no m ≤ N reaches it.
    ValueError for a half-width that is not positive."""
    if not half_width > 0:
        raise ValueError(f"the target half-width must be positive, got {half_width}")
    reached = np.flatnonzero(projected_half_widths(sample, alpha) <= half_width)
    return int(reached[0]) if len(reached) else None


def plan_more_gold(samples: list[ModelSample], half_width: float, alpha: float) -> list[PlanRow]:
    """Each model's need (see module doc), in the order given."""
    return [PlanRow(s.model, more_gold_needed(s, half_width, alpha), len(s.unlabelled_ids)) for s in samples]


def queue_sample(
    samples: list[ModelSample], plan: list[PlanRow], queued: set[str], seed: int
) -> list[tuple[str, str | None]]:
    """(response id, model) to label next: per model a simple random sample of its unlabelled
    responses not already in a queue, as many as it needs less those already waiting in queues
    (all it has when the target is out of reach). Reproducible from `seed`."""
    strata, counts = {}, {}
    for sample, row in zip(samples, plan, strict=True):
        waiting = sum(1 for rid in sample.unlabelled_ids if rid in queued)
        strata[sample.model] = [rid for rid in sample.unlabelled_ids if rid not in queued]
        wanted = row.unlabelled if row.more_gold_needed is None else row.more_gold_needed
        counts[sample.model] = max(0, wanted - waiting)
    return stratified_sample(strata, counts, seed)


def create_plan_queue(store, name: str, samples: list[ModelSample], plan: list[PlanRow], seed: int):
    """Draw `queue_sample` and store it as the annotation queue `name` (its QueueSummary).
    ValueError when there is nothing to draw, or as `create_sample_queue`."""
    if name.strip() in queue_names(store):  # said first: a second run has nothing left to draw
        raise ValueError(f"a queue named '{name.strip()}' exists already")
    drawn = queue_sample(samples, plan, set(queued_response_ids(store)), seed)
    if not drawn:
        raise ValueError("nothing to queue: every model meets the target or waits for queued responses")
    return create_sample_queue(store, name, drawn)
