"""The open-time check of JSON cells without a scan of every cell: triggers note a malformed value
whoever writes it (another SQLite client included), an open reads the note; a file from before the
triggers is scanned once, when they are made."""

from __future__ import annotations

import sqlite3

import pytest

from annotation.protocol.records import EvaluationRecord, Response
from annotation.store.database import ProjectFileError
from annotation.store.project_store import DB_NAME, JSON_CELL_OWNER, ProjectStore


@pytest.fixture
def project(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response("r1", "Text."), []), (Response("r2", "More."), [])])
    store.add_records([EvaluationRecord("r1", "judge:j"), EvaluationRecord("r2", "judge:j")])
    store.close()
    return tmp_path / "p"


def edit(project, sql: str) -> None:
    with sqlite3.connect(project / DB_NAME) as conn:  # another client: none of the tool's code
        conn.execute(sql)


def test_a_record_cell_malformed_by_another_client_is_named_at_the_next_open(project):
    edit(project, "UPDATE records SET record = '{\"sentences\": [' WHERE response_id = 'r2'")
    with pytest.raises(
        ProjectFileError, match=r"table records, row id = '2': column record is not valid JSON"
    ):
        ProjectStore.open(project)


def test_a_response_inserted_malformed_is_named_and_once_repaired_the_project_opens(project):
    edit(
        project,
        "INSERT INTO responses(response_id, position, text, options, imported_at) "
        "VALUES ('r3', 2, 'x', '[1,', 'now')",
    )
    with pytest.raises(ProjectFileError, match=r"row response_id = 'r3': column options is not valid JSON"):
        ProjectStore.open(project)
    edit(project, "UPDATE responses SET options = '[]' WHERE response_id = 'r3'")
    store = ProjectStore.open(project)
    assert store.database.connection.execute("SELECT COUNT(*) FROM json_cell_faults").fetchone() == (0,)


def test_a_file_from_before_the_triggers_is_scanned_once_when_they_are_made(project):
    edit(project, "UPDATE records SET record = 'oops' WHERE response_id = 'r1'")  # noted by the trigger
    with sqlite3.connect(project / DB_NAME) as conn:  # make it a file from before: no triggers, no note
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            conn.execute(f"DROP TRIGGER {name}")
        conn.execute("DROP TABLE json_cell_faults")
        conn.execute("DELETE FROM schema_versions WHERE owner = ?", [JSON_CELL_OWNER])
    with pytest.raises(
        ProjectFileError, match=r"table records, row id = '1': column record is not valid JSON"
    ):
        ProjectStore.open(project)
    edit(project, "UPDATE records SET record = '{\"sentences\": []}' WHERE response_id = 'r1'")
    assert ProjectStore.open(project).list_records("judge")[0] == EvaluationRecord("r1", "judge:j")
