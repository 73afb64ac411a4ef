"""The project store: one SQLite file per project (sqlite-utils), WAL, foreign keys, migrations.

Labels are an append-only event log (its methods: annotation/event_log.py); the current label is derived from it (view
`current_labels`), so nothing is updated in place or deleted and undo/audit come free.

Thread safety: Streamlit runs each session in its own thread, and a sqlite3
connection must not cross threads (`check_same_thread` crashes the real server),
so every thread gets its own connection, opened on first use.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path

import sqlite_utils

from annotation.event_log import EVENT_KINDS, Event, EventLog, utc_now  # noqa: F401 (re-exported)
from annotation.records import EvaluationRecord, Response, Sentence, source_kind

DB_NAME = "project.db"
ROLES = ("annotator", "adjudicator", "admin")

# Each migration takes the schema from version i to i+1. Append, never edit.
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
    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, who TEXT NOT NULL,
        response_id TEXT NOT NULL REFERENCES responses(response_id),
        unit TEXT NOT NULL, task TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('label', 'undo', 'skip', 'flag')),
        value TEXT, spent_ms INTEGER, ref INTEGER REFERENCES events(id));
    CREATE INDEX events_by_key ON events(who, response_id, unit, task, id);
    CREATE INDEX events_by_response ON events(response_id, id);
    CREATE INDEX events_by_ref ON events(ref) WHERE ref IS NOT NULL;
    CREATE VIEW live_labels AS
        SELECT e.* FROM events e
        WHERE e.kind = 'label'
          AND NOT EXISTS (SELECT 1 FROM events u WHERE u.kind = 'undo' AND u.ref = e.id);
    CREATE VIEW current_labels AS
        SELECT l.* FROM live_labels l
        WHERE l.id = (SELECT MAX(m.id) FROM live_labels m
                      WHERE m.who = l.who AND m.response_id = l.response_id
                        AND m.unit = l.unit AND m.task = l.task);
    CREATE TABLE judge_calls (
        key TEXT PRIMARY KEY, judge TEXT NOT NULL, model TEXT NOT NULL, stage TEXT NOT NULL,
        request TEXT NOT NULL, response TEXT, parsed TEXT, error TEXT,
        tokens_in INTEGER, tokens_out INTEGER, latency_ms INTEGER, cost REAL,
        created_at TEXT NOT NULL);
    """,
    # Single sign-on maps an identity's email to an account; one account per email, case-blind.
    """
    ALTER TABLE users ADD COLUMN email TEXT;
    CREATE UNIQUE INDEX users_by_email ON users(lower(email)) WHERE email IS NOT NULL;
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)


class ProjectStore(EventLog):
    """A project directory: `project.db`, a media root, and caches.

    Pass the store to what needs it; it is safe to share across threads (one
    connection per thread). `open(..., create=False)` on a directory without a
    database raises FileNotFoundError.
    """

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.db_path = self.directory / DB_NAME
        self._local = threading.local()

    # -- opening and schema ---------------------------------------------------------------
    @classmethod
    def open(cls, directory: str | Path, *, create: bool = False) -> ProjectStore:
        directory = Path(directory)
        if not (directory / DB_NAME).exists():
            if not create:
                raise FileNotFoundError(f"{directory}: no project here ({DB_NAME} missing); "
                                        "create one with `python -m annotation import` or `demo`")
            directory.mkdir(parents=True, exist_ok=True)
        store = cls(directory)
        store.migrate()
        return store

    @property
    def db(self) -> sqlite_utils.Database:
        """This thread's connection (opened on first use)."""
        db = getattr(self._local, "db", None)
        if db is None:
            conn = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute("PRAGMA synchronous=NORMAL")
            db = sqlite_utils.Database(conn)
            self._local.db = db
        return db

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends)."""
        db = getattr(self._local, "db", None)
        if db is not None:
            db.conn.close()
            self._local.db = None

    def _write(self, statements) -> None:
        """Run `statements(conn)` in one IMMEDIATE transaction, retrying on a busy lock."""
        conn = self.db.conn
        for attempt in range(50):
            try:
                conn.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                time.sleep(0.01 * (attempt + 1))
        else:
            raise sqlite3.OperationalError(f"{self.db_path}: database stayed locked")
        try:
            result = statements(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return result

    def schema_version(self) -> int:
        return self.db.conn.execute("PRAGMA user_version").fetchone()[0]

    def migrate(self) -> None:
        """Bring the schema to SCHEMA_VERSION, one migration per transaction."""
        def step(conn, version):
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            if current == version:  # another process may have migrated meanwhile
                for statement in _split_sql(MIGRATIONS[version]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {version + 1}")

        current = self.schema_version()
        if current > SCHEMA_VERSION:
            raise RuntimeError(f"{self.db_path}: schema version {current} is newer than this tool "
                               f"({SCHEMA_VERSION}); upgrade the tool")
        for version in range(current, SCHEMA_VERSION):
            self._write(lambda conn, v=version: step(conn, v))

    # -- settings -------------------------------------------------------------------------
    def get_setting(self, key: str, default=None):
        row = self.db.conn.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return default if row is None else json.loads(row[0])

    def set_setting(self, key: str, value) -> None:
        self._write(lambda c: c.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [key, json.dumps(value)]))

    @property
    def media_root(self) -> Path:
        root = self.get_setting("media_root")
        return Path(root) if root else self.directory / "media"

    @property
    def cache_dir(self) -> Path:
        return self.directory / "cache"

    # -- media ----------------------------------------------------------------------------
    def register_media(self, name: str, path: Path, sha256: str, info: dict) -> None:
        self._write(lambda c: c.execute(
            "INSERT INTO media(name, path, sha256, info, probed_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET path=excluded.path, sha256=excluded.sha256, "
            "info=excluded.info, probed_at=excluded.probed_at, "
            "proxy_path=CASE WHEN media.sha256 = excluded.sha256 THEN media.proxy_path END",
            [name, str(path), sha256, json.dumps(info), utc_now()]))

    def set_proxy(self, name: str, proxy_path: Path) -> None:
        self._write(lambda c: c.execute("UPDATE media SET proxy_path = ? WHERE name = ?",
                                        [str(proxy_path), name]))

    def media(self, name: str) -> dict | None:
        """{'name','path','sha256','info': dict,'proxy_path'} or None when not registered."""
        row = self.db.conn.execute(
            "SELECT name, path, sha256, info, proxy_path FROM media WHERE name = ?", [name]).fetchone()
        if row is None:
            return None
        return {"name": row[0], "path": row[1], "sha256": row[2], "info": json.loads(row[3]),
                "proxy_path": row[4]}

    def media_names(self) -> list[str]:
        return [r[0] for r in self.db.conn.execute("SELECT name FROM media ORDER BY name")]

    # -- responses ------------------------------------------------------------------------
    def add_responses(self, items: Iterable[tuple[Response, list[Sentence]]],
                      imported_from: str | None = None) -> int:
        """Insert responses with their split sentences; an id already present is replaced
        only when its text is unchanged (re-import); a changed text is refused (ValueError),
        because labels point at its sentences."""
        items = list(items)
        now = utc_now()

        def insert(conn):
            position = conn.execute("SELECT COALESCE(MAX(position), -1) FROM responses").fetchone()[0]
            for response, sentences in items:
                old = conn.execute("SELECT text FROM responses WHERE response_id = ?",
                                   [response.response_id]).fetchone()
                if old is not None and old[0] != response.text:
                    raise ValueError(f"response '{response.response_id}' already exists with another "
                                     "text; labels refer to its sentences, so it is not replaced")
                if old is not None:
                    continue
                position += 1
                conn.execute(
                    "INSERT INTO responses(response_id, position, video, question, options, answer, "
                    "text, extra, sentences, imported_from, imported_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    [response.response_id, position, response.video, response.question,
                     json.dumps(response.options), response.answer, response.text,
                     json.dumps(response.extra), json.dumps([s.to_dict() for s in sentences]),
                     imported_from, now])
            return len(items)
        return self._write(insert)

    def response_ids(self) -> list[str]:
        return [r[0] for r in self.db.conn.execute("SELECT response_id FROM responses ORDER BY position")]

    def count_responses(self) -> int:
        return self.db.conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def response(self, response_id: str) -> Response | None:
        row = self.db.conn.execute(
            "SELECT response_id, text, video, question, options, answer, extra FROM responses "
            "WHERE response_id = ?", [response_id]).fetchone()
        if row is None:
            return None
        return Response(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5], json.loads(row[6]))

    def response_sentences(self, response_id: str) -> list[Sentence]:
        """The response's sentences as split at import (offsets, validated citations)."""
        row = self.db.conn.execute("SELECT sentences FROM responses WHERE response_id = ?",
                                   [response_id]).fetchone()
        if row is None:
            raise KeyError(response_id)
        return [Sentence.from_dict(s) for s in json.loads(row[0])]

    # -- records (imported or produced by judges; append-only, latest wins) ----------------
    def add_records(self, records: Iterable[EvaluationRecord], imported_from: str | None = None) -> int:
        records = list(records)
        now = utc_now()

        def insert(conn):
            for record in records:
                conn.execute("INSERT INTO records(response_id, source, record, imported_from, created_at) "
                             "VALUES (?, ?, ?, ?, ?)",
                             [record.response_id, record.source, json.dumps(record.to_dict()),
                              imported_from, now])
            return len(records)
        return self._write(insert)

    def list_records(self, source_prefix: str | None = None, *, source: str | None = None,
                     response_id: str | None = None) -> list[EvaluationRecord]:
        """Latest stored record per (response, source), in source then response order.
        Filters: `source_prefix` ('human:', 'judge:', …), `source` (exact), `response_id`."""
        sql = ("SELECT r.record FROM records r JOIN responses p ON p.response_id = r.response_id "
               "WHERE r.id = (SELECT MAX(id) FROM records m WHERE m.source = r.source "
               "AND m.response_id = r.response_id)")
        params: list = []
        if source_prefix:
            sql += " AND r.source LIKE ? ESCAPE '\\'"
            params.append(source_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        if source is not None:
            sql += " AND r.source = ?"
            params.append(source)
        if response_id is not None:
            sql += " AND r.response_id = ?"
            params.append(response_id)
        sql += " ORDER BY r.source, p.position"
        return [EvaluationRecord.from_dict(json.loads(row[0]))
                for row in self.db.conn.execute(sql, params)]

    def record_sources(self) -> list[str]:
        return [r[0] for r in self.db.conn.execute("SELECT DISTINCT source FROM records ORDER BY source")]

    def record_kinds(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for source in self.record_sources():
            out[source_kind(source)] = out.get(source_kind(source), 0) + 1
        return out

    # -- users ----------------------------------------------------------------------------
    def add_user(self, name: str, role: str, password_hash: str | None, email: str | None = None) -> None:
        """Insert an account; a role outside ROLES raises ValueError, an email another account
        already has (case-blind) raises sqlite3.IntegrityError (annotation.accounts checks first)."""
        if role not in ROLES:
            raise ValueError(f"role '{role}' is not one of {', '.join(ROLES)}")
        self._write(lambda c: c.execute(
            "INSERT INTO users(name, role, password_hash, email, created_at) VALUES (?, ?, ?, ?, ?)",
            [name, role, password_hash, email or None, utc_now()]))

    def set_user(self, name: str, *, role: str | None = None, password_hash: str | None = None,
                 email: str | None = None) -> None:
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
        self._write(update)

    def user(self, name: str) -> dict | None:
        row = self.db.conn.execute("SELECT name, role, password_hash, email FROM users WHERE name = ?",
                                   [name]).fetchone()
        return None if row is None else {"name": row[0], "role": row[1], "password_hash": row[2],
                                         "email": row[3]}

    def user_by_email(self, email: str) -> dict | None:
        """The account whose email equals `email` ignoring case (same keys as `user`), or None."""
        row = self.db.conn.execute("SELECT name FROM users WHERE lower(email) = lower(?)",
                                   [email.strip()]).fetchone()
        return None if row is None else self.user(row[0])

    def users(self) -> list[dict]:
        return [{"name": r[0], "role": r[1], "email": r[2]}
                for r in self.db.conn.execute("SELECT name, role, email FROM users ORDER BY name")]


def _split_sql(script: str) -> list[str]:
    """Statements of a migration script (our migrations hold no ';' inside literals)."""
    parts, current = [], []
    for line in script.splitlines():
        current.append(line)
        if line.rstrip().endswith(";") and sqlite3.complete_statement("\n".join(current)):
            parts.append("\n".join(current).strip())
            current = []
    if "".join(current).strip():
        parts.append("\n".join(current).strip())
    return parts
