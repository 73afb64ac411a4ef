"""In-memory records' MURGAT-S, scored once per record object while it lives.

The project state hands every revision the same record objects for the responses a change did not
touch (annotation/state.py), and the sweep's judge records are read once while no record is
imported (calibration/sweep/inputs.py): so after a new label only that response's records are
scored again, by the sweep, the estimates and the pages alike. Keyed by the object (a weak
reference: an entry goes with its record), so a record is never mistaken for another; stored
records' scores are also kept on disk (stored_scores.py).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable
from functools import partial

from calibration.scoring.murgat_s import ResponseScore, score_record_modes

_kept: dict[int, tuple[weakref.ref, dict[str, ResponseScore]]] = {}
_lock = threading.Lock()


def _forget(kept: dict, key: int, ref: weakref.ref) -> None:
    """A weak reference's callback: drop the entry of the record that died (the dict is bound, not
    looked up, so this also works while the interpreter shuts down; the GIL makes it one step)."""
    if kept.get(key, (None,))[0] is ref:
        kept.pop(key, None)


def kept_scores(records: Iterable, modes: Iterable[str]) -> list[ResponseScore]:
    """`score_records(records, modes)`: every record in every mode, record by record in input order,
    each record scored at most once per mode while it lives. ValueError as `score_record`."""
    modes, records = list(modes), list(records)
    with _lock:  # what is kept, looked up at once: a page's rerun asks for thousands of records
        found = [_kept.get(id(record)) for record in records]
    out: list[ResponseScore] = []
    for record, entry in zip(records, found, strict=True):
        scores = entry[1] if entry is not None and entry[0]() is record else None
        missing = modes if scores is None else [m for m in modes if m not in scores]
        if missing:
            scores = _score_and_keep(record, missing)
        out.extend(scores[mode] for mode in modes)
    return out


def _score_and_keep(record, modes: list[str]) -> dict[str, ResponseScore]:
    """The record's kept scores with `modes` scored and added (kept under its id while it lives)."""
    key = id(record)
    new = {score.precision_mode: score for score in score_record_modes(record, modes)}
    with _lock:
        found = _kept.get(key)
        if found is not None and found[0]() is record:
            scores = found[1]
        else:
            ref = weakref.ref(record, partial(_forget, _kept, key))
            scores = {}
            _kept[key] = (ref, scores)
        scores.update(new)
    return scores
