"""What the model estimates read from a project: per response, its model, the question it
answered, and its gold and judge scores in one precision mode. The project's records come from
the project state (`annotation.state.project_state`: the one gold set, the judge records); scores from the one
scorer. An undetermined score (MURGAT-S null, PROTOCOL §3) is missing, as in the sweep."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from annotation.state import Revision, project_state
from annotation.store.bulk import without_cycle_collection
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
    """(judge source, responses it has a record for), most responses first, then by name; counted
    once per records mark (a label does not move it)."""

    def counted() -> list[tuple[str, int]]:
        counts = store.record_counts("judge")
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    return _per_records_mark(store, Revision.of(store), ("judge sources",), counted)


KEPT = 16  # results kept in memory per (project revision, what was asked), the least recently read dropped
_kept: OrderedDict[tuple, object] = OrderedDict()
_cache_lock = threading.Lock()


_MISSING = object()


def _recall(cache: OrderedDict, key: tuple):
    """What `cache` keeps under `key` (`_MISSING` when nothing), marked as the most recently read."""
    with _cache_lock:
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
    return _MISSING


def _keep(cache: OrderedDict, key: tuple, value) -> None:
    """Keep `value` under `key`, dropping the least recently read beyond KEPT."""
    with _cache_lock:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > KEPT:
            cache.popitem(last=False)


def _once_per_revision(store, asked: tuple, compute):
    """`compute(state)` for the project's current state, computed once per (project file, revision,
    `asked`): a page's reruns and sessions read the same result until the revision moves."""
    state = project_state(store)
    key = (str(store.db_path.resolve()), state.revision, *asked)
    found = _recall(_kept, key)
    if found is not _MISSING:
        return found
    with without_cycle_collection():  # many small objects beside the state's: nothing to collect
        found = compute(state)
    _keep(_kept, key, found)
    return found


# (project file, source, mode) → (judge scores, questions, gold scores, rows) of the last revision
# read: a revision whose gold scores are equal (a label that left every gold score as it was) hands
# on the same rows, so what was estimated from them need not be again (KEPT of them, the least
# recently read dropped)
_last_rows: OrderedDict[tuple, tuple] = OrderedDict()


def scored_responses(store, source: str, mode: str) -> list[ScoredResponse]:
    """Every response of the project in import order, with gold and `source`'s scores in `mode`
    (the judge's scored once per stored record: `stored_scores`), derived once per revision; the
    same list as the last revision's while the judge records, the responses and every gold score
    are as they were. ValueError (naming the response) for a record the scorer rejects."""
    last_key = (str(store.db_path.resolve()), source, mode)

    def compute(state) -> list[ScoredResponse]:
        gold = {s.response_id: s for s in kept_scores(state.gold.records, [mode])}
        judged = _judge_scores(store, state, source, mode)
        questions = _questions(store, state)
        last = _recall(_last_rows, last_key)
        if last is not _MISSING and last[0] is judged and last[1] is questions and last[2] == gold:
            return last[3]
        rows = [
            ScoredResponse(response_id, model, question, gold.get(response_id), judged.get(response_id))
            for response_id, model, question in questions
        ]
        _keep(_last_rows, last_key, (judged, questions, gold, rows))
        return rows

    return _once_per_revision(store, ("scored", source, mode), compute)


def _per_records_mark(store, revision, asked: tuple, compute):
    """`compute()` once per (project file, its records and responses marks in `revision`, `asked`):
    judge scores and questions do not move with a label, so a new label reads them from memory."""
    key = (str(store.db_path.resolve()), revision.records, revision.responses, *asked)
    found = _recall(_kept, key)
    if found is not _MISSING:
        return found
    with without_cycle_collection():
        found = compute()
    _keep(_kept, key, found)
    return found


def _judge_scores(store, state, source: str, mode: str) -> dict[str, ResponseScore]:
    """{response: `source`'s score in `mode`} of every response it has a record for."""
    return _per_records_mark(
        store, state.revision, ("judge", source, mode), lambda: stored_scores(store, source, mode)
    )


def _questions(store, state) -> list[tuple]:
    return _per_records_mark(store, state.revision, ("questions",), store.response_questions)


def calibrated_mode(store, source: str) -> tuple[str, float]:
    """(precision mode, its r): the mode the sweep's rule (highest full-sample Pearson r of
    MURGAT-S against gold) picks for `source` — the mode its scores are calibrated in. The first
    mode with r NaN when no mode's r is defined (too few gold responses)."""
    return _once_per_revision(
        store, ("calibrated", source), lambda state: _calibrated_mode(store, state, source)
    )


# (project file, source) → (its judge scores per mode, gold's MURGAT-S per (response, mode), the
# mode and r) of the last revision read: a label that left every gold score as it was keeps them
_last_calibrated: OrderedDict[tuple, tuple] = OrderedDict()


def _calibrated_mode(store, state, source: str) -> tuple[str, float]:
    gold = state.gold.records
    judged = [_judge_scores(store, state, source, mode) for mode in PRECISION_MODES]
    gold_values = {(s.response_id, s.precision_mode): s.murgat_s for s in kept_scores(gold, PRECISION_MODES)}
    last_key = (str(store.db_path.resolve()), source)
    last = _recall(_last_calibrated, last_key)
    if (
        last is not _MISSING
        and all(a is b for a, b in zip(last[0], judged, strict=True))
        and last[1] == gold_values
    ):
        return last[2]
    found = _highest_r_mode(sorted({r.response_id for r in gold}), judged, gold_values)
    _keep(_last_calibrated, last_key, (judged, gold_values, found))
    return found


def _highest_r_mode(ids: list[str], judged: list[dict], gold_values: dict) -> tuple[str, float]:
    column = {rid: i for i, rid in enumerate(ids)}
    rows_x, rows_y = [], []
    for mode, scores in zip(PRECISION_MODES, judged, strict=True):
        x, y = np.full(len(ids), np.nan), np.full(len(ids), np.nan)
        for score in (scores[rid] for rid in ids if rid in scores):
            if score.murgat_s is not None:
                x[column[score.response_id]] = score.murgat_s
        for rid in ids:
            value = gold_values.get((rid, mode))
            if value is not None:
                y[column[rid]] = value
        rows_x.append(x)
        rows_y.append(y)
    r = pearson_rows(np.array(rows_x), np.array(rows_y)) if ids else np.full(len(PRECISION_MODES), np.nan)
    if not np.isfinite(r).any():
        return PRECISION_MODES[0], float("nan")
    best = int(np.nanargmax(r))
    return PRECISION_MODES[best], float(r[best])
