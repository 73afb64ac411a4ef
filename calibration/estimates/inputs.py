"""What the model estimates read from a project: per response, its model, the question it
answered, and its gold and judge scores in one precision mode. The project's records come from
the project state (`annotation.state.project_state`: the one gold set, the judge records); scores from the one
scorer. An undetermined score (MURGAT-S null, PROTOCOL §3) is missing, as in the sweep."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from annotation.agreement.gold import without_cycle_collection
from annotation.state import project_state
from calibration.scoring.kept_scores import kept_scores
from calibration.scoring.murgat_s import PRECISION_MODES, ResponseScore
from calibration.scoring.stored_scores import stored_scores
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


KEPT = 16  # results kept in memory per (project revision, what was asked), the least recently read dropped
_kept: OrderedDict[tuple, object] = OrderedDict()
_cache_lock = threading.Lock()


def _once_per_revision(store, asked: tuple, compute):
    """`compute(state)` for the project's current state, computed once per (project file, revision,
    `asked`): a page's reruns and sessions read the same result until the revision moves."""
    state = project_state(store)
    key = (str(store.db_path.resolve()), state.revision, *asked)
    with _cache_lock:
        if key in _kept:
            _kept.move_to_end(key)
            return _kept[key]
    with without_cycle_collection():  # many small objects beside the state's: nothing to collect
        found = compute(state)
    with _cache_lock:
        _kept[key] = found
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return found


def scored_responses(store, source: str, mode: str) -> list[ScoredResponse]:
    """Every response of the project in import order, with gold and `source`'s scores in `mode`
    (the judge's scored once per stored record: `stored_scores`), derived once per revision.
    ValueError (naming the response) for a record the scorer rejects."""

    def compute(state) -> list[ScoredResponse]:
        gold = {s.response_id: s for s in kept_scores(state.gold.records, [mode])}
        judged = _judge_scores(store, state, source, mode)
        return [
            ScoredResponse(response_id, model, question, gold.get(response_id), judged.get(response_id))
            for response_id, model, question in _questions(store, state)
        ]

    return _once_per_revision(store, ("scored", source, mode), compute)


def _per_records_mark(store, state, asked: tuple, compute):
    """`compute()` once per (project file, its records and responses marks, `asked`): judge scores
    and questions do not move with a label, so a new label reads them from memory."""
    key = (str(store.db_path.resolve()), state.revision.records, state.revision.responses, *asked)
    with _cache_lock:
        if key in _kept:
            _kept.move_to_end(key)
            return _kept[key]
    with without_cycle_collection():
        found = compute()
    with _cache_lock:
        _kept[key] = found
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return found


def _judge_scores(store, state, source: str, mode: str) -> dict[str, ResponseScore]:
    """{response: `source`'s score in `mode`} of every response it has a record for."""
    return _per_records_mark(
        store, state, ("judge", source, mode), lambda: stored_scores(store, source, mode)
    )


def _questions(store, state) -> list[tuple]:
    return _per_records_mark(store, state, ("questions",), store.response_questions)


def calibrated_mode(store, source: str) -> tuple[str, float]:
    """(precision mode, its r): the mode the sweep's rule (highest full-sample Pearson r of
    MURGAT-S against gold) picks for `source` — the mode its scores are calibrated in. The first
    mode with r NaN when no mode's r is defined (too few gold responses)."""
    return _once_per_revision(
        store, ("calibrated", source), lambda state: _calibrated_mode(store, state, source)
    )


def _calibrated_mode(store, state, source: str) -> tuple[str, float]:
    gold = state.gold.records
    ids = sorted({r.response_id for r in gold})
    column = {rid: i for i, rid in enumerate(ids)}
    rows_x, rows_y = [], []
    for mode in PRECISION_MODES:
        x, y = np.full(len(ids), np.nan), np.full(len(ids), np.nan)
        judged = _judge_scores(store, state, source, mode)
        mine = [judged[rid] for rid in ids if rid in judged]
        for values, scored in ((x, mine), (y, kept_scores(gold, [mode]))):
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
