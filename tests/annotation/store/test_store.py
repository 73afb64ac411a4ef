"""The project store: a real SQLite file, the append-only event log, migrations, threads."""

import sqlite3
import threading

import pytest

from annotation.protocol.ids import Task
from annotation.protocol.records import EvaluationRecord, Response, Sentence
from annotation.store.database import ProjectFileError
from annotation.store.project_store import JSON_CELL_OWNER, SCHEMA_VERSION, NoProjectError, ProjectStore


@pytest.fixture
def store(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses(
        [(Response("r1", "The cat sits."), [Sentence("The cat sits.")]), (Response("r2", "A dog runs."), [])]
    )
    return store


def test_new_project_is_at_current_schema_version(store):
    assert store.schema_version() == SCHEMA_VERSION


def test_database_runs_in_wal_mode_with_foreign_keys(store):
    assert store.database.connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.database.connection.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_opening_a_missing_project_without_create_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="no project here"):
        ProjectStore.open(tmp_path / "nothing")


def test_event_for_unknown_response_is_refused_by_foreign_key(store):
    with pytest.raises(sqlite3.IntegrityError):
        store.events.append("alice", "no-such-response", "s0", "verifiable", True)


def test_latest_label_is_the_current_one(store):
    store.events.append("alice", "r1", "s0", "verifiable", True)
    store.events.append("alice", "r1", "s0", "verifiable", False)
    [label] = store.events.current_labels("alice", "r1")
    assert label.value is False


def test_relabelling_keeps_every_earlier_event_for_audit(store):
    store.events.append("alice", "r1", "s0", "verifiable", True)
    store.events.append("alice", "r1", "s0", "verifiable", False)
    assert [e.value for e in store.events.log("alice")] == [True, False]


def test_undo_restores_the_previous_value(store):
    store.events.append("alice", "r1", "s0", "verifiable", True)
    store.events.append("alice", "r1", "s0", "verifiable", False)
    undone = store.events.undo_last("alice")
    assert undone.value is False
    assert [label.value for label in store.events.current_labels("alice", "r1")] == [True]


def test_undo_twice_walks_back_two_decisions(store):
    store.events.append("alice", "r1", "s0", "verifiable", True)
    store.events.append("alice", "r1", "s0", "verifiable", False)
    store.events.undo_last("alice")
    store.events.undo_last("alice")
    assert store.events.current_labels("alice", "r1") == []


def test_undo_touches_only_the_callers_labels(store):
    store.events.append("alice", "r1", "s0", "verifiable", True)
    store.events.append("bob", "r1", "s0", "verifiable", False)
    store.events.undo_last("alice")
    assert [(e.who, e.value) for e in store.events.current_labels(response_id="r1")] == [("bob", False)]


def test_undo_of_one_task_skips_the_callers_later_labels_of_other_tasks(store):
    store.events.append("alice", "r1", "s0", "verifiable", True)
    store.events.append("alice", "r1", "s0", "facts", [{"text": "A man waves.", "citations": [0]}])
    undone = store.events.undo_last("alice", task=Task.parse("verifiable"))
    assert str(undone.task) == "verifiable"
    assert [str(e.task) for e in store.events.current_labels("alice", "r1")] == ["facts"]


def test_undo_with_nothing_to_undo_returns_none(store):
    assert store.events.undo_last("alice") is None


def test_labels_of_one_person_are_not_returned_for_another(store):
    store.events.append("alice", "r1", "s0", "verifiable", True)
    assert store.events.current_labels("bob") == []


def test_records_are_append_only_and_latest_wins(store):
    store.add_records([EvaluationRecord("r1", "gold", [Sentence("The cat sits.", True)])])
    store.add_records([EvaluationRecord("r1", "gold", [Sentence("The cat sits.", False)])])
    [record] = store.list_records("gold")
    assert record.sentences[0].verifiable is False
    assert store.database.connection.execute("SELECT COUNT(*) FROM records").fetchone()[0] == 2


def test_record_kind_filter_takes_whole_source_kinds_only(store):
    store.add_records(
        [
            EvaluationRecord("r1", "judge:a_b", []),
            EvaluationRecord("r1", "human:judge", []),
            EvaluationRecord("r1", "gold", []),
        ]
    )
    assert [r.source for r in store.list_records("judge")] == ["judge:a_b"]
    assert [r.source for r in store.list_records("human")] == ["human:judge"]
    assert [r.source for r in store.list_records("gold")] == ["gold"]


def test_reimporting_a_response_with_another_text_is_refused(store):
    with pytest.raises(ValueError, match="already exists with another text"):
        store.add_responses([(Response("r1", "Something else."), [])])


def test_reimporting_the_same_response_is_a_no_op(store):
    store.add_responses([(Response("r1", "The cat sits."), [Sentence("The cat sits.")])])
    assert store.response_ids() == ["r1", "r2"]


def test_responses_keep_their_import_order_and_fields(store):
    assert store.response_ids() == ["r1", "r2"]
    assert store.response("r1").text == "The cat sits."
    assert store.response_sentences("r1")[0].text == "The cat sits."


def test_unknown_role_is_refused(store):
    with pytest.raises(ValueError, match="role"):
        store.add_user("eve", "superuser", None)


def test_a_newer_schema_than_the_tool_is_refused(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.database.connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    store.close()
    with pytest.raises(ProjectFileError, match="newer than this tool"):
        ProjectStore.open(tmp_path / "p")


def test_eight_threads_of_500_label_events_lose_nothing(store):
    errors = []

    def label(worker):
        try:
            for i in range(500):
                store.events.append(f"w{worker}", "r1", f"s{i % 7}", "verifiable", i, spent_ms=i)
        except Exception as exc:  # collected and asserted below, so a failure names itself
            errors.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=label, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store.events.log()) == 8 * 500
    for w in range(8):
        values = sorted(e.value for e in store.events.current_labels(f"w{w}"))
        assert values == [493, 494, 495, 496, 497, 498, 499]


def test_store_created_in_one_thread_works_in_another(store):
    result = {}

    def use():
        try:
            result["ids"] = store.response_ids()
            store.events.append("alice", "r1", "s0", "verifiable", True)
        except Exception as exc:
            result["error"] = exc
        finally:
            store.close()

    t = threading.Thread(target=use)
    t.start()
    t.join()
    assert result.get("error") is None
    assert result["ids"] == ["r1", "r2"]


def test_records_can_be_filtered_by_exact_source_and_by_response(store):
    store.add_records(
        [
            EvaluationRecord("r1", "gold", []),
            EvaluationRecord("r2", "gold", []),
            EvaluationRecord("r1", "judge:a", []),
        ]
    )
    assert [(r.response_id, r.source) for r in store.list_records(source="gold")] == [
        ("r1", "gold"),
        ("r2", "gold"),
    ]
    assert [r.source for r in store.list_records(response_id="r1")] == ["gold", "judge:a"]


def test_each_table_owner_migrates_its_own_tables_and_adopts_those_an_older_file_holds(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response("r1", "Text."), [])])
    store.events.append("ann", "r1", "s0", "verifiable", True)
    # a file from before the event log owned its tables: the tables exist, no owner version does
    store.database.connection.execute("DELETE FROM schema_versions WHERE owner = 'events'")
    reopened = ProjectStore.open(tmp_path / "p")
    assert [e.value for e in reopened.events.current_labels("ann")] == [True]
    versions = dict(reopened.database.connection.execute("SELECT owner, version FROM schema_versions"))
    assert (versions["events"], versions[JSON_CELL_OWNER]) == (3, 1)
    assert reopened.database.migrations_run == [("events", 1), ("events", 2), ("events", 3)]


def test_a_missing_project_names_its_directory_and_the_problem_apart(tmp_path):
    with pytest.raises(NoProjectError) as caught:
        ProjectStore.open(tmp_path / "nothing")
    assert caught.value.directory == tmp_path / "nothing"
    assert caught.value.problem.startswith("no project here (project.db missing)")
    assert str(caught.value) == f"{tmp_path / 'nothing'}: {caught.value.problem}"
