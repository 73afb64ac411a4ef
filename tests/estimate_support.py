"""Scored responses built in code for the model-estimate tests (support code, not a test module)."""

from __future__ import annotations

from calibration.estimates.inputs import ScoredResponse
from calibration.scoring.murgat_s import ResponseScore

# The fields of each model in `estimate --json` and `estimate_models(...)["models"]`, in order.
MODEL_KEYS = [
    "model",
    "n_judged",
    "n_human",
    "judge_mean",
    "human_mean",
    "human_ci",
    "ppi_mean",
    "ppi_ci",
    "lambda",
    "ess_gain",
    "correction",
    "no_ci_reason",
]


def response_score(
    response_id: str, source: str, value: float | None, coverage: float = 1.0
) -> ResponseScore:
    """A score whose MURGAT-S is `value` (None: undetermined); P = R = F1 = value / coverage."""
    part = None if value is None else value / coverage
    return ResponseScore(
        response_id, source, "individual", coverage, part, part, part, value, 1, 1, 1, 0, 0, False
    )


def scored(
    response_id: str, model, gold=None, judge=None, question=None, *, gold_undetermined=False
) -> ScoredResponse:
    """A response of `model` with gold and judge MURGAT-S (None: no record; `gold_undetermined`: a
    gold record whose MURGAT-S is undetermined); its question defaults to its own id."""
    gold_score = response_score(response_id, "gold", gold) if gold is not None or gold_undetermined else None
    judge_score = None if judge is None else response_score(response_id, "judge:j", judge)
    return ScoredResponse(response_id, model, (question or response_id,), gold_score, judge_score)


def model_rows(model: str, gold: list, judge: list, prefix: str | None = None) -> list[ScoredResponse]:
    """Responses `{prefix}{i}` of `model`, answering question q{i}; gold[i] None = unlabelled."""
    prefix = prefix or f"{model}-"
    return [
        scored(f"{prefix}{i}", model, g, j, question=f"q{i}")
        for i, (g, j) in enumerate(zip(gold, judge, strict=True))
    ]
