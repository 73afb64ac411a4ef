"""The annotators' flags read back (annotation/work/flags.py): what `flag_for_guidelines` wrote,
as typed rows, newest first."""

import pytest

from annotation.protocol.ids import Unit
from annotation.protocol.records import Response, Sentence
from annotation.store.project_store import ProjectStore
from annotation.work.flags import Flag, answer_flag, project_flags
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


# -- answers -------------------------------------------------------------------------------------
@pytest.fixture
def people(store):
    store.add_user("ana", "annotator", None)
    store.add_user("bo", "annotator", None)
    store.add_user("judy", "adjudicator", None)
    store.add_user("root", "admin", None)
    return store


def test_a_new_flag_is_open(people):
    flag_for_guidelines(people, "ana", "r1", "Is waving an action?")
    (flag,) = project_flags(people)
    assert flag.answers == () and flag.answer is None


def test_an_adjudicators_answer_marks_the_flag_answered_with_who_and_the_reply(people):
    asked = flag_for_guidelines(people, "ana", "r1", "Is waving an action?")
    other = flag_for_guidelines(people, "bo", "r2", "Which clip counts?")
    answer_flag(people, "judy", asked, "  Yes: see guideline 2.  ")
    answered, still_open = sorted(project_flags(people), key=lambda f: f.event_id)
    assert (answered.answer.who, answered.answer.text) == ("judy", "Yes: see guideline 2.")
    assert answered.answer.at.endswith("+00:00") and answered.answer.when.endswith(" UTC")
    assert still_open.event_id == other and still_open.answer is None


def test_an_admin_may_mark_a_flag_dealt_with_without_a_reply(people):
    asked = flag_for_guidelines(people, "ana", "r1", "Is waving an action?")
    answer_flag(people, "root", asked)
    assert project_flags(people)[0].answer.text == ""


def test_a_later_answer_is_the_one_in_force_and_the_earlier_one_is_kept(people):
    asked = flag_for_guidelines(people, "ana", "r1", "Is waving an action?")
    answer_flag(people, "judy", asked, "No.")
    answer_flag(people, "root", asked, "Yes, after all.")
    (flag,) = project_flags(people)
    assert [(a.who, a.text) for a in flag.answers] == [("judy", "No."), ("root", "Yes, after all.")]
    assert flag.answer.text == "Yes, after all."


@pytest.mark.parametrize("who", ["ana", "nobody"])
def test_annotators_and_strangers_cannot_answer_a_flag(people, who):
    asked = flag_for_guidelines(people, "ana", "r1", "Is waving an action?")
    with pytest.raises(PermissionError, match="adjudicators and admins only"):
        answer_flag(people, who, asked, "Yes.")
    assert project_flags(people)[0].answer is None


def test_answering_an_event_that_is_not_a_flag_is_refused_and_writes_nothing(people):
    label = people.events.append("ana", "r1", "s0", "verifiable", True)
    flag_for_guidelines(people, "ana", "r1", "Is waving an action?")
    for missing in (label, 999):
        with pytest.raises(ValueError, match=f"no flag with event id {missing}"):
            answer_flag(people, "judy", missing, "Yes.")
    assert people.database.connection.execute("SELECT COUNT(*) FROM flag_answers").fetchone()[0] == 0


def test_an_annotator_reads_only_their_own_flags_with_their_answers(people):
    mine = flag_for_guidelines(people, "ana", "r1", "Is waving an action?")
    flag_for_guidelines(people, "bo", "r2", "Which clip counts?")
    answer_flag(people, "judy", mine, "Yes.")
    (flag,) = project_flags(people, who="ana")
    assert (flag.event_id, flag.answer.text) == (mine, "Yes.")
    assert project_flags(people, who="dana") == []


def test_an_answer_does_not_move_the_projects_revision(people):
    asked = flag_for_guidelines(people, "ana", "r1", "Is waving an action?")
    before = people.change_marks()
    answer_flag(people, "judy", asked, "Yes.")
    assert people.change_marks() == before  # not a label: no state is derived again
