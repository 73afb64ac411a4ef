"""One SQLite file shared by threads and by the modules that own its tables.

Streamlit runs each session in its own thread and a sqlite3 connection must not cross threads
(`check_same_thread` crashes the real server), so every thread opens its own connection on first
use. Writes run in one IMMEDIATE transaction each, retried while another process holds the lock;
a write inside `transaction()` joins it, so a caller can make several writes all or nothing.

Each table has one owner module. The file's own schema (the project store's) is versioned by
`PRAGMA user_version`; a module that keeps its own table in the file (the judge-call cache) calls
`migrate(owner, migrations)`, versioned in `schema_versions`.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlite_utils

_BUSY_RETRIES = 50


class Database:
    """A SQLite file with a connection per thread (WAL, foreign keys, 30 s busy timeout)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        # Called before every outermost write transaction: the app checks there that the person
        # acting still has a live session, so a tab signed out elsewhere writes nothing. It may
        # raise to refuse the write; writes it makes itself are not checked again.
        self.before_write: Callable[[], None] | None = None

    @property
    def rows(self) -> sqlite_utils.Database:
        """This thread's connection wrapped by sqlite-utils (`.query` yields dict rows)."""
        rows = getattr(self._local, "rows", None)
        if rows is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute("PRAGMA synchronous=NORMAL")
            rows = sqlite_utils.Database(conn)
            self._local.rows = rows
            self._local.depth = 0
        return rows

    @property
    def connection(self) -> sqlite3.Connection:
        """This thread's sqlite3 connection (opened on first use)."""
        return self.rows.conn

    def query(self, sql: str, params=()) -> list[dict]:
        return list(self.rows.query(sql, params))

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends)."""
        rows = getattr(self._local, "rows", None)
        if rows is not None:
            rows.conn.close()
            self._local.rows = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction for everything inside; nested ones join the outermost.
        An exception rolls it all back and passes through."""
        conn = self.connection
        if self._local.depth:
            self._local.depth += 1
            try:
                yield conn
            finally:
                self._local.depth -= 1
            return
        if self.before_write is not None and not getattr(self._local, "checking", False):
            self._local.checking = True
            try:
                self.before_write()
            finally:
                self._local.checking = False
        for attempt in range(_BUSY_RETRIES):
            try:
                conn.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                time.sleep(0.01 * (attempt + 1))
        else:
            raise sqlite3.OperationalError(f"{self.path}: database stayed locked")
        self._local.depth = 1
        try:
            yield conn
        except BaseException:
            self._local.depth = 0
            conn.execute("ROLLBACK")
            raise
        self._local.depth = 0
        conn.execute("COMMIT")

    def write(self, statements: Callable[[sqlite3.Connection], object]):
        """`statements(conn)` in one transaction (or the one already open); its result."""
        with self.transaction() as conn:
            return statements(conn)

    def file_version(self) -> int:
        return self.connection.execute("PRAGMA user_version").fetchone()[0]

    def migrate_file(self, migrations: list[str]) -> None:
        """Bring the file's own schema to len(migrations), one migration per transaction.
        RuntimeError when the file is newer than these migrations."""
        newest = len(migrations)
        current = self.file_version()
        if current > newest:
            raise RuntimeError(
                f"{self.path}: schema version {current} is newer than this tool ({newest}); upgrade the tool"
            )

        def step(conn, version):
            if conn.execute("PRAGMA user_version").fetchone()[0] == version:  # another process may have
                _run_script(conn, migrations[version])  # migrated meanwhile
                conn.execute(f"PRAGMA user_version = {version + 1}")

        for version in range(current, newest):
            self.write(lambda conn, v=version: step(conn, v))

    def migrate(self, owner: str, migrations: list[str]) -> None:
        """Bring `owner`'s tables to len(migrations) (its version kept in `schema_versions`)."""
        self.write(
            lambda c: c.execute(
                "CREATE TABLE IF NOT EXISTS schema_versions "
                "(owner TEXT PRIMARY KEY, version INTEGER NOT NULL)"
            )
        )

        def version_of(conn) -> int:
            row = conn.execute("SELECT version FROM schema_versions WHERE owner = ?", [owner]).fetchone()
            return 0 if row is None else row[0]

        current = version_of(self.connection)
        if current > len(migrations):
            raise RuntimeError(
                f"{self.path}: the {owner} tables are at version {current}, newer than "
                f"this tool ({len(migrations)}); upgrade the tool"
            )

        def step(conn, version):
            if version_of(conn) == version:
                _run_script(conn, migrations[version])
                conn.execute(
                    "INSERT INTO schema_versions(owner, version) VALUES (?, ?) ON CONFLICT(owner) "
                    "DO UPDATE SET version = excluded.version",
                    [owner, version + 1],
                )

        for version in range(current, len(migrations)):
            self.write(lambda conn, v=version: step(conn, v))


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    for statement in _split_sql(script):
        conn.execute(statement)


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
