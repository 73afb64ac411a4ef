"""One SQLite file shared by threads and by the modules that own its tables.

Streamlit runs each session in its own thread and a sqlite3 connection must not cross threads
(`check_same_thread` crashes the real server), so every thread opens its own connection on first
use. Writes run in one IMMEDIATE transaction each, retried while another process holds the lock;
a write inside `transaction()` joins it, so a caller can make several writes all or nothing.

Each table has one owner module, which declares its tables once, at import:
`TABLES = declare_tables(OWNER, MIGRATIONS)` (an append-only list of SQL scripts). That is the one
way tables are made and changed: opening a project brings every declared owner current, in one
place (`Database.migrate_declared`, the file's own owner first, then in the order declared; all
that is behind in one transaction), versioned, and each owner once per `Database` (a project file
opened in this process). Where an owner uses its tables it calls `TABLES.ready(database)`: a dictionary
look-up once the open has migrated it, and the migration itself for a module first imported after
the project was opened. The file's own owner (`FILE_OWNER`) keeps its version in
`PRAGMA user_version`, every other in `schema_versions`.

A file that cannot be a project (empty, not SQLite, damaged, newer than this tool) raises
`ProjectFileError` with one line saying what is wrong. A file or directory this process may not
write is opened read-only (reads work; a write raises sqlite3.OperationalError 'readonly'). A write
that finds the disk full raises `DiskFullError` (an OSError with errno ENOSPC naming the file),
after the transaction is rolled back, so nothing half-written stays.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

_BUSY_RETRIES = 50
# The owner of the file's own tables (the project store's): its version is the file's
# `PRAGMA user_version`, as in files made before `schema_versions` existed; every other owner's
# version is a row of `schema_versions`.
FILE_OWNER = "project"
SQLITE_HEADER = b"SQLite format 3\x00"


class ProjectFileError(sqlite3.DatabaseError):
    """A project file that cannot be used; the message is one line naming the file and the problem."""


class DiskFullError(OSError):
    """A write refused because the disk (or the database's size limit) is full; nothing of it was kept."""

    def __init__(self, path: Path):
        super().__init__(errno.ENOSPC, "the disk is full (nothing was written)", str(path))


def check_database_file(path: Path) -> None:
    """ProjectFileError unless `path` is absent or starts like a SQLite database (an empty file
    is not a project: opening it would silently make a new, empty one)."""
    path = Path(path)
    if not path.exists():
        return
    if not path.is_file():
        raise ProjectFileError(f"{path}: is not a file")
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise ProjectFileError(f"{path}: cannot be read ({exc.strerror})") from None
    if not header:
        raise ProjectFileError(f"{path}: is empty (0 bytes), not a project; restore it from a backup")
    if header != SQLITE_HEADER:
        raise ProjectFileError(f"{path}: is not a SQLite database (damaged, or another kind of file)")


def _is_disk_full(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and (
        "full" in str(exc) or getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
    )


@dataclass(frozen=True)
class TableOwner:
    """A module's tables: the owner's name (its row in `schema_versions`) and its migrations, each
    taking the tables from version i to i + 1. `required`: a read-only file must hold them current
    to open at all (the project's own tables, the event log); any other owner a read-only file does
    not hold current is left as it is on open, and its first use says why (ProjectFileError)."""

    name: str
    migrations: tuple[str, ...]
    required: bool = False

    def ready(self, database: Database) -> None:
        """Bring these tables current in `database` (nothing once they are: see `Database.migrate`)."""
        database.migrate(self.name, self.migrations)


# Every owner declared in this process, by name, in the order declared.
_DECLARED: dict[str, TableOwner] = {}


def declare_tables(name: str, migrations: Sequence[str], *, required: bool = False) -> TableOwner:
    """Declare `name`'s tables (the owning module does, at import): every project opened from now
    on brings them current (`Database.migrate_declared`). Declaring a name again replaces it."""
    owner = TableOwner(name, tuple(migrations), required)
    _DECLARED[name] = owner
    return owner


def declared_tables() -> list[TableOwner]:
    """The declared owners in the order they are migrated: the file's own first, then as declared."""
    return sorted(_DECLARED.values(), key=lambda owner: owner.name != FILE_OWNER)


class Database:
    """A SQLite file with a connection per thread (WAL, foreign keys, 30 s busy timeout)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        # Read-only when the file (or, for a new file's journal, its directory) cannot be written.
        self.read_only = self.path.exists() and not (
            os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK)
        )
        # Called before every outermost write transaction: the app checks there that the person
        # acting still has a live session, so a tab signed out elsewhere writes nothing. It may
        # raise to refuse the write; writes it makes itself are not checked again.
        self.before_write: Callable[[], None] | None = None
        # Called with the DiskFullError of a write that found the disk full (after its rollback),
        # before it is raised: the app uses it to tell the person at once. It may raise instead.
        self.on_disk_full: Callable[[DiskFullError], None] | None = None
        # {owner: version} of the table owners brought current through this object (`migrate`).
        self._current: dict[str, int] = {}
        # (owner, version reached) of every migration this object ran, in order (what an open did).
        self.migrations_run: list[tuple[str, int]] = []

    @property
    def rows(self) -> sqlite_utils.Database:
        """This thread's connection wrapped by sqlite-utils (`.query` yields dict rows)."""
        rows = getattr(self._local, "rows", None)
        if rows is None:
            if self.read_only:
                self._refuse_unsaved_log()
                # immutable: a read-only file or directory cannot hold the WAL's shared memory
                uri = f"{self.path.resolve().as_uri()}?mode=ro&immutable=1"
                conn = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
            else:
                conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute("PRAGMA synchronous=NORMAL")
            rows = sqlite_utils.Database(conn)
            self._local.rows = rows
            self._local.depth = 0
        return rows

    def _refuse_unsaved_log(self) -> None:
        """ProjectFileError when a read-only file has a non-empty write-ahead log beside it: an
        immutable open ignores the log, so it would read the file without its latest changes (or
        without its tables: "malformed"). A log left after a close that could not checkpoint, or
        copied from a project in use, is saved into the file by one open with write access."""
        log = self.path.with_name(self.path.name + "-wal")
        if log.exists() and log.stat().st_size > 0:
            raise ProjectFileError(
                f"{self.path}: read-only, and its write-ahead log ({log.name}) may hold changes the "
                "file does not; open it once with write access so they are saved into it"
            )

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
            self._local.depth = 0
            conn.execute("COMMIT")
        except BaseException as exc:
            self._local.depth = 0
            if conn.in_transaction:  # SQLite has already rolled back after some errors (a full disk)
                conn.execute("ROLLBACK")
            if _is_disk_full(exc):
                full = DiskFullError(self.path)
                if self.on_disk_full is not None:
                    self.on_disk_full(full)
                raise full from exc
            raise

    def write(self, statements: Callable[[sqlite3.Connection], object]):
        """`statements(conn)` in one transaction (or the one already open); its result."""
        with self.transaction() as conn:
            return statements(conn)

    def file_version(self) -> int:
        return self.connection.execute("PRAGMA user_version").fetchone()[0]

    def migrate_declared(self) -> None:
        """Bring every declared owner's tables current (`declared_tables` order): what opening a
        project does. Whatever is behind is migrated in one transaction (all or nothing; the WAL
        then holds each page once, so a new project fits a small disk); a current file is only read.
        ProjectFileError as `migrate` — except that on a read-only file an owner that is not
        `required` is left as it is (its first use raises then)."""
        owners = declared_tables()
        behind = [
            owner
            for owner in owners
            if self._current.get(owner.name) != len(owner.migrations)
            and self._version_of(self.connection, owner.name) != len(owner.migrations)
        ]
        if behind and not self.read_only:
            with self.transaction():
                for owner in behind:
                    owner.ready(self)
        for owner in owners:  # now remembered as current (inside the transaction they were not)
            try:
                owner.ready(self)
            except ProjectFileError:
                if owner.required or not self.read_only:
                    raise

    def migrate(self, owner: str, migrations: Sequence[str]) -> None:
        """Bring `owner`'s tables to len(migrations), one migration per transaction, once per
        Database (per file opened in this process): a later call for an owner already brought
        current reads and writes nothing, so an owner may call it wherever its tables are used.
        ProjectFileError when the file holds a newer version than `migrations`, or is read-only
        and not current. Called inside an open transaction, the migration joins it and is not
        remembered (the transaction may roll back): the next call checks again."""
        # No lock: two threads may both migrate, and each step re-checks the version inside its
        # transaction; a lock here would deadlock with a write transaction that migrates inside.
        if self._current.get(owner) == len(migrations):
            return
        self._migrate(owner, migrations)
        if not getattr(self._local, "depth", 0):  # inside a caller's transaction it may yet roll back
            self._current[owner] = len(migrations)

    def _version_of(self, conn: sqlite3.Connection, owner: str) -> int:
        if owner == FILE_OWNER:
            return conn.execute("PRAGMA user_version").fetchone()[0]
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_versions'").fetchone() is None:
            return 0
        row = conn.execute("SELECT version FROM schema_versions WHERE owner = ?", [owner]).fetchone()
        return 0 if row is None else row[0]

    def _set_version(self, conn: sqlite3.Connection, owner: str, version: int) -> None:
        if owner == FILE_OWNER:
            conn.execute(f"PRAGMA user_version = {int(version)}")
            return
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_versions (owner TEXT PRIMARY KEY, version INTEGER NOT NULL)"
        )
        conn.execute(
            "INSERT INTO schema_versions(owner, version) VALUES (?, ?) ON CONFLICT(owner) "
            "DO UPDATE SET version = excluded.version",
            [owner, version],
        )

    def _migrate(self, owner: str, migrations: Sequence[str]) -> None:
        newest = len(migrations)
        current = self._version_of(self.connection, owner)
        tables = "schema" if owner == FILE_OWNER else f"{owner} tables' schema"
        if current > newest:
            raise ProjectFileError(
                f"{self.path}: {tables} version {current} is newer than this tool ({newest}); upgrade the tool"
            )
        if current < newest and self.read_only:
            raise ProjectFileError(
                f"{self.path}: read-only, and its {tables} (version {current}) needs upgrading to "
                f"{newest} first; open it once with write access"
            )

        def step(conn, version):
            if self._version_of(conn, owner) == version:  # another process may have migrated meanwhile
                _run_script(conn, migrations[version])
                self._set_version(conn, owner, version + 1)
                self.migrations_run.append((owner, version + 1))

        for version in range(current, newest):
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
