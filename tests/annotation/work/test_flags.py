"""The annotators' flags read back (annotation/work/flags.py): what `flag_for_guidelines` wrote,
as typed rows, newest first."""

import pytest

from annotation.protocol.ids import Unit
from annotation.protocol.records import Response, Sentence
from annotation.store.project_store import ProjectStore
from annotation.work.flags import Flag, project_flags
from annotation.work.session import flag_for_guidelines, skip_response


@pytest.fixture
def store(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    two = [Sentence("A man waves."), Sentence("So B.")]
    store.add_responses(
        [(Response("r1", "A man waves. So B."), two), (Response("r2", "A man waves. So B."), two)]
    )
    return store


def test_a_project_without_flags_has_none(store):
    store.events.append("ana", "r1", "s0", "verifiable", True)
    skip_response(store, "ana", "r2", "no sound")
    assert project_flags(store) == []


def test_every_flag_is_read_back_newest_first_with_who_where_and_its_text(store):
    first = flag_for_guidelines(store, "ana", "r1", "  Is waving an action?  ")
    store.events.append("ana", "r1", "s0", "verifiable", True)
    second = flag_for_guidelines(store, "bo", "r2", "Which clip counts?", unit=Unit.of_sentence(1))
    flags = project_flags(store)
    assert [(f.event_id, f.who, f.response_id, f.unit, f.sentence, f.text) for f in flags] == [
        (second, "bo", "r2", Unit.of_sentence(1), 1, "Which clip counts?"),
        (first, "ana", "r1", Unit.response(), None, "Is waving an action?"),
    ]
    assert flags[1].at == store.events.log(kind="flag")[0].at


def test_a_flag_says_where_it_is_counting_sentences_from_one():
    on_response = Flag(1, "2025-03-04T10:22:31.123+00:00", "ana", "r1", Unit.response(), "?")
    on_sentence = Flag(2, "2025-03-04T10:22:31.123+00:00", "ana", "r1", Unit.of_sentence(2), "?")
    assert (on_response.where, on_sentence.where) == ("r1", "r1, sentence 3")


def test_a_flag_says_when_to_the_minute_in_utc():
    flag = Flag(1, "2025-03-04T10:22:31.123+00:00", "ana", "r1", Unit.response(), "?")
    assert flag.when == "2025-03-04 10:22 UTC"


def test_typed_markup_is_kept_as_typed(store):
    flag_for_guidelines(store, "ana", "r1", "**bold** <b>x</b>\nline two")
    assert project_flags(store)[0].text == "**bold** <b>x</b>\nline two"


def test_flags_are_read_through_their_index_not_a_scan_of_the_log(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    connection = store.database.connection
    asked: list[str] = []
    connection.set_trace_callback(asked.append)
    project_flags(store)
    connection.set_trace_callback(None)
    (query,) = [sql for sql in asked if "FROM events" in sql]
    plan = " ".join(row[-1] for row in connection.execute("EXPLAIN QUERY PLAN " + query))
    assert plan == "SCAN events USING INDEX events_flags"  # not a scan of the whole log
