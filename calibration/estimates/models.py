"""Per-model means of MURGAT-S (or one of its parts) three ways — judge-only (biased, no CI
claim), human-only over the labelled responses (t CI) and PPI++ (tuned λ, its CI, the effective
sample size gain, the correction PPI − judge-only) — and the pairwise differences between models.
Below `ppi.MIN_LABELLED` gold responses a model gets its means but no interval, and the reason. Pure: scored responses in, a
report out; `to_dict` is the `calibration estimate --json` contract.

A response is labelled when it has a determined gold and a determined judge value, unlabelled
when it has a determined judge value and no gold record; every other one (undetermined on either
side, or not judged) is left out and counted.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from calibration.estimates.differences import independent_difference, paired_difference
from calibration.estimates.inputs import ScoredResponse, metric_value
from calibration.estimates.ppi import MeanEstimate, ess_gain, human_only, ppi_mean


@dataclass(frozen=True)
class ModelSample:
    """One model's values of one metric: gold and judge on the labelled responses, judge on the
    unlabelled ones, and how many responses were left out."""

    model: str | None
    labelled_ids: tuple[str, ...]
    gold: np.ndarray
    judge_labelled: np.ndarray
    unlabelled_ids: tuple[str, ...]
    judge_unlabelled: np.ndarray
    n_left_out: int


@dataclass(frozen=True)
class ModelEstimate:
    """The three estimates of one model's mean (see module doc)."""

    model: str | None
    n_judged: int
    n_human: int
    judge_mean: float | None
    human: MeanEstimate | None
    ppi: MeanEstimate | None
    ess_gain: float | None
    n_left_out: int = 0

    @property
    def correction(self) -> float | None:
        """What the gold changes: the PPI++ mean − the judge-only mean (None without either)."""
        if self.ppi is None or self.judge_mean is None:
            return None
        return self.ppi.mean - self.judge_mean

    @property
    def no_ci_reason(self) -> str | None:
        """Why the PPI++ mean has no interval (None when it has one)."""
        if self.ppi is None:
            return f"{self.n_human} gold response(s): a mean needs at least 2"
        return self.ppi.no_ci_reason

    def to_dict(self) -> dict:
        return {
            "model": self.model,
            "n_judged": self.n_judged,
            "n_human": self.n_human,
            "judge_mean": self.judge_mean,
            "human_mean": None if self.human is None else self.human.mean,
            "human_ci": _ci(self.human),
            "ppi_mean": None if self.ppi is None else self.ppi.mean,
            "ppi_ci": _ci(self.ppi),
            "lambda": None if self.ppi is None else self.ppi.lam,
            "ess_gain": self.ess_gain,
            "correction": self.correction,
            "no_ci_reason": self.no_ci_reason,
        }


def _ci(estimate: MeanEstimate | None) -> list[float] | None:
    return None if estimate is None or estimate.ci is None else list(estimate.ci)


@dataclass(frozen=True)
class Difference:
    """Model `a`'s mean minus model `b`'s, paired or independent (see differences.py)."""

    a: str | None
    b: str | None
    paired: bool
    estimate: MeanEstimate

    def to_dict(self) -> dict:
        return {
            "a": self.a,
            "b": self.b,
            "paired": self.paired,
            "ppi_diff": self.estimate.mean,
            "ppi_ci": _ci(self.estimate),
        }


@dataclass
class EstimateReport:
    """Every model's estimates (best PPI mean first) and every pairwise difference of the models
    that have a PPI estimate (a ranked above b); `judge` and `precision`: the source and precision
    mode the judge scores were computed with, when the caller says (its JSON form names them, so a
    file saved from it says what its numbers are)."""

    metric: str
    alpha: float
    models: list[ModelEstimate]
    differences: list[Difference] = field(default_factory=list)
    judge: str | None = None
    precision: str | None = None

    def to_dict(self) -> dict:
        return {
            "judge": self.judge,
            "precision": self.precision,
            "metric": self.metric,
            "alpha": self.alpha,
            "models": [m.to_dict() for m in self.models],
            "differences": [d.to_dict() for d in self.differences],
        }


def _state(row: ScoredResponse, metric: str) -> str:
    """'labelled', 'unlabelled' or 'left out' (module doc)."""
    judge, gold = metric_value(row.judge, metric), metric_value(row.gold, metric)
    if judge is None:
        return "left out"
    if gold is not None:
        return "labelled"
    return "unlabelled" if row.gold is None else "left out"


def model_samples(rows: list[ScoredResponse], metric: str) -> dict[str | None, ModelSample]:
    """Each model's sample of `metric`, models in order of first appearance."""
    grouped: dict[str | None, list[ScoredResponse]] = {}
    for row in rows:
        grouped.setdefault(row.model, []).append(row)
    samples = {}
    for model, members in grouped.items():
        states = [_state(row, metric) for row in members]
        labelled = [row for row, state in zip(members, states, strict=True) if state == "labelled"]
        unlabelled = [row for row, state in zip(members, states, strict=True) if state == "unlabelled"]
        samples[model] = ModelSample(
            model,
            tuple(row.response_id for row in labelled),
            np.array([metric_value(row.gold, metric) for row in labelled], dtype=float),
            np.array([metric_value(row.judge, metric) for row in labelled], dtype=float),
            tuple(row.response_id for row in unlabelled),
            np.array([metric_value(row.judge, metric) for row in unlabelled], dtype=float),
            states.count("left out"),
        )
    return samples


def estimate_model(sample: ModelSample, alpha: float) -> ModelEstimate:
    """Judge-only, human-only and PPI++ means of one model's sample."""
    judged = np.concatenate([sample.judge_labelled, sample.judge_unlabelled])
    human = human_only(sample.gold, alpha)
    ppi = ppi_mean(sample.gold, sample.judge_labelled, sample.judge_unlabelled, alpha)
    return ModelEstimate(
        sample.model,
        len(judged),
        len(sample.gold),
        float(judged.mean()) if len(judged) else None,
        human,
        ppi,
        ess_gain(human, ppi),
        sample.n_left_out,
    )


def _ranked(estimates: list[ModelEstimate]) -> list[ModelEstimate]:
    def key(m: ModelEstimate):
        return (m.ppi is None, -(m.ppi.mean if m.ppi else 0.0), m.model is None, m.model or "")

    return sorted(estimates, key=key)


def estimate_models(
    rows: list[ScoredResponse],
    metric: str = "murgat_s",
    alpha: float = 0.05,
    *,
    judge: str | None = None,
    precision: str | None = None,
) -> EstimateReport:
    """The report for `metric` at level `alpha` of `rows`, the scores of `judge` in `precision` mode
    (see EstimateReport). ValueError for an unknown metric or an alpha outside (0, 1)."""
    samples = model_samples(rows, metric)
    models = _ranked([estimate_model(sample, alpha) for sample in samples.values()])
    by_model: dict[str | None, list[ScoredResponse]] = {}
    for row in rows:
        by_model.setdefault(row.model, []).append(row)
    differences = [
        model_difference(a, b, by_model[a.model], by_model[b.model], metric, alpha)
        for a, b in itertools.combinations([m for m in models if m.ppi is not None], 2)
    ]
    return EstimateReport(metric, alpha, models, differences, judge, precision)


def answered_the_same_questions(rows_a: list[ScoredResponse], rows_b: list[ScoredResponse]) -> bool:
    """Both models answered exactly the same questions, each once."""
    questions_a, questions_b = [r.question for r in rows_a], [r.question for r in rows_b]
    unique = len(set(questions_a)) == len(questions_a) and len(set(questions_b)) == len(questions_b)
    return unique and set(questions_a) == set(questions_b)


def model_difference(
    a: ModelEstimate, b: ModelEstimate, rows_a: list, rows_b: list, metric: str, alpha: float
) -> Difference:
    """a − b: PPI on the per-question differences when both answered the same questions and at
    least two questions are labelled for both; else the independent difference."""
    if answered_the_same_questions(rows_a, rows_b):
        partner = {row.question: row for row in rows_b}
        labelled, unlabelled = [], []
        for row in rows_a:
            states = (_state(row, metric), _state(partner[row.question], metric))
            if "left out" in states:
                continue
            (labelled if states == ("labelled", "labelled") else unlabelled).append(
                (row, partner[row.question])
            )
        if len(labelled) >= 2:
            gold = [[metric_value(r.gold, metric) for r in pair] for pair in labelled]
            judge = [[metric_value(r.judge, metric) for r in pair] for pair in labelled]
            rest = [[metric_value(r.judge, metric) for r in pair] for pair in unlabelled] or np.empty((0, 2))
            g, j, u = np.array(gold), np.array(judge), np.array(rest, dtype=float)
            estimate = paired_difference(g[:, 0], g[:, 1], j[:, 0], j[:, 1], u[:, 0], u[:, 1], alpha)
            return Difference(a.model, b.model, True, estimate)
    return Difference(a.model, b.model, False, independent_difference(a.ppi, b.ppi, alpha))
