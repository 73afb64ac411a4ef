"""From label events to a person's evaluation record (annotation/labels.py)."""

import pytest

from annotation.protocol.citations import Citation
from annotation.protocol.ids import Task, Unit, entailment_task, fact_key
from annotation.protocol.records import Response, Sentence
from annotation.store.project_store import ProjectStore
from annotation.work.labels import human_records, record_from_labels

CITES = [Citation("visual", 12.0, 12.0), Citation("audio", 12.0, 14.0)]


@pytest.fixture
def store(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    sentences = [
        Sentence("The man points (visual, 0:12; audio, 0:12-0:14).", citations=CITES),
        Sentence("So B is right."),
    ]
    store.add_responses([(Response("r1", "…"), sentences)])
    return store


def test_fact_key_ignores_case_and_spacing_but_not_citations():
    assert fact_key("A man  points.", [0]) == fact_key("a man points.", [0])
    assert fact_key("A man points.", [0]) != fact_key("A man points.", [0, 1])


def test_entailment_task_names():
    assert str(entailment_task("all")) == "all"
    assert str(entailment_task("alone", 1)) == "alone.1"
    with pytest.raises(ValueError):
        entailment_task("alone")


def test_unlabelled_sentence_stays_not_done():
    record = record_from_labels("r1", "human:a", [Sentence("x")], {})
    assert record.sentences[0].verifiable is None and record.sentences[0].facts == []


def test_fact_without_stage3_answers_has_no_entailment():
    labels = {(Unit.of_sentence(0), Task.parse("facts")): [{"text": "A man points.", "citations": [0]}]}
    record = record_from_labels("r1", "human:a", [Sentence("x", True, CITES)], labels)
    assert record.sentences[0].facts[0].entailment is None


def test_partial_stage3_answers_leave_the_rest_null():
    fact = {"text": "The man speaks.", "citations": [0, 1]}
    unit = Unit.of_fact(0, fact["text"], fact["citations"])
    labels = {
        (Unit.of_sentence(0), Task.parse("facts")): [fact],
        (unit, Task.parse("all")): True,
        (unit, Task.parse("alone.1")): True,
    }
    entailment = (
        record_from_labels("r1", "human:a", [Sentence("x", True, CITES)], labels)
        .sentences[0]
        .facts[0]
        .entailment
    )
    assert entailment.to_dict() == {"all": True, "alone": [None, True], "without": [None, None]}


def test_answers_given_to_an_edited_fact_do_not_carry_over():
    old_unit = Unit.of_fact(0, "A man points.", [0])
    labels = {
        (Unit.of_sentence(0), Task.parse("facts")): [{"text": "A man points at a screen.", "citations": [0]}],
        (old_unit, Task.parse("all")): True,
    }
    record = record_from_labels("r1", "human:a", [Sentence("x", True, CITES)], labels)
    assert record.sentences[0].facts[0].entailment is None


def test_human_records_come_from_the_event_log_per_person(store):
    fact = {"text": "A man points.", "citations": [0]}
    store.events.append("alice", "r1", Unit.of_sentence(0), "verifiable", True)
    store.events.append("alice", "r1", Unit.of_sentence(1), "verifiable", False)
    store.events.append("alice", "r1", Unit.of_sentence(0), "facts", [fact])
    store.events.append("alice", "r1", Unit.of_fact(0, fact["text"], [0]), "all", True)
    store.events.append("bob", "r1", Unit.of_sentence(0), "verifiable", False)
    records = {r.source: r for r in human_records(store)}
    assert set(records) == {"human:alice", "human:bob"}
    alice = records["human:alice"]
    assert [s.verifiable for s in alice.sentences] == [True, False]
    assert alice.sentences[0].facts[0].entailment.all is True
    assert alice.sentences[0].citations == CITES
    assert records["human:bob"].sentences[0].facts == []


def test_undone_label_disappears_from_the_human_record(store):
    store.events.append("alice", "r1", "s0", "verifiable", True)
    store.events.undo_last("alice")
    assert human_records(store) == []


def test_staged_answers_about_gold_facts_keep_the_gold_facts(store):
    from annotation.protocol.records import EvaluationRecord, Fact

    gold_fact = Fact("A man points.", [0])
    sentences = store.response_sentences("r1")
    gold = EvaluationRecord(
        "r1",
        "gold",
        [Sentence(sentences[0].text, True, CITES, [gold_fact]), Sentence(sentences[1].text, False)],
    )
    store.events.append("alice", "r1", "s0", "verifiable", True)
    store.events.append("alice", "r1", "s0", "facts", [{"text": "Someone points.", "citations": [0]}])
    store.events.append("alice", "r1", Unit.of_fact(0, gold_fact.text, [0]), "all", False)
    [record] = human_records(store, gold_by_response={"r1": gold})
    [fact] = record.sentences[0].facts
    assert fact.text == "A man points." and fact.entailment.all is False


def test_a_cant_tell_answer_is_null_in_the_record_with_its_reason():
    sentence = Sentence("A tone plays (audio, 0:01).", citations=[Citation("audio", 1.0, 1.0)])
    unit = Unit.of_fact(0, "A tone plays.", [0])
    labels = {
        (Unit.of_sentence(0), Task.parse("verifiable")): True,
        (Unit.of_sentence(0), Task.parse("facts")): [{"text": "A tone plays.", "citations": [0]}],
        (unit, Task.parse("all")): {"cant_tell": "the audio is inaudible"},
    }
    (fact,) = record_from_labels("r1", "human:ana", [sentence], labels).sentences[0].facts
    assert fact.entailment.all is None and fact.provenance == {"all": "can't tell: the audio is inaudible"}
