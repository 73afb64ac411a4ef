"""Inter-annotator r: how well one annotator's MURGAT-S tracks the mean of the others' (the
Agreement page calls it the "human ceiling"). It bounds nothing a judge is measured on — judges are
scored against gold, not against the mean of the others — so the sweep, its export and the
Calibrate page no longer use it: they report human parity (calibration/sweep/parity.py).

Per precision mode: each annotator's MURGAT-S per response (scored from their own `human:*`
record), then for each annotator Pearson r between their scores and the mean of the other
annotators' scores (leave-one-annotator-out) over the responses every annotator completed;
the ceiling is the mean of those r.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from annotation.agreement.reliability import records_by_response
from calibration.scoring.murgat_s import PRECISION_MODES, score_record
from calibration.stats import correlation


@dataclass
class AnnotatorCeiling:
    """One annotator against the mean of the others; `pearson` None when undefined (`reason`)."""

    annotator: str
    pearson: float | None
    n_responses: int
    reason: str | None = None


@dataclass
class HumanCeiling:
    """The ceiling in one precision mode. `scores[annotator][response_id]` holds every
    response the annotator labelled; `response_ids` are those every annotator completed
    (the ones the correlations use). `ceiling` None when no annotator's r is defined."""

    precision_mode: str
    annotators: list[str]
    response_ids: list[str]
    scores: dict[str, dict[str, float]]
    per_annotator: list[AnnotatorCeiling] = field(default_factory=list)
    ceiling: float | None = None
    reason: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def annotator_scores(records, mode: str) -> dict[str, dict[str, float]]:
    """{annotator: {response_id: MURGAT-S}} from the labelled `human:*` records (other sources
    ignored). Raises ValueError as `score_record` (unknown mode, malformed fact)."""
    out: dict[str, dict[str, float]] = {}
    for response_id, by_name in records_by_response(records).items():
        for name, record in by_name.items():
            out.setdefault(name, {})[response_id] = score_record(record, mode).murgat_s
    return out


def _undefined_reason(x: np.ndarray, y: np.ndarray) -> str | None:
    if len(x) < correlation.MIN_PAIRS:
        return f"fewer than {correlation.MIN_PAIRS} responses completed by every annotator ({len(x)})"
    if np.ptp(x) == 0:
        return "this annotator's scores are constant"
    if np.ptp(y) == 0:
        return "the other annotators' mean scores are constant"
    return None


def human_ceiling(records, mode: str = "individual", response_ids=None) -> HumanCeiling:
    """The human ceiling in `mode` (module doc). `response_ids`, when given, further restricts
    the responses used (e.g. those everyone marked done). Undefined cases (one annotator,
    fewer than 3 shared responses, constant scores) give None with a reason, never an error;
    raises ValueError for an unknown mode or a record the scorer rejects."""
    scores = annotator_scores(records, mode)
    annotators = sorted(scores)
    shared = set.intersection(*(set(s) for s in scores.values())) if scores else set()
    if response_ids is not None:
        shared &= set(response_ids)
    ids = sorted(shared)
    result = HumanCeiling(mode, annotators, ids, scores)
    if len(annotators) < 2:
        result.reason = f"fewer than two annotators ({len(annotators)})"
        return result
    matrix = np.array([[scores[name][rid] for rid in ids] for name in annotators]).reshape(
        len(annotators), len(ids)
    )
    for row, name in enumerate(annotators):
        x = matrix[row]
        y = np.delete(matrix, row, axis=0).mean(axis=0)
        reason = _undefined_reason(x, y)
        r = None if reason else float(correlation.pearson_rows(x, y)[0])
        result.per_annotator.append(AnnotatorCeiling(name, r, len(ids), reason))
    defined = [a.pearson for a in result.per_annotator if a.pearson is not None]
    if defined:
        result.ceiling = float(np.mean(defined))
    else:
        result.reason = "no annotator's leave-one-out r is defined"
    return result


def human_ceilings(records, modes=PRECISION_MODES, response_ids=None) -> dict[str, HumanCeiling]:
    """{mode: HumanCeiling} for every mode in `modes`."""
    records = list(records)
    return {mode: human_ceiling(records, mode, response_ids) for mode in modes}
