"""The project store: one SQLite file per project (sqlite-utils), WAL, foreign keys, migrations.

Labels are an append-only event log (`store.events`, annotation/store/event_log.py); the current label is derived from it (view
`current_labels`), so nothing is updated in place or deleted and undo/audit come free.

Records (imported, judged, gold) are stored without what their response already holds: a record's
sentence keeps its text, citations and offsets only where they differ from the response's
sentence of the same index (`_compact` / `_expand`); reading gives back the record that went in.
Beside each record its score form is stored (annotation/store/record_form.py): what scoring reads,
so that scores come without decoding the record (`record_forms`).

Connections, transactions and migrations are `Database`'s (annotation/store/database.py): one
connection per thread, because a sqlite3 connection must not cross Streamlit's threads.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from annotation.protocol.citations import Citation
from annotation.protocol.ids import Source
from annotation.protocol.records import EvaluationRecord, Response, Sentence
from annotation.store.bulk import without_cycle_collection
from annotation.store.database import (
    FILE_OWNER,
    Database,
    ProjectFileError,
    check_database_file,
    declare_tables,
)
from annotation.store.event_log import EventLog, utc_now
from annotation.store.record_form import FORM_TABLES, form_text, read_form
from annotation.store.rows import Account, MediaFile

DB_NAME = "project.db"
ROLES = ("annotator", "adjudicator", "admin")
_ACCOUNT_COLUMNS = "name, role, email, password_hash"  # `Account`'s fields, in order

# Each migration takes the schema from version i to i+1. Append, never edit. (The first one also
# created the event log's tables and the judge-call cache's table until each got its own owner
# and migrations — store/event_log.py, calibration/judges/cache.py; files made before then keep
# them, and their owners adopt them.)
MIGRATIONS: list[str] = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE media (
        name TEXT PRIMARY KEY, path TEXT NOT NULL, sha256 TEXT NOT NULL,
        info TEXT NOT NULL, proxy_path TEXT, probed_at TEXT NOT NULL);
    CREATE TABLE responses (
        response_id TEXT PRIMARY KEY, position INTEGER NOT NULL, video TEXT,
        question TEXT NOT NULL DEFAULT '', options TEXT NOT NULL DEFAULT '[]', answer TEXT,
        text TEXT NOT NULL, extra TEXT NOT NULL DEFAULT '{}', sentences TEXT NOT NULL DEFAULT '[]',
        imported_from TEXT, imported_at TEXT NOT NULL);
    CREATE TABLE records (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        response_id TEXT NOT NULL REFERENCES responses(response_id),
        source TEXT NOT NULL, record TEXT NOT NULL, imported_from TEXT, created_at TEXT NOT NULL);
    CREATE INDEX records_by_source ON records(source, response_id, id);
    CREATE TABLE users (
        name TEXT PRIMARY KEY,
        role TEXT NOT NULL CHECK (role IN ('annotator', 'adjudicator', 'admin')),
        password_hash TEXT, created_at TEXT NOT NULL);
    """,
    # Single sign-on maps an identity's email to an account; one account per email, case-blind.
    """
    ALTER TABLE users ADD COLUMN email TEXT;
    CREATE UNIQUE INDEX users_by_email ON users(lower(email)) WHERE email IS NOT NULL;
    """,
    # The model that wrote each response; rows imported before kept a `model` field in `extra`.
    """
    ALTER TABLE responses ADD COLUMN model TEXT;
    UPDATE responses SET model = json_extract(extra, '$.model')
        WHERE json_type(extra, '$.model') = 'text' AND trim(json_extract(extra, '$.model')) != '';
    CREATE INDEX responses_by_model ON responses(model, position);
    """,
    # Media paths relative to the media root and proxy paths relative to the project directory,
    # so a project served from another working directory (or moved) keeps its media and proxies.
    # A path that does not end with the media's name stays as it was (the name is resolved then).
    """
    UPDATE media SET proxy_path = 'cache/proxies/' || substr(sha256, 1, 20) || '.mp4'
        WHERE proxy_path IS NOT NULL;
    UPDATE media SET path = CASE
        WHEN path = name OR substr(path, -length(name) - 1) = '/' || name THEN name
        WHEN substr(path, -length(name) - 5) = '/' || name || '.mp4' THEN name || '.mp4'
        ELSE path END;
    """,
    # Records find their responses through an index, and keep only what their response does not
    # already hold (`compact_record`): a judge record repeated its sentences' texts, citations and
    # offsets, more than half of its 3.8 KB. `compact_record` is a function of the connection.
    """
    CREATE INDEX IF NOT EXISTS records_by_response ON records(response_id, source, id);
    UPDATE records SET record = compact_record(
        record, (SELECT sentences FROM responses p WHERE p.response_id = records.response_id));
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)
TABLES = declare_tables(FILE_OWNER, MIGRATIONS, required=True)
# The columns that hold JSON text: a malformed cell is named when the project is opened, not a
# traceback later. Scanning them all on every open cost 0.5 s at 50,000 judge records, so each
# column has triggers (`JSON_CELL_MIGRATIONS`) that note a malformed value whenever one is written —
# by this tool or by any other SQLite client — in `json_cell_faults`, and an open reads that note.
# A column added here needs its triggers in a new JSON-cell migration.
JSON_CELLS = (
    ("meta", "key", "value"),
    ("media", "name", "info"),
    ("responses", "response_id", "options"),
    ("responses", "response_id", "extra"),
    ("responses", "response_id", "sentences"),
    ("records", "id", "record"),
)
JSON_CELL_OWNER = "json_cells"


def _json_cell_triggers(cells) -> str:
    """SQL: per table, triggers that note the key of a row inserted or updated with a malformed
    value in one of its JSON columns (`cells`) in `json_cell_faults`, then a note of every such row
    already there (the one scan). Short: a new project's schema must fit a small disk."""
    statements = []
    for table in dict.fromkeys(table for table, _, _ in cells):
        key = next(k for t, k, _ in cells if t == table)
        columns = [c for t, _, c in cells if t == table]
        malformed = " OR ".join(f"NOT json_valid(NEW.{c})" for c in columns)
        for event in ("INSERT", "UPDATE"):
            statements.append(
                f"CREATE TRIGGER jc_{table}_{event[0]} AFTER {event} ON {table} WHEN {malformed} "
                f"BEGIN INSERT INTO json_cell_faults VALUES ('{table}', NEW.{key}); END;"
            )
        statements.append(
            f"INSERT INTO json_cell_faults SELECT '{table}', {key} FROM {table} "
            f"WHERE {malformed.replace('NEW.', '')};"
        )
    return "\n".join(statements)


# Append, never edit (the JSON-cell check's own tables, versioned apart from the file's schema).
JSON_CELL_MIGRATIONS: list[str] = [
    "CREATE TABLE json_cell_faults (tbl TEXT NOT NULL, key NOT NULL);\n" + _json_cell_triggers(JSON_CELLS),
]
# Not required: a read-only file without the triggers is left as it is (then `_check_json_cells`
# scans every cell).
JSON_CELL_TABLES = declare_tables(JSON_CELL_OWNER, JSON_CELL_MIGRATIONS)


# What a record's sentence repeats of its response's sentence (the keys Sentence.to_dict writes).
_SHARED_KEYS = ("text", "citations", "offsets")


def _compact(record: dict, response_sentences: list[dict]) -> dict:
    """The stored form of a record's dict: its sentences without the keys equal to its response's
    sentence of the same index (`_SHARED_KEYS`); response_id and source live in their columns. A
    sentence without offsets whose response sentence has them keeps `"offsets": null`."""
    sentences = []
    for i, sentence in enumerate(record.get("sentences") or []):
        shared = response_sentences[i] if i < len(response_sentences) else {}
        kept = {
            k: v for k, v in sentence.items() if not (k in _SHARED_KEYS and k in shared and shared[k] == v)
        }
        if "offsets" in shared and "offsets" not in sentence:
            kept["offsets"] = None
        sentences.append(kept)
    return {"sentences": sentences}


# What `_expand` takes back from the response's sentence: its citations are made once per response
# (`ProjectStore._decoded`) for all the response's records, not once per record
_EXPANDED_KEYS = tuple(key for key in _SHARED_KEYS if key != "citations")


def _expand(stored: dict, response_sentences: list[dict]) -> list[dict]:
    """The record's sentence dicts again: what `_compact` left out, from the response's sentences,
    but for the citations (a sentence without its own has none here: its response's are given to
    it once decoded)."""
    out = []
    for i, sentence in enumerate(stored["sentences"]):
        shared = response_sentences[i] if i < len(response_sentences) else {}
        out.append({**{k: shared[k] for k in _EXPANDED_KEYS if k in shared}, **sentence})
    return out


def compact_record(record_json: str, response_sentences_json: str | None) -> str:
    """The migration's SQL function: a stored full record's JSON (it names its response),
    compacted against its response; a compact one is returned as it is."""
    record = json.loads(record_json)
    if "response_id" not in record:
        return record_json
    return json.dumps(_compact(record, json.loads(response_sentences_json or "[]")))


class NoProjectError(FileNotFoundError):
    """There is no project in `directory` (its database is missing). `problem` says so without
    the directory, for a caller that names the directory itself (a located error)."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.problem = (
            f"no project here ({DB_NAME} missing); create one with `python -m annotation import` or `demo`"
        )
        super().__init__(f"{directory}: {self.problem}")


class ProjectStore:
    """A project directory: `project.db`, a media root, and caches.

    Pass the store to what needs it; it is safe to share across threads (one
    connection per thread). `open(..., create=False)` on a directory without a
    database raises FileNotFoundError. `events` is the project's label event log.
    """

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.db_path = self.directory / DB_NAME
        self.database = Database(self.db_path)
        self.events = EventLog(self.database)

    @classmethod
    def open(cls, directory: str | Path, *, create: bool = False) -> ProjectStore:
        """The project at `directory` (made there when `create`). FileNotFoundError when there is
        none; ProjectFileError (one line: the file and what is wrong) for a database that is
        empty, not SQLite, damaged, newer than this tool, or has a malformed JSON cell. A file
        this process may not write opens read-only. (NoProjectError is a FileNotFoundError.)
        Opening brings every declared owner's tables current (`Database.migrate_declared`)."""
        directory = Path(directory)
        check_database_file(directory / DB_NAME)
        if not (directory / DB_NAME).exists():
            if not create:
                raise NoProjectError(directory)
            directory.mkdir(parents=True, exist_ok=True)
        store = cls(directory)
        store.database.connection.create_function("compact_record", 2, compact_record, deterministic=True)
        try:
            store.database.migrate_declared()
            store._check_json_cells()
        except ProjectFileError:
            store.close()
            raise
        except sqlite3.DatabaseError as exc:  # "file is not a database", "disk image is malformed"
            store.close()
            raise ProjectFileError(f"{store.db_path}: cannot be used ({exc})") from None
        return store

    def _check_json_cells(self) -> None:
        """ProjectFileError naming the first cell of a JSON column that is not valid JSON: in the rows
        the triggers noted that are still malformed (a noted row written again with valid JSON is
        forgotten); in every row of a read-only file that has no triggers yet."""
        connection = self.database.connection
        noted = connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'json_cell_faults'").fetchone()
        suspects = (
            [(None, table, None) for table in dict.fromkeys(t for t, _, _ in JSON_CELLS)]
            if noted is None
            else connection.execute("SELECT rowid, tbl, key FROM json_cell_faults").fetchall()
        )
        for rowid, table, value in suspects:
            for cell_table, key, column in JSON_CELLS:
                if cell_table != table:
                    continue
                where, params = ("", []) if rowid is None else (f" AND {key} = ?", [value])
                row = connection.execute(
                    f"SELECT {key} FROM {table} WHERE NOT json_valid({column}){where} LIMIT 1", params
                ).fetchone()
                if row is not None:
                    raise ProjectFileError(
                        f"{self.db_path}: table {table}, row {key} = {str(row[0])[:80]!r}: "
                        f"column {column} is not valid JSON (the file was edited or damaged)"
                    )
            if rowid is not None and not self.database.read_only:
                self.database.write(
                    lambda c, r=rowid: c.execute("DELETE FROM json_cell_faults WHERE rowid = ?", [r])
                )

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends)."""
        self.database.close()

    def schema_version(self) -> int:
        return self.database.file_version()

    def change_marks(self) -> tuple[int, int, int, str]:
        """What moves whenever the project's content changes, read in one statement: the last
        event id, the last record id (both tables are append-only), the number of responses,
        and the settings as stored (key=value lines)."""
        row = self.database.connection.execute(
            "SELECT (SELECT COALESCE(MAX(id), 0) FROM events), (SELECT COALESCE(MAX(id), 0) FROM records), "
            "(SELECT COUNT(*) FROM responses), "
            "(SELECT COALESCE(group_concat(key || '=' || value, char(10)), '') "
            "FROM (SELECT key, value FROM meta ORDER BY key))"
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2]), str(row[3])

    # -- settings -------------------------------------------------------------------------
    def get_setting(self, key: str, default=None):
        row = self.database.connection.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return default if row is None else json.loads(row[0])

    def stored_settings(self) -> dict:
        """Every stored setting, {key: decoded value}, in one query."""
        return {
            key: json.loads(value)
            for key, value in self.database.connection.execute("SELECT key, value FROM meta")
        }

    def set_setting(self, key: str, value) -> None:
        """Store one value as it is. The project settings a person sets are checked first by
        `annotation.project_settings.write_settings`; this is the raw write under it."""
        self.set_settings({key: value})

    def set_settings(self, values: dict) -> None:
        """Store every value of `values` in one transaction (all or nothing), as they are."""
        self.database.write(
            lambda c: c.executemany(
                "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [(key, json.dumps(value)) for key, value in values.items()],
            )
        )

    @property
    def media_root(self) -> Path:
        """The folder media names resolve in: the `media_root` setting (relative to the project
        directory unless absolute), else `<project>/media`."""
        root = self.get_setting("media_root")
        return self.directory / (root or "media")

    def set_media_root(self, root: Path) -> None:
        """Store `root` relative to the project directory when it lies inside it, else absolute."""
        self.set_setting("media_root", self._relative_to_project(Path(root)))

    def _relative_to_project(self, path: Path) -> str:
        here, there = self.directory.resolve(), path.resolve()
        return there.relative_to(here).as_posix() if there.is_relative_to(here) else str(there)

    @property
    def cache_dir(self) -> Path:
        return self.directory / "cache"

    # -- media ----------------------------------------------------------------------------
    def register_media(self, name: str, path: str, sha256: str, info: dict) -> None:
        """Store what a probe found for media `name`; `path` is the file relative to the media
        root (`annotation.project.media_source` resolves it again on every read)."""
        self.database.write(
            lambda c: c.execute(
                "INSERT INTO media(name, path, sha256, info, probed_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET path=excluded.path, sha256=excluded.sha256, "
                "info=excluded.info, probed_at=excluded.probed_at, "
                "proxy_path=CASE WHEN media.sha256 = excluded.sha256 THEN media.proxy_path END",
                [name, str(path), sha256, json.dumps(info), utc_now()],
            )
        )

    def set_proxy(self, name: str, proxy_path: Path) -> None:
        """Remember the media's proxy (stored relative to the project directory when inside it)."""
        stored = self._relative_to_project(Path(proxy_path))
        self.database.write(
            lambda c: c.execute("UPDATE media SET proxy_path = ? WHERE name = ?", [stored, name])
        )

    def media(self, name: str) -> MediaFile | None:
        """The media row `name`, or None when not registered (see `MediaFile`; its `proxy_path`
        is the proxy's full path)."""
        row = self.database.connection.execute(
            "SELECT name, path, sha256, info, proxy_path FROM media WHERE name = ?", [name]
        ).fetchone()
        if row is None:
            return None
        proxy = None if row[4] is None else str(self.directory / row[4])
        return MediaFile(row[0], row[1], row[2], json.loads(row[3]), proxy)

    def media_names(self) -> list[str]:
        return [r[0] for r in self.database.connection.execute("SELECT name FROM media ORDER BY name")]

    # -- responses ------------------------------------------------------------------------
    def add_responses(
        self, items: Iterable[tuple[Response, list[Sentence]]], imported_from: str | None = None
    ) -> int:
        """Insert responses with their split sentences; an id already present with the same
        text is left as it is (re-import); a changed text is refused (ValueError), because labels
        point at its sentences. Returns how many were inserted."""
        items = list(items)
        now = utc_now()

        def insert(conn):
            position = conn.execute("SELECT COALESCE(MAX(position), -1) FROM responses").fetchone()[0]
            added: list[str] = []
            for response, sentences in items:
                old = conn.execute(
                    "SELECT text FROM responses WHERE response_id = ?", [response.response_id]
                ).fetchone()
                if old is not None and old[0] != response.text:
                    raise ValueError(
                        f"response '{response.response_id}' already exists with another "
                        "text; labels refer to its sentences, so it is not replaced"
                    )
                if old is not None:
                    continue
                position += 1
                added.append(response.response_id)
                conn.execute(
                    "INSERT INTO responses(response_id, position, video, question, options, answer, "
                    "text, extra, sentences, imported_from, imported_at, model) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    [
                        response.response_id,
                        position,
                        response.video,
                        response.question,
                        json.dumps(response.options),
                        response.answer,
                        response.text,
                        json.dumps(response.extra),
                        json.dumps([s.to_dict() for s in sentences]),
                        imported_from,
                        now,
                        response.model,
                    ],
                )
            return len(added)

        return self.database.write(insert)

    def response_ids(self) -> list[str]:
        return [
            r[0]
            for r in self.database.connection.execute("SELECT response_id FROM responses ORDER BY position")
        ]

    def response_models(self) -> list[tuple[str, str | None]]:
        """(response id, model or None) of every response, in import order."""
        return [
            (r[0], r[1])
            for r in self.database.connection.execute(
                "SELECT response_id, model FROM responses ORDER BY position"
            )
        ]

    def response_questions(self) -> list[tuple[str, str | None, tuple]]:
        """(response id, model or None, its question: (video, question, options)) of every
        response, in import order, in one read."""
        options: dict[str, tuple] = {}  # many responses answer the same question: decoded once
        return [
            (
                rid,
                model,
                (
                    video,
                    question,
                    options.get(listed) or options.setdefault(listed, tuple(json.loads(listed))),
                ),
            )
            for rid, model, video, question, listed in self.database.connection.execute(
                "SELECT response_id, model, video, question, options FROM responses ORDER BY position"
            )
        ]

    def count_responses(self) -> int:
        return self.database.connection.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def response(self, response_id: str) -> Response | None:
        row = self.database.connection.execute(
            "SELECT response_id, text, video, question, options, answer, extra, model FROM responses "
            "WHERE response_id = ?",
            [response_id],
        ).fetchone()
        if row is None:
            return None
        return Response(
            row[0], row[1], row[2], row[3], json.loads(row[4]), row[5], json.loads(row[6]), row[7]
        )

    def response_sentences(self, response_id: str) -> list[Sentence]:
        """The response's sentences as split at import (offsets, validated citations)."""
        found = self.responses_sentences([response_id])
        if response_id not in found:
            raise KeyError(response_id)
        return found[response_id]

    def responses_sentences(self, response_ids: Iterable[str]) -> dict[str, list[Sentence]]:
        """{response: its sentences} of the known `response_ids`, in one query (4,000 one by one
        cost ≈ 0.3 CPU s of reading 0.45 s)."""
        found = self.responses_sentence_dicts(response_ids)
        return {rid: [Sentence.from_dict(s) for s in sentences] for rid, sentences in found.items()}

    def responses_sentence_dicts(self, response_ids: Iterable[str]) -> dict[str, list[dict]]:
        """`responses_sentences` as stored (`Sentence.to_dict`), nothing decoded: for a comparison
        over many responses (building their citations costs 5× the read)."""
        return self._response_sentences(self.database.connection, response_ids)

    # -- records (imported or produced by judges; append-only, latest wins) ----------------
    # Stored compact (`_compact`): a record keeps only what its response's sentences do not hold.
    def _response_sentences(self, conn, response_ids: Iterable[str]) -> dict[str, list[dict]]:
        rows = conn.execute(
            "SELECT response_id, sentences FROM responses WHERE response_id IN (SELECT value FROM json_each(?))",
            [json.dumps(sorted(set(response_ids)))],
        )
        return {rid: json.loads(sentences) for rid, sentences in rows}

    def add_records(self, records: Iterable[EvaluationRecord], imported_from: str | None = None) -> int:
        """Append records (the latest per (response, source) is the one in force); a record equal
        to the one already in force is not appended again, so importing a file twice changes
        nothing. Returns how many were appended."""
        records = list(records)
        now = utc_now()

        def insert(conn) -> int:
            added, forms = 0, []
            for start in range(0, len(records), 2000):  # a batch's responses read in one query
                batch = records[start : start + 2000]
                sentences = self._response_sentences(conn, (r.response_id for r in batch))
                latest = self._latest_texts(conn, batch)
                for record in batch:
                    text = json.dumps(_compact(record.to_dict(), sentences.get(record.response_id, [])))
                    if latest.get((record.source, record.response_id)) == text:
                        continue
                    latest[record.source, record.response_id] = text
                    inserted = conn.execute(
                        "INSERT INTO records(response_id, source, record, imported_from, created_at) "
                        "VALUES (?, ?, ?, ?, ?)",
                        [record.response_id, record.source, text, imported_from, now],
                    )
                    form = form_text(record)
                    if form is not None:
                        forms.append((inserted.lastrowid, form))
                    added += 1
                conn.executemany("INSERT INTO record_forms(record_id, form) VALUES (?, ?)", forms)
                forms.clear()
            return added

        with without_cycle_collection():  # encoding makes many small objects, none in a cycle
            return self.database.write(insert)

    @staticmethod
    def _latest_texts(conn, records: list[EvaluationRecord]) -> dict[tuple[str, str], str]:
        """{(source, response): the stored text of the record in force} of these records' sources
        and responses, in one query."""
        rows = conn.execute(
            "SELECT source, response_id, record FROM records WHERE id IN (SELECT MAX(id) FROM records "
            "WHERE response_id IN (SELECT value FROM json_each(?)) AND source IN (SELECT value FROM json_each(?)) "
            "GROUP BY source, response_id)",
            [
                json.dumps(sorted({r.response_id for r in records})),
                json.dumps(sorted({r.source for r in records})),
            ],
        )
        return {(source, rid): text for source, rid, text in rows}

    def list_records(
        self,
        kind: str | None = None,
        *,
        source: str | None = None,
        response_id: str | None = None,
        response_ids: Iterable[str] | None = None,
    ) -> list[EvaluationRecord]:
        """Latest stored record per (response, source), in source then response order.
        Filters: `kind` ('gold', 'human' or 'judge'), `source` (exact), `response_id`, and
        `response_ids` (only these responses' records, found through the index)."""
        where, params = self._record_filters(kind, source, response_id, response_ids)
        found = self._decoded(
            f"r.id IN (SELECT MAX(id) FROM records WHERE {where} GROUP BY source, response_id)", params
        )
        return [record for _, _, record in sorted(found, key=lambda item: (item[2].source, item[1]))]

    def records_by_id(self, record_ids: Iterable[int]) -> dict[int, EvaluationRecord]:
        """{record id: the stored record} of these ids (`latest_record_ids` names them)."""
        found = self._decoded(
            "r.id IN (SELECT value FROM json_each(?))", [json.dumps(sorted(set(record_ids)))]
        )
        return {record_id: record for record_id, _, record in found}

    def _form_column(self) -> str:
        """The SQL giving the score form beside each record `r` (NULL in a read-only file from
        before forms were stored)."""
        try:
            FORM_TABLES.ready(self.database)
        except ProjectFileError:
            return "NULL"
        return "(SELECT form FROM record_forms f WHERE f.record_id = r.id)"

    def record_forms(self, record_ids: Iterable[int]) -> dict[int, tuple[str, str, list | None]]:
        """{record id: (response, source, its score form or None)} of these ids: the form as
        `annotation.store.record_form.read_form` reads it (None: stored before forms were, or not
        readable; decode the record with `records_by_id`)."""
        forms = self._form_column()
        rows = self.database.connection.execute(
            f"SELECT r.id, r.response_id, r.source, {forms} FROM records r "
            "WHERE r.id IN (SELECT value FROM json_each(?))",
            [json.dumps(sorted(set(record_ids)))],
        )
        return {record_id: (rid, source, read_form(form)) for record_id, rid, source, form in rows}

    def latest_record_forms(
        self, kind: str | None = None, *, response_ids: Iterable[str] | None = None
    ) -> dict[tuple[str, str], list | None]:
        """{(source, response): the score form of its record in force} for the records
        `list_records(kind, response_ids=…)` gives, nothing decoded (None as in `record_forms`)."""
        where, params = self._record_filters(kind, None, None, response_ids)
        forms = self._form_column()
        rows = self.database.connection.execute(
            f"SELECT r.source, r.response_id, {forms} FROM records r "
            f"WHERE r.id IN (SELECT MAX(id) FROM records WHERE {where} GROUP BY source, response_id)",
            params,
        )
        return {(source, rid): read_form(form) for source, rid, form in rows}

    def latest_record_ids(self, source: str, response_ids: Iterable[str] | None = None) -> dict[str, int]:
        """{response: the id of `source`'s record in force for it} (of `response_ids` only, when
        given), nothing decoded."""
        where, params = self._record_filters(None, source, None, response_ids)
        rows = self.database.connection.execute(
            f"SELECT response_id, MAX(id) FROM records WHERE {where} GROUP BY response_id", params
        )
        return dict(rows.fetchall())

    def _decoded(self, where: str, params: list) -> list[tuple[int, int, EvaluationRecord]]:
        """[(record id, response position, record)] of the records matching `where` (on
        `records r`), in response order."""
        rows = self.database.connection.execute(
            "SELECT r.id, r.response_id, r.source, r.record, p.sentences, p.position FROM records r "
            "JOIN responses p ON p.response_id = r.response_id "
            f"WHERE {where} ORDER BY p.position, r.source",  # a response's records together: its sentences read once
            params,
        )
        out: list[tuple[int, int, EvaluationRecord]] = []
        last_id, shared, citations = None, [], []
        for record_id, rid, record_source, text, sentences, position in rows:
            if rid != last_id:
                last_id, shared = rid, json.loads(sentences)
                # the response's citations, made once for all its records (a Citation is immutable)
                citations = [[Citation.from_dict(c) for c in s.get("citations") or []] for s in shared]
            stored = json.loads(text)
            record = EvaluationRecord.from_dict(
                {"response_id": rid, "source": record_source, "sentences": _expand(stored, shared)}
            )
            for i, sentence in enumerate(record.sentences):
                if i < len(shared) and "citations" in shared[i] and "citations" not in stored["sentences"][i]:
                    sentence.citations = list(citations[i])
            out.append((record_id, position, record))
        return out

    @staticmethod
    def _record_filters(kind, source, response_id, response_ids) -> tuple[str, list]:
        """(SQL condition on `records`, its parameters) for list_records' filters."""
        where, params = ["1"], []
        if kind is not None:
            prefix = Source.prefix(kind)
            if kind == "gold":
                where.append("source = ?")
                params.append(prefix)
            else:  # a range, so the source index finds them
                where.append("source >= ? AND source < ?")
                params += [prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)]
        if source is not None:
            where.append("source = ?")
            params.append(source)
        if response_id is not None:
            where.append("response_id = ?")
            params.append(response_id)
        if response_ids is not None:
            where.append("response_id IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(sorted(set(response_ids))))
        return " AND ".join(where), params

    def record_counts(self, kind: str | None = None) -> dict[str, int]:
        """{source: how many responses it has a record for}, counted in SQL (nothing decoded);
        `kind` as in `list_records`."""
        where, params = self._record_filters(kind, None, None, None)
        rows = self.database.connection.execute(
            f"SELECT source, COUNT(DISTINCT response_id) FROM records WHERE {where} GROUP BY source", params
        )
        return dict(rows.fetchall())

    def record_responses(self, kind: str | None = None) -> dict[str, list[str]]:
        """{source: the responses it has a record for, by response id}, sources by name, read from
        the index alone (nothing decoded, no join: a third of the time at 66,000 records); `kind` as
        in `list_records`."""
        where, params = self._record_filters(kind, None, None, None)
        rows = self.database.connection.execute(
            f"SELECT DISTINCT source, response_id FROM records WHERE {where} ORDER BY source, response_id",
            params,
        )
        out: dict[str, list[str]] = {}
        for source, response_id in rows:
            out.setdefault(source, []).append(response_id)
        return out

    def record_sources(self) -> list[str]:
        return [
            r[0]
            for r in self.database.connection.execute("SELECT DISTINCT source FROM records ORDER BY source")
        ]

    # -- users ----------------------------------------------------------------------------
    def add_user(self, name: str, role: str, password_hash: str | None, email: str | None = None) -> None:
        """Insert an account; a role outside ROLES raises ValueError, an email another account
        already has (case-blind) raises sqlite3.IntegrityError (annotation.store.accounts checks first).
        The name is stored as given: new accounts' names are checked by
        `annotation.store.accounts.check_new_account_name` first (tests build older projects here)."""
        if role not in ROLES:
            raise ValueError(f"role '{role}' is not one of {', '.join(ROLES)}")
        self.database.write(
            lambda c: c.execute(
                "INSERT INTO users(name, role, password_hash, email, created_at) VALUES (?, ?, ?, ?, ?)",
                [name, role, password_hash, email or None, utc_now()],
            )
        )

    def set_user(
        self,
        name: str,
        *,
        role: str | None = None,
        password_hash: str | None = None,
        email: str | None = None,
    ) -> None:
        """Change what is given (None keeps it); `email=""` removes the email."""
        if role is not None and role not in ROLES:
            raise ValueError(f"role '{role}' is not one of {', '.join(ROLES)}")

        def update(conn):
            if role is not None:
                conn.execute("UPDATE users SET role = ? WHERE name = ?", [role, name])
            if password_hash is not None:
                conn.execute("UPDATE users SET password_hash = ? WHERE name = ?", [password_hash, name])
            if email is not None:
                conn.execute("UPDATE users SET email = ? WHERE name = ?", [email or None, name])

        self.database.write(update)

    def user(self, name: str) -> Account | None:
        row = self.database.connection.execute(
            f"SELECT {_ACCOUNT_COLUMNS} FROM users WHERE name = ?", [name]
        ).fetchone()
        return None if row is None else Account(*row)

    def user_ignoring_case(self, name: str) -> Account | None:
        """The account named `name`, or else the one whose name differs from it only in case
        (None when there is none, or several and none exactly)."""
        exact = self.user(name)
        if exact is not None:
            return exact
        wanted = name.casefold()
        names = [r[0] for r in self.database.connection.execute("SELECT name FROM users")]
        matches = [n for n in names if n.casefold() == wanted]
        return self.user(matches[0]) if len(matches) == 1 else None

    def user_by_email(self, email: str) -> Account | None:
        """The account whose email equals `email` ignoring case, or None."""
        row = self.database.connection.execute(
            "SELECT name FROM users WHERE lower(email) = lower(?)", [email.strip()]
        ).fetchone()
        return None if row is None else self.user(row[0])

    def users(self) -> list[Account]:
        """Every account, by name."""
        return [
            Account(*row)
            for row in self.database.connection.execute(f"SELECT {_ACCOUNT_COLUMNS} FROM users ORDER BY name")
        ]
