"""annotation.agreement.same_fact: a pair of wordings the matcher is unsure of becomes one "Same fact?"
question for the adjudicator, asked once, answered as a ruling in the event log, read by the
clusters from then on, and undone like every ruling."""

from __future__ import annotations

import pytest

from annotation.agreement.adjudication import adjudicate
from annotation.agreement.paraphrase import ASK, paraphrase_similarity, verdict
from annotation.agreement.reliability import stage_units
from annotation.agreement.same_fact import SAME_TASK, open_questions, pair_key, pair_unit, wording_only
from annotation.protocol.citations import Citation
from annotation.protocol.ids import Task, Unit
from annotation.protocol.records import Response, Sentence
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from annotation.work.labels import annotator_records

SENTENCE = Sentence(
    "The crowd applauds as the band bows (audio, 0:03-0:05; visual, 0:04).",
    None,
    [Citation("audio", 3.0, 5.0), Citation("visual", 4.0, 4.0)],
)
WORDINGS = {
    "alice": "The audience applauds.",
    "bob": "The crowd applauds.",
    "carol": "The crowd is applauding.",
}


@pytest.fixture
def store(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response("r1", SENTENCE.text), [SENTENCE])])
    store.add_user("ada", "adjudicator", None)
    for name, text in WORDINGS.items():
        store.add_user(name, "annotator", None)
        store.events.append(name, "r1", Unit.of_sentence(0), "verifiable", True)
        store.events.append(name, "r1", Unit.of_sentence(0), "facts", [{"text": text, "citations": [0]}])
        store.events.append(name, "r1", Unit.of_fact(0, text, [0]), "all", True)
    return store


def facts_value(gold):
    (value,) = [v for v in gold.values if v.question == "facts"]
    return value


def test_the_pair_is_one_the_matcher_cannot_decide():
    assert verdict(paraphrase_similarity(WORDINGS["alice"], WORDINGS["bob"])) == ASK


def test_an_uncertain_pair_becomes_one_question_with_both_wordings_and_the_cited_segment(store):
    (question,) = open_questions(project_state(store).gold)
    assert {question.text_a, question.text_b} == {WORDINGS["alice"], WORDINGS["bob"]}
    assert (question.response_id, question.sentence, question.segments) == ("r1", 0, (0,))
    assert question.unit == pair_unit(0, WORDINGS["bob"], WORDINGS["alice"])


def test_a_dispute_only_the_open_question_makes_is_a_difference_of_wording(store):
    value = facts_value(project_state(store).gold)
    assert value.disputed and wording_only(value)


def test_a_yes_joins_the_wordings_and_the_dispute_and_the_question_go(store):
    (question,) = open_questions(project_state(store).gold)
    adjudicate(store, "ada", "r1", question.unit, SAME_TASK, True)
    gold = project_state(store).gold
    assert open_questions(gold) == []
    assert gold.disputes() == []
    (fact,) = gold.records[0].sentences[0].facts
    assert sorted(w["author"] for w in fact.provenance["wordings"]) == ["alice", "bob", "carol"]
    (entailed,) = [v for v in gold.values if v.question == "all"]
    assert sorted(entailed.values) == ["alice", "bob", "carol"]


def test_a_no_keeps_them_apart_and_is_not_asked_again(store):
    (question,) = open_questions(project_state(store).gold)
    adjudicate(store, "ada", "r1", question.unit, SAME_TASK, False)
    gold = project_state(store).gold
    assert open_questions(gold) == []
    value = facts_value(gold)
    assert value.disputed and not wording_only(value)
    assert [len(c.members) for c in value.clusters.clusters] == [1, 2]


def test_undo_brings_the_question_back(store):
    (question,) = open_questions(project_state(store).gold)
    adjudicate(store, "ada", "r1", question.unit, SAME_TASK, True)
    store.events.undo_last("ada")
    assert open_questions(project_state(store).gold) == [question]


def test_the_answer_is_a_ruling_event_not_an_annotators_label(store):
    (question,) = open_questions(project_state(store).gold)
    adjudicate(store, "ada", "r1", question.unit, SAME_TASK, True)
    (event,) = store.events.current_labels("ada")
    assert (event.unit, event.task, event.value) == (
        question.unit,
        Task.parse("gold.same"),
        {"value": True, "reason": None},
    )
    assert event.task.ruling and event.unit.sentence == 0
    assert sorted(r.source for r in annotator_records(store)) == ["human:alice", "human:bob", "human:carol"]


def test_an_annotator_cannot_answer_a_same_fact_question(store):
    (question,) = open_questions(project_state(store).gold)
    with pytest.raises(PermissionError):
        adjudicate(store, "alice", "r1", question.unit, SAME_TASK, True)


def test_the_pair_key_is_the_same_whichever_wording_comes_first_and_ignores_case_and_punctuation():
    assert pair_key("The crowd applauds.", "The audience applauds.") == pair_key(
        "the audience applauds", "The crowd applauds!"
    )
    assert pair_key("a", "b") != pair_key("a", "c")


def test_agreement_clusters_with_the_answer_as_gold_does(store):
    (question,) = open_questions(project_state(store).gold)
    assert (
        len(
            {
                frozenset(v)
                for v in stage_units(project_state(store).annotators)["decomposition"][("r1", 0)].values()
            }
        )
        == 2
    )
    adjudicate(store, "ada", "r1", question.unit, SAME_TASK, True)
    state = project_state(store)
    (decomposition,) = stage_units(state.annotators, state.rulings)["decomposition"].values()
    assert sorted(decomposition) == ["alice", "bob", "carol"]
    assert len(set(decomposition.values())) == 1  # one cluster, stated alike by all three
