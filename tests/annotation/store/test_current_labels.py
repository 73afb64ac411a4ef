"""The labels in force (EventLog.current_labels): now, and as they were at an earlier last event
id, after any sequence of labels, relabels and undos."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.protocol.records import Response, Sentence
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


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STEPS)
def test_the_labels_as_of_an_earlier_event_are_those_in_force_then(steps):
    with tempfile.TemporaryDirectory() as folder:
        store = empty_project(Path(folder) / "p")
        seen = [(store.events.last_event_id(), in_force(store.events.current_labels()))]
        for step in steps:
            if step[0] == "label":
                _, who, rid, unit, value = step
                store.events.append(who, rid, unit, "verifiable", value)
            else:
                _, who, rid = step
                store.events.undo_last(who, rid)
            seen.append((store.events.last_event_id(), in_force(store.events.current_labels())))
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
