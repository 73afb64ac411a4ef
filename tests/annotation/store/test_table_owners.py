"""One way for a module to own and migrate its tables: each owner declares them at import
(`declare_tables(OWNER, MIGRATIONS)`), opening a project brings every declared owner current in one
place, and `Database.migrate` runs each migration once per opened file, never per call; files made
by earlier versions of the tool open and migrate once."""

from __future__ import annotations

import sqlite3

import pytest

from annotation.store.database import FILE_OWNER, Database, ProjectFileError, TableOwner, declared_tables
from annotation.store.project_store import DB_NAME, SCHEMA_VERSION, ProjectStore
from annotation.store.sessions import session_user, start_session
from annotation.work.drafts import load_draft, save_draft
from annotation.work.sample_queues import create_sample_queue, sample_queue

OWNER = "notes"
MIGRATIONS = [
    "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);",
    "ALTER TABLE notes ADD COLUMN author TEXT;",
]

# The first schema this tool wrote (one migration, user_version 1): the event log's tables and the
# judge-call cache's table were the project store's then, and no `schema_versions` table existed.
FIRST_SCHEMA = """
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
INSERT INTO responses(response_id, position, text, imported_at) VALUES ('r1', 0, 'One. Two.', 'then');
INSERT INTO users(name, role, created_at) VALUES ('ann', 'annotator', 'then');
INSERT INTO events(at, who, response_id, unit, task, kind, value) VALUES
    ('then', 'ann', 'r1', 's0', 'verifiable', 'label', 'true');
INSERT INTO judge_calls(key, judge, model, stage, request, response, created_at) VALUES
    ('k1', 'j', 'm', 'stage1', '{}', 'yes', 'then');
PRAGMA user_version = 1;
"""


def statements_run(database: Database, action) -> list[str]:
    """The SQL statements this thread's connection runs during `action()`."""
    run: list[str] = []
    database.connection.set_trace_callback(run.append)
    try:
        action()
    finally:
        database.connection.set_trace_callback(None)
    return run


def test_an_owner_is_migrated_once_per_database_and_later_calls_touch_nothing(tmp_path):
    database = Database(tmp_path / "file.db")
    first = statements_run(database, lambda: database.migrate(OWNER, MIGRATIONS))
    again = statements_run(database, lambda: database.migrate(OWNER, MIGRATIONS))
    assert any("CREATE TABLE notes" in s for s in first)
    assert again == []
    columns = [row[1] for row in database.connection.execute("PRAGMA table_info(notes)")]
    assert columns == ["id", "text", "author"]


def test_a_second_database_on_a_current_file_only_reads_its_version(tmp_path):
    Database(tmp_path / "file.db").migrate(OWNER, MIGRATIONS)
    other = Database(tmp_path / "file.db")
    run = statements_run(other, lambda: other.migrate(OWNER, MIGRATIONS))
    assert run and all(s.lstrip().upper().startswith("SELECT") for s in run)


def test_a_new_migration_appended_later_runs_on_the_next_open(tmp_path):
    Database(tmp_path / "file.db").migrate(OWNER, MIGRATIONS[:1])
    reopened = Database(tmp_path / "file.db")
    reopened.migrate(OWNER, MIGRATIONS)
    versions = dict(reopened.connection.execute("SELECT owner, version FROM schema_versions"))
    assert versions == {OWNER: 2}


def test_a_migration_inside_a_transaction_that_rolls_back_is_run_again(tmp_path):
    database = Database(tmp_path / "file.db")
    with pytest.raises(RuntimeError), database.transaction():
        database.migrate(OWNER, MIGRATIONS)
        raise RuntimeError("the caller's write failed")
    database.migrate(OWNER, MIGRATIONS)
    assert database.query("SELECT COUNT(*) AS n FROM notes") == [{"n": 0}]


def test_an_owner_newer_than_the_tool_is_refused_naming_it(tmp_path):
    Database(tmp_path / "file.db").migrate(OWNER, MIGRATIONS)
    with pytest.raises(ProjectFileError, match="notes tables' schema version 2 is newer than this tool"):
        Database(tmp_path / "file.db").migrate(OWNER, MIGRATIONS[:1])


def test_a_project_file_of_the_first_schema_opens_and_every_owner_migrates(tmp_path):
    directory = tmp_path / "old"
    directory.mkdir()
    with sqlite3.connect(directory / DB_NAME) as conn:
        conn.executescript(FIRST_SCHEMA)

    store = ProjectStore.open(directory)
    assert store.schema_version() == SCHEMA_VERSION
    assert [(e.who, e.value) for e in store.events.current_labels()] == [("ann", True)]
    save_draft(store, "ann", "r1", "s0", [{"text": "One.", "citations": []}])
    assert load_draft(store, "ann", "r1", "s0") == [{"text": "One.", "citations": []}]
    assert session_user(store, start_session(store, "ann")).name == "ann"
    create_sample_queue(store, "first", [("r1", None)])
    assert sample_queue(store, "first") == [("r1", None)]
    assert store.database.query("SELECT key, response FROM judge_calls") == [{"key": "k1", "response": "yes"}]
    versions = dict(store.database.connection.execute("SELECT owner, version FROM schema_versions"))
    assert versions == {o.name: len(o.migrations) for o in declared_tables() if o.name != FILE_OWNER}
    assert {"events", "json_cells", "drafts", "sessions", "sample_queues"} <= set(versions)


def test_an_old_project_file_is_migrated_on_open_once_and_every_later_open_runs_nothing(tmp_path):
    directory = tmp_path / "old"
    directory.mkdir()
    with sqlite3.connect(directory / DB_NAME) as conn:
        conn.executescript(FIRST_SCHEMA)

    first = ProjectStore.open(directory).database.migrations_run
    # the file held the project's first migration only; every owner's migrations ran, each once
    expected = [
        (owner.name, version)
        for owner in declared_tables()
        for version in range(2 if owner.name == FILE_OWNER else 1, len(owner.migrations) + 1)
    ]
    assert first == expected and ("project", SCHEMA_VERSION) in first and ("events", 2) in first
    assert ProjectStore.open(directory).database.migrations_run == []


def test_an_owner_a_project_did_not_know_at_its_open_is_migrated_at_its_first_use(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    late = TableOwner(OWNER, tuple(MIGRATIONS))  # as a module imported after the project opened
    late.ready(store.database)
    again = statements_run(store.database, lambda: late.ready(store.database))
    assert [row[1] for row in store.database.connection.execute("PRAGMA table_info(notes)")] == [
        "id",
        "text",
        "author",
    ]
    assert store.database.migrations_run[-2:] == [(OWNER, 1), (OWNER, 2)] and again == []
