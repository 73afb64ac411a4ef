"""Named annotation queues: responses drawn to be labelled next (e.g. the model-score planner's
stratified random sample of each model's responses), and which responses annotators are asked.

A queue is a name and its responses in the order drawn, each with its stratum (table
`sample_queues`, owned and declared here, made when a project opens (`declare_tables`);
queues are never changed once made). Annotators are asked `annotation_response_ids`: the queued
responses first, queue by queue in the order they were made, then — unless the project's setting
`annotate` is "queues" — every other response in import order. A project that scores thousands of
responses with a judge sets "queues", so people are asked only the samples drawn for them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from annotation.store.database import declare_tables
from annotation.store.event_log import utc_now

OWNER = "sample_queues"
MIGRATIONS: list[str] = [
    """
    CREATE TABLE sample_queues (
        name TEXT NOT NULL, position INTEGER NOT NULL,
        response_id TEXT NOT NULL REFERENCES responses(response_id),
        stratum TEXT, created_at TEXT NOT NULL,
        PRIMARY KEY (name, position));
    CREATE INDEX sample_queues_by_response ON sample_queues(response_id);
    """,
]
TABLES = declare_tables(OWNER, MIGRATIONS)
SCOPE_SETTING = "annotate"
SCOPES = ("all", "queues")  # every response (queued ones first), or only the queued ones


@dataclass(frozen=True)
class QueueSummary:
    """A named queue: how many responses, per stratum, and when it was made."""

    name: str
    size: int
    strata: dict
    created_at: str


def stratified_sample(
    strata: dict[str | None, list[str]], counts: dict[str | None, int], seed: int
) -> list[tuple[str, str | None]]:
    """(response id, stratum) pairs: from each stratum a simple random sample without replacement
    of `counts[stratum]` of its ids (all of them when it holds fewer; none when not counted).
    The same strata (ids in the same order), counts and seed give the same sample. The order
    interleaves the strata (first of each, then second of each, …) so a queue stopped halfway
    still covers every stratum. A negative count raises ValueError."""
    if any(n < 0 for n in counts.values()):
        raise ValueError("a stratum's sample size must not be negative")
    drawn = {}
    for stratum in sorted(strata, key=lambda s: (s is not None, s or "")):
        ids, wanted = strata[stratum], counts.get(stratum, 0)
        drawn[stratum] = random.Random(f"{seed}:{stratum}").sample(ids, min(wanted, len(ids)))
    longest = max((len(ids) for ids in drawn.values()), default=0)
    return [(ids[i], stratum) for i in range(longest) for stratum, ids in drawn.items() if i < len(ids)]


def _has_queues(store) -> bool:
    row = store.database.connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sample_queues'"
    ).fetchone()
    return row is not None


def create_sample_queue(store, name: str, sample: list[tuple[str, str | None]]) -> QueueSummary:
    """Store `sample` ((response id, stratum) pairs, in the order to ask them) as the queue `name`.
    ValueError for a blank name, a name already used, an empty sample, an id listed twice or an id
    not in the project; then nothing is written."""
    name = name.strip()
    ids = [rid for rid, _ in sample]
    known = set(store.response_ids())
    problems = [
        why
        for why, wrong in (
            ("a queue needs a name", not name),
            ("the sample is empty", not sample),
            ("an id is listed twice", len(set(ids)) != len(ids)),
            (f"not in the project: {', '.join(sorted(set(ids) - known)[:5])}", not set(ids) <= known),
        )
        if wrong
    ]
    TABLES.ready(store.database)
    now = utc_now()
    with store.database.transaction() as conn:  # the name is checked and taken at once
        if name and name in queue_names(store):
            problems.append(f"a queue named '{name}' exists already")
        if problems:
            raise ValueError("; ".join(problems))
        conn.executemany(
            "INSERT INTO sample_queues(name, position, response_id, stratum, created_at) VALUES (?, ?, ?, ?, ?)",
            [(name, i, rid, stratum, now) for i, (rid, stratum) in enumerate(sample)],
        )
    return next(q for q in queue_summaries(store) if q.name == name)


def queue_names(store) -> list[str]:
    """The project's queue names, in the order they were made."""
    return [q.name for q in queue_summaries(store)]


def queue_summaries(store) -> list[QueueSummary]:
    """Every queue with its size and per-stratum counts, in the order they were made."""
    if not _has_queues(store):
        return []
    strata: dict[str, dict] = {}
    for name, stratum, count in store.database.connection.execute(
        "SELECT name, stratum, COUNT(*) FROM sample_queues GROUP BY name, stratum ORDER BY MIN(rowid)"
    ):
        strata.setdefault(name, {})[stratum] = count
    rows = store.database.connection.execute(
        "SELECT name, COUNT(*), MIN(created_at) FROM sample_queues GROUP BY name ORDER BY MIN(rowid)"
    )
    return [QueueSummary(name, size, strata[name], created_at) for name, size, created_at in rows]


def sample_queue(store, name: str) -> list[tuple[str, str | None]]:
    """The queue's (response id, stratum) pairs in the order drawn; [] for an unknown name."""
    if not _has_queues(store):
        return []
    return [
        (rid, stratum)
        for rid, stratum in store.database.connection.execute(
            "SELECT response_id, stratum FROM sample_queues WHERE name = ? ORDER BY position", [name]
        )
    ]


def annotation_scope(store) -> str:
    """'all' (default: every response is asked, queued ones first) or 'queues' (only queued ones)."""
    scope = store.get_setting(SCOPE_SETTING, "all")
    return scope if scope in SCOPES else "all"


def set_annotation_scope(store, scope: str) -> None:
    """ValueError for a scope other than 'all' or 'queues'."""
    if scope not in SCOPES:
        raise ValueError(f"'{scope}' is not one of {', '.join(SCOPES)}")
    store.set_setting(SCOPE_SETTING, scope)


def queued_response_ids(store) -> list[str]:
    """Every queued response once, queue by queue in the order made, each queue in its order."""
    if not _has_queues(store):
        return []
    rows = store.database.connection.execute("SELECT response_id FROM sample_queues ORDER BY rowid")
    return list(dict.fromkeys(rid for (rid,) in rows))


def annotation_response_ids(store, response_ids: list[str] | None = None) -> list[str]:
    """The responses annotators are asked, in order (see module doc). `response_ids` (the
    project's, in import order) may be passed when already read."""
    queued = queued_response_ids(store)
    if annotation_scope(store) == "queues":
        return queued
    ids = store.response_ids() if response_ids is None else response_ids
    first = set(queued)
    return queued + [rid for rid in ids if rid not in first]


def queue_state(store) -> tuple[str, int]:
    """What `annotation_response_ids` depends on besides the responses: (scope, queued rows).
    Queues only grow, so a changed state means a changed list."""
    if not _has_queues(store):
        return annotation_scope(store), 0
    count = store.database.connection.execute("SELECT COUNT(*) FROM sample_queues").fetchone()[0]
    return annotation_scope(store), count
