"""Each labelled response's derived share of the project state (its annotators' records and its
gold), kept in the project file so that a new process reads what the last one derived instead of
deriving it again: the `derived_results` table, which this module owns (schema and migrations here).

A row holds one response's result under a key; it is served only to a reader whose key for the
response is the same, and a reader that derives a response anew replaces its row. The key
(`annotation.state` composes it) is the response's mark (`response_marks`: its last event id and the
last id of its imported `human:*` and `gold` records as of the revision read — both tables are
append-only, so an equal mark means the same labels, undos, rulings, "Same fact?" answers and
imported records), the gold settings, and `deriver()`: a hash of the deriving code's source and of
the versions of the libraries the clustering computes with. So a relabel, an undo, a ruling, an
answer, an import, a settings change or new code each miss, and the response is derived again.

Encoding: pickle (protocol 5), not compressed (≈ 13 KB a response, 54 MB at 4,000 labelled
responses, against 15 MB with zlib at its fastest level: that level cost 0.7 CPU s to write at 4,000
and 0.3 s to read back, a fifth of writing and of reading every result), loaded by an unpickler
that admits only the dataclasses of `annotation` modules already imported (and ADMITTED_NAMES: the
unit and task value types, the clusters' default "no answer" function): a project file brought in cannot run code through it; anything else
in a row is a miss. Pickle, not a hand-written JSON form: a gold value holds its sentence's
clusters, whose members share Fact and Sentence objects with the annotators' records; pickle keeps
that sharing and follows the agreement classes as they change (a change is new code: every row
misses). Loading a response costs about a tenth of deriving it (0.7 ms against 5 ms at 4,000
responses on a loaded machine). A result that cannot be pickled (clusters holding a "Same fact?"
answer function) is not kept: that response is derived in every process.

All rows of one derivation are written in one transaction (all or nothing under a kill). A
read-only project keeps nothing; a project file made before this table gets it on first use.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import pickle
import sqlite3
import sys
from collections.abc import Iterable
from functools import cache
from importlib import metadata
from pathlib import Path

from annotation.store.database import ProjectFileError, declare_tables

OWNER = "derived_results"
# Append, never edit.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE derived_results (
        response_id TEXT PRIMARY KEY REFERENCES responses(response_id),
        key TEXT NOT NULL, result BLOB NOT NULL);
    """,
]
TABLES = declare_tables(OWNER, MIGRATIONS)
ANNOTATION = Path(__file__).resolve().parents[1]
# The code a response's derived result is a function of (package folders and modules, relative to
# annotation/), and the libraries whose numbers the clustering uses.
DERIVING_CODE = (
    "agreement",
    "protocol",
    "work/labels.py",
    "state.py",
    "project_settings.py",
    "store/derived_results.py",
    "store/event_log.py",  # which labels are read
    "store/project_store.py",  # sentences and imported records as read
)
DERIVING_LIBRARIES = ("wordllama", "numpy", "scipy", "rapidfuzz")
# What a result may name besides dataclasses: the value types of units and tasks (named tuples), and
# the clusters' "nobody answered" default.
ADMITTED_NAMES = frozenset(
    {
        ("annotation.protocol.ids", "Unit"),
        ("annotation.protocol.ids", "Task"),
        ("annotation.agreement.clusters", "_unanswered"),
    }
)
# What loading a damaged, foreign or outdated row can raise
UNREADABLE = (
    pickle.UnpicklingError,
    EOFError,
    AttributeError,
    TypeError,
    ValueError,
    IndexError,
    KeyError,
)


@cache
def deriver() -> str:
    """The deriving code's identity: a hash of its source files (DERIVING_CODE) and of the versions
    of DERIVING_LIBRARIES."""
    digest = hashlib.sha256()
    for part in DERIVING_CODE:
        path = ANNOTATION / part
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(str(file.relative_to(ANNOTATION)).encode() + b"\0" + file.read_bytes() + b"\0")
    for library in DERIVING_LIBRARIES:
        version = getattr(sys.modules.get(library), "__version__", None)  # reading metadata is slower
        if version is None:
            try:
                version = metadata.version(library)
            except metadata.PackageNotFoundError:
                version = "absent"
        digest.update(f"{library}={version}\0".encode())
    return digest.hexdigest()[:16]


def kept(store) -> bool:
    """Whether results can be read from this project (its table made, or already there)."""
    try:
        TABLES.ready(store.database)
    except ProjectFileError:  # read-only, and the table is not there yet
        return False
    return True


def response_marks(
    store, last_event: int, last_record: int, response_ids: Iterable[str] | None = None
) -> dict[str, str]:
    """{response: "last event id/last imported record id"} of every response (of `response_ids`
    only, when given) with an event (of any kind) up to `last_event` or an imported `human:*` or
    `gold` record up to `last_record`: what its derived result is a function of, besides settings
    and code."""
    among, params = "", []
    if response_ids is not None:
        among, params = (
            " AND response_id IN (SELECT value FROM json_each(?))",
            [json.dumps(sorted(response_ids))],
        )
    connection = store.database.connection
    events = connection.execute(
        f"SELECT response_id, MAX(id) FROM events WHERE id <= ?{among} GROUP BY response_id",
        [last_event, *params],
    )
    marks = {rid: [last, 0] for rid, last in events}
    records = connection.execute(
        "SELECT response_id, MAX(id) FROM records WHERE id <= ? "
        f"AND (source = 'gold' OR (source >= 'human:' AND source < 'human;')){among} GROUP BY response_id",
        [last_record, *params],
    )
    for rid, last in records:
        marks.setdefault(rid, [0, 0])[1] = last
    return {rid: f"{event}/{record}" for rid, (event, record) in marks.items()}


def _admitted(module: str, name: str):
    """The class (or ADMITTED_NAMES class or function) `module.name` when a result may name it, else
    None."""
    if module.startswith("annotation.") and "." not in name:
        found = getattr(sys.modules.get(module), name, None)  # what this process imported
        if (isinstance(found, type) and dataclasses.is_dataclass(found)) or (
            module,
            name,
        ) in ADMITTED_NAMES:
            return found
    return None


class _AdmittingUnpickler(pickle.Unpickler):
    """Loads only annotation's dataclasses and ADMITTED_NAMES; anything else is refused."""

    admitted: dict[tuple[str, str], object] = {}  # each name checked once per process (45k asks at 4,000)

    def find_class(self, module: str, name: str):
        found = self.admitted.get((module, name))
        if found is None:
            found = _admitted(module, name)
            if found is None:
                raise pickle.UnpicklingError(f"{module}.{name} is not admitted in a derived result")
            self.admitted[(module, name)] = found
        return found


def encode(result) -> bytes:
    """The stored form of one response's result; pickle.PicklingError (or TypeError, AttributeError)
    when it holds something pickle cannot name (a closure)."""
    return pickle.dumps(result, protocol=5)


def decode(blob: bytes):
    """The result `encode` stored; pickle.UnpicklingError (or EOFError, …) for anything else."""
    return _AdmittingUnpickler(io.BytesIO(blob)).load()


def read_results(store, keys: dict[str, str]) -> dict[str, object]:
    """{response: its stored result} of the responses in `keys` ({response: key}) whose row has
    that key (and decodes); the others are missing. Nothing when the project keeps none."""
    if not keys or not kept(store):
        return {}
    code = deriver()
    out = {}
    rows = store.database.connection.execute(
        "SELECT response_id, key, result FROM derived_results "
        "WHERE response_id IN (SELECT value FROM json_each(?))",
        [json.dumps(sorted(keys))],
    )
    for rid, key, blob in rows:
        wanted = keys.get(rid)
        if wanted is None or key != f"{wanted}|{code}":
            continue
        try:
            out[rid] = decode(blob)
        except UNREADABLE:  # a damaged or foreign row is a miss: derived again
            continue
    return out


def write_results(store, results: dict[str, tuple[str, object]]) -> int:
    """Keep {response: (key, result)} in one transaction, replacing those responses' rows; a result
    pickle cannot encode is left out. Returns how many were kept (0 on a read-only project, or when
    the file stays locked: the results are derived again next time, nothing is wrong)."""
    if not results or store.database.read_only or not kept(store):
        return 0
    code = deriver()
    rows = []
    for rid, (key, result) in results.items():
        try:
            rows.append((rid, f"{key}|{code}", encode(result)))
        except (pickle.PicklingError, TypeError, AttributeError):  # a closure: derived every time
            continue
    try:
        store.database.write(
            lambda c: c.executemany(
                "INSERT INTO derived_results(response_id, key, result) VALUES (?, ?, ?) "
                "ON CONFLICT(response_id) DO UPDATE SET key = excluded.key, result = excluded.result",
                rows,
            )
        )
    except sqlite3.OperationalError:  # busy for 30 s, or made read-only meanwhile
        return 0
    return len(rows)
