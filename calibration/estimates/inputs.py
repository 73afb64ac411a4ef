"""What the model estimates read from a project: per response, its model, the question it
answered, and its gold and judge scores in one precision mode. The project's records come from
the project state (`annotation.state.project_state`: the one gold set, the judge records); scores from the one
scorer. An undetermined score (MURGAT-S null, PROTOCOL §3) is missing, as in the sweep."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotation.state import project_state
from calibration.scoring.murgat_s import PRECISION_MODES, ResponseScore, score_records
from calibration.stats.correlation import pearson_rows

METRICS = ("murgat_s", "coverage", "precision", "recall")
METRIC_NAMES = {"murgat_s": "MURGAT-S", "coverage": "coverage", "precision": "precision", "recall": "recall"}


@dataclass(frozen=True)
class ScoredResponse:
    """One response: its model (None when the project was not told), the question it answered
    (video, question, options: the same tuple means the same question), and its gold and judge
    scores (None: no record)."""

    response_id: str
    model: str | None
    question: tuple
    gold: ResponseScore | None
    judge: ResponseScore | None


def metric_value(score: ResponseScore | None, metric: str) -> float | None:
    """The score's `metric` (METRICS), or None when there is no score, its MURGAT-S is
    undetermined (the response is left out of every mean) or the part itself is."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric '{metric}' (expected one of {', '.join(METRICS)})")
    if score is None or score.murgat_s is None:
        return None
    return getattr(score, metric)


def judge_sources(store) -> list[tuple[str, int]]:
    """(judge source, responses it has a record for), most responses first, then by name."""
    counts = store.record_counts("judge")
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def scored_responses(store, source: str, mode: str) -> list[ScoredResponse]:
    """Every response of the project in import order, with gold and `source`'s scores in `mode`.
    ValueError (naming the response) for a record the scorer rejects."""
    state = project_state(store)
    gold = {s.response_id: s for s in score_records(state.gold.records, [mode])}
    judged = {
        s.response_id: s for s in score_records([r for r in state.judges if r.source == source], [mode])
    }
    out = []
    for response_id, model in store.response_models():
        response = store.response(response_id)
        question = (response.video, response.question, tuple(response.options))
        out.append(
            ScoredResponse(response_id, model, question, gold.get(response_id), judged.get(response_id))
        )
    return out


def calibrated_mode(store, source: str) -> tuple[str, float]:
    """(precision mode, its r): the mode the sweep's rule (highest full-sample Pearson r of
    MURGAT-S against gold) picks for `source` — the mode its scores are calibrated in. The first
    mode with r NaN when no mode's r is defined (too few gold responses)."""
    state = project_state(store)
    gold = state.gold.records
    ids = sorted({r.response_id for r in gold})
    mine = [r for r in state.judges if r.source == source and r.response_id in set(ids)]
    column = {rid: i for i, rid in enumerate(ids)}
    rows_x, rows_y = [], []
    for mode in PRECISION_MODES:
        x, y = np.full(len(ids), np.nan), np.full(len(ids), np.nan)
        for values, scored in ((x, score_records(mine, [mode])), (y, score_records(gold, [mode]))):
            for score in scored:
                if score.murgat_s is not None:
                    values[column[score.response_id]] = score.murgat_s
        rows_x.append(x)
        rows_y.append(y)
    r = pearson_rows(np.array(rows_x), np.array(rows_y)) if ids else np.full(len(PRECISION_MODES), np.nan)
    if not np.isfinite(r).any():
        return PRECISION_MODES[0], float("nan")
    best = int(np.nanargmax(r))
    return PRECISION_MODES[best], float(r[best])
