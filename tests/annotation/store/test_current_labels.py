"""The labels in force (EventLog.current_labels): now, and as they were at an earlier last event
id, after any sequence of labels, relabels and undos."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.protocol.errors import InputError
from annotation.protocol.ids import Task, Unit
from annotation.protocol.records import Response, Sentence
from annotation.store.event_log import COLUMNS, Event
from annotation.store.project_store import ProjectStore

PEOPLE = ("alice", "bob")
RESPONSES = ("r1", "r2")
UNITS = ("s0", "s1")
STEPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("label"),
            st.sampled_from(PEOPLE),
            st.sampled_from(RESPONSES),
            st.sampled_from(UNITS),
            st.booleans(),
        ),
        st.tuples(st.just("undo"), st.sampled_from(PEOPLE), st.sampled_from((*RESPONSES, None))),
        st.tuples(st.just("skip undone"), st.sampled_from(PEOPLE), st.sampled_from(RESPONSES)),
    ),
    max_size=25,
)


def empty_project(directory: Path) -> ProjectStore:
    store = ProjectStore.open(directory, create=True)
    store.add_responses(
        [
            (Response(rid, "One. Two."), [Sentence("One.", None, []), Sentence("Two.", None, [])])
            for rid in RESPONSES
        ]
    )
    return store


def in_force(labels) -> list[tuple]:
    return [(e.id, e.who, e.response_id, e.unit, e.task, e.value) for e in labels]


def by_the_view(store) -> list[tuple]:
    """What the `current_labels` view derives from the log (the rule the table keeps)."""
    rows = store.database.connection.execute(f"SELECT {COLUMNS} FROM current_labels ORDER BY id")
    return in_force(Event.from_columns(row) for row in rows)


def play(store, steps) -> list[tuple[int, list[tuple]]]:
    """Run `steps` on the log; (last event id, labels in force) after each, the view's and the
    table's checked equal."""
    seen = [(store.events.last_event_id(), in_force(store.events.current_labels()))]
    for step in steps:
        if step[0] == "label":
            _, who, rid, unit, value = step
            store.events.append(who, rid, unit, "verifiable", value)
        elif step[0] == "undo":
            _, who, rid = step
            store.events.undo_last(who, rid)
        else:  # a skip and its undo: neither touches a label
            _, who, rid = step
            skip = store.events.append(who, rid, "response", "skip", {"reason": "later"}, kind="skip")
            store.events.append(who, rid, "response", "skip", kind="undo", ref=skip)
        seen.append((store.events.last_event_id(), in_force(store.events.current_labels())))
        assert seen[-1][1] == by_the_view(store)
    return seen


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STEPS)
def test_the_labels_in_force_are_the_views_now_and_as_of_any_earlier_event(steps):
    with tempfile.TemporaryDirectory() as folder:
        store = empty_project(Path(folder) / "p")
        seen = play(store, steps)
        for last, labels in seen:
            assert in_force(store.events.current_labels(up_to=last)) == labels
            for rid in RESPONSES:
                mine = [label for label in labels if label[2] == rid]
                assert in_force(store.events.current_labels(response_id=rid, up_to=last)) == mine
        store.close()


def test_a_label_undone_after_the_earlier_event_is_still_in_force_as_of_it(tmp_path):
    store = empty_project(tmp_path / "p")
    first = store.events.append("alice", "r1", "s0", "verifiable", True)
    second = store.events.append("alice", "r1", "s0", "verifiable", False)
    store.events.undo_last("alice")
    assert [e.value for e in store.events.current_labels()] == [True]
    assert [e.id for e in store.events.current_labels(up_to=second)] == [second]
    assert [e.id for e in store.events.current_labels(up_to=first)] == [first]
    assert store.events.current_labels(up_to=0) == []


def test_a_file_made_before_the_table_gets_it_from_the_log_and_keeps_it(tmp_path):
    store = empty_project(tmp_path / "p")
    play(
        store,
        [
            ("label", "alice", "r1", "s0", True),
            ("label", "alice", "r1", "s0", False),
            ("label", "bob", "r2", "s1", True),
        ],
    )
    store.events.undo_last("bob")
    store.events.append("bob", "r2", "s1", "verifiable", False)
    # as the file was before: the event log's first migration only
    connection = store.database.connection
    for trigger in ("events_label_in_force", "events_undo_in_force"):
        connection.execute(f"DROP TRIGGER {trigger}")
    connection.execute("DROP TABLE labels_in_force")
    connection.execute("UPDATE schema_versions SET version = 1 WHERE owner = 'events'")
    store.close()
    reopened = ProjectStore.open(tmp_path / "p")
    assert [(e.who, e.value) for e in reopened.events.current_labels()] == [("alice", False), ("bob", False)]
    assert in_force(reopened.events.current_labels()) == by_the_view(reopened)
    play(reopened, [("undo", "alice", "r1"), ("label", "alice", "r2", "s0", True)])  # kept from then on
    assert [(e.who, e.response_id, e.value) for e in reopened.events.current_labels()] == [
        ("alice", "r1", True),
        ("bob", "r2", False),
        ("alice", "r2", True),
    ]


def test_a_malformed_unit_in_the_event_log_is_an_error_naming_the_file_the_event_and_the_field(tmp_path):
    store = empty_project(tmp_path / "p")
    store.events.append("alice", "r1", "s0", "verifiable", True)
    store.database.connection.execute(  # written by hand or another tool: the column takes any text
        "INSERT INTO events(at, who, response_id, unit, task, kind, value) "
        "VALUES ('2026-01-01', 'bob', 'r1', 's0/f1', 'all', 'label', 'true')"
    )
    with pytest.raises(InputError) as raised:
        store.events.current_labels()
    (problem,) = raised.value.problems
    assert problem.field == "unit" and str(store.database.path) in problem.path
    assert problem.message.startswith("event 2: 's0/f1' is not a unit")


def test_a_malformed_task_in_the_event_log_is_an_error_naming_the_task_field(tmp_path):
    store = empty_project(tmp_path / "p")
    store.database.connection.execute(
        "INSERT INTO events(at, who, response_id, unit, task, kind, value) "
        "VALUES ('2026-01-01', 'bob', 'r1', 's0', 'maybe', 'label', 'true')"
    )
    with pytest.raises(InputError) as raised:
        store.events.log()
    (problem,) = raised.value.problems
    assert problem.field == "task" and problem.message.startswith("event 1: 'maybe' is not a task")


def test_a_unit_or_task_given_as_text_is_checked_before_anything_is_written(tmp_path):
    store = empty_project(tmp_path / "p")
    with pytest.raises(ValueError, match="not a unit"):
        store.events.append("alice", "r1", "s0/f1", "all", True)
    with pytest.raises(ValueError, match="not a task"):
        store.events.append("alice", "r1", "s0", "verified", True)
    assert store.events.last_event_id() == 0


def test_events_carry_their_unit_and_task_as_value_types(tmp_path):
    store = empty_project(tmp_path / "p")
    fact = Unit.of_fact(1, "A man points.", [0])
    store.events.append("alice", "r1", fact, Task("alone", 0).as_ruling, {"value": True, "reason": None})
    (event,) = store.events.current_labels()
    assert (event.unit, event.task) == (Unit(1, fact.fact), Task("alone", 0, ruling=True))
    assert store.database.connection.execute("SELECT unit, task FROM events").fetchone() == (
        f"s1/{fact.fact}",
        "gold.alone.0",
    )
