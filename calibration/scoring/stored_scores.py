"""Stored records' MURGAT-S, scored once per record and precision mode: the `record_scores` table,
which this module owns (its schema and migrations are here) inside the project's SQLite file.

A stored record never changes (the records table is append-only; a response's sentences, which a
record's compact form leans on, are fixed at import), so its score in a mode is a function of its
id and of the scoring code: a row is read back instead of scoring the record again. A record not
scored yet is scored from the score form stored beside it (annotation/store/record_form.py: a few
hundred bytes, no record object built); one stored before forms were is decoded (≈ 0.25 ms a
record: 50,000 judged responses were ≈ 12 s that way). `SCORER`, a hash of
the scoring code's source, is part of the key, so a changed scorer scores every record again. A
read-only project is scored in memory, nothing kept.
"""

from __future__ import annotations

import hashlib
import inspect
import sqlite3
from collections.abc import Iterable
from functools import cache
from operator import attrgetter

from annotation.store import record_form
from annotation.store.bulk import without_cycle_collection
from annotation.store.database import ProjectFileError, declare_tables
from calibration.scoring import murgat_s
from calibration.scoring.murgat_s import PRECISION_MODES, ResponseScore, score_form_modes, score_record_modes

OWNER = "record_scores"
# records decoded at a time when scoring: 50,000 judged responses are never all in memory at once
DECODED_AT_ONCE = 2000
FORMS_AT_ONCE = 20000  # score forms read at a time (a few hundred bytes each)
# Append, never edit.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE record_scores (
        record_id INTEGER NOT NULL REFERENCES records(id), precision_mode TEXT NOT NULL,
        scorer TEXT NOT NULL, coverage REAL NOT NULL, precision REAL, recall REAL, f1 REAL,
        murgat_s REAL, n_verifiable INTEGER NOT NULL, n_cited INTEGER NOT NULL,
        n_facts INTEGER NOT NULL, n_undetermined INTEGER NOT NULL,
        n_recall_undetermined INTEGER NOT NULL, no_verifiable INTEGER NOT NULL,
        PRIMARY KEY (record_id, precision_mode, scorer)) WITHOUT ROWID;
    """,
]
TABLES = declare_tables(OWNER, MIGRATIONS)
# ResponseScore's fields after (response_id, source, precision_mode), in the table's column order
_VALUES = (
    "coverage",
    "precision",
    "recall",
    "f1",
    "murgat_s",
    "n_verifiable",
    "n_cited",
    "n_facts",
    "n_undetermined",
    "n_recall_undetermined",
    "no_verifiable",
)


@cache
def scorer() -> str:
    """The scoring code's identity: a hash of the source of `murgat_s`, of the score form it reads
    and of the protocol modules it scores with (a record's score is theirs)."""
    modules = [
        murgat_s,
        record_form,
        *(inspect.getmodule(f) for f in (murgat_s.derive_entailment, murgat_s.Fact)),
    ]
    text = "".join(inspect.getsource(module) for module in dict.fromkeys(modules))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _kept(store) -> bool:
    """Whether scores can be kept in this project (its table made, or already there)."""
    try:
        TABLES.ready(store.database)
    except ProjectFileError:  # read-only, and the table is not there yet
        return False
    return not store.database.read_only


def stored_scores(
    store, source: str, mode: str, response_ids: Iterable[str] | None = None
) -> dict[str, ResponseScore]:
    """{response: the MURGAT-S of `source`'s record in force for it, in `mode`} (of `response_ids`
    only, when given), in no particular order: read back where kept, else scored now and kept.
    ValueError (from the scorer, naming response, sentence and fact) for a record it rejects."""
    if mode not in PRECISION_MODES:
        raise ValueError(f"unknown precision mode '{mode}' (expected one of {', '.join(PRECISION_MODES)})")
    # reading and scoring make many small objects, none in a cycle: beside a project's state the
    # cyclic collector would walk the whole heap again and again for nothing
    with without_cycle_collection():
        return _stored_scores(store, source, mode, response_ids)


def _stored_scores(store, source: str, mode: str, response_ids) -> dict[str, ResponseScore]:
    kept = _kept(store)
    latest = store.latest_record_ids(source, response_ids)
    out: dict[str, ResponseScore] = {}
    if kept:
        rows = store.database.connection.execute(
            f"SELECT r.response_id, {', '.join('s.' + v for v in _VALUES)} FROM records r "
            "JOIN record_scores s ON s.record_id = r.id AND s.precision_mode = ? AND s.scorer = ? "
            "WHERE r.id IN (SELECT value FROM json_each(?))",
            [mode, scorer(), _json_ids(latest.values())],
        )
        for response_id, *values in rows:
            *head, no_verifiable = values
            out[response_id] = ResponseScore(response_id, source, mode, *head, bool(no_verifiable))
    missing = sorted(record_id for rid, record_id in latest.items() if rid not in out)
    rows = []
    _score_missing(store, missing, mode, out, rows)
    if kept and rows:
        try:
            store.database.write(
                lambda c: c.executemany(
                    f"INSERT OR IGNORE INTO record_scores VALUES ({', '.join('?' * (3 + len(_VALUES)))})",
                    rows,
                )
            )
        except sqlite3.OperationalError:  # busy for 30 s, or made read-only meanwhile: scored anyway
            pass
    return out


def _json_ids(ids: Iterable[int]) -> str:
    return "[" + ",".join(str(int(i)) for i in ids) + "]"


def _score_missing(store, missing: list[int], mode: str, out: dict, rows: list) -> None:
    """Score the records of ids `missing`: from their score forms in `mode`, and the records
    without one (stored before forms were) decoded, `DECODED_AT_ONCE` at a time, in every mode (the
    decoding is what costs; the next mode asked is then a read): `mode`'s scores into `out` by
    response, a `record_scores` row per mode scored into `rows`."""
    code, values = scorer(), attrgetter(*_VALUES)

    def keep(record_id: int, scores: list[ResponseScore]) -> None:
        for score in scores:
            if score.precision_mode == mode:
                out[score.response_id] = score
            rows.append((record_id, score.precision_mode, code, *values(score)))

    undecoded = []
    for start in range(0, len(missing), FORMS_AT_ONCE):
        for record_id, (response_id, source, form) in store.record_forms(
            missing[start : start + FORMS_AT_ONCE]
        ).items():
            if form is None:
                undecoded.append(record_id)
                continue
            try:
                keep(record_id, score_form_modes(response_id, source, form, [mode]))
            except ValueError:  # not a form after all (the file was edited): the record decides
                undecoded.append(record_id)
    for start in range(0, len(undecoded), DECODED_AT_ONCE):
        for record_id, record in store.records_by_id(undecoded[start : start + DECODED_AT_ONCE]).items():
            keep(record_id, score_record_modes(record, PRECISION_MODES))
