"""What the app asks next on a response (annotation/session.py)."""

import itertools

import pytest

from annotation.protocol.citations import Citation
from annotation.protocol.derivation import derive_entailment
from annotation.protocol.fact_list import check_fact_list
from annotation.protocol.ids import Task, Unit
from annotation.protocol.questions import entailment_questions
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Response, Sentence
from annotation.store.project_store import ProjectStore
from annotation.work.labels import labels_by_unit, record_from_labels
from annotation.work.session import (
    Question,
    Waiting,
    answer,
    cant_tell_answer,
    next_question,
    normalise_campaign_mode,
    open_response,
    plan,
    propose_facts,
    record_answer,
    response_progress,
    skip_response,
    undo_last_decision,
    undone_fact_list,
)

VISUAL = Citation("visual", 12.0, 12.0)
AUDIO = Citation("audio", 12.0, 14.0)
BROKEN = Citation("visual", None, None, valid=False, raw="visual, 0:75", reason="seconds over 59")


def two_sentences():
    return [
        Sentence("The man points (visual, 0:12; audio, 0:12-0:14).", citations=[VISUAL, AUDIO]),
        Sentence("So B is right."),
    ]


def answer_all(sentences, labels, mode="end_to_end", gold=None, value=True, facts=None):
    """Answer every question the session asks, in order; returns the questions asked."""
    asked = []
    while True:
        question = next_question(sentences, labels, mode, gold)
        if not isinstance(question, Question):
            return asked
        asked.append(question)
        if question.kind == "facts":
            labels[(question.unit, question.task)] = facts or [{"text": "A man points.", "citations": [0]}]
        elif question.kind == "verifiable":
            labels[(question.unit, question.task)] = question.sentence_index == 0
        else:
            labels[(question.unit, question.task)] = value


def test_one_citation_fact_is_one_click():
    sentence = Sentence("A man points (visual, 0:12).", citations=[VISUAL])
    assert entailment_questions(Fact("A man points.", [0]), sentence) == [(Task("all"), "all", None)]


def test_two_citation_fact_asks_all_and_alone_but_never_without():
    sentence = two_sentences()[0]
    tasks = [str(task) for task, _, _ in entailment_questions(Fact("A man speaks.", [0, 1]), sentence)]
    assert tasks == ["all", "alone.0", "alone.1"]


def test_three_citation_fact_asks_alone_and_without_for_each():
    sentence = Sentence("x", citations=[VISUAL, AUDIO, Citation("audio", 20.0, 21.0)])
    tasks = [str(task) for task, _, _ in entailment_questions(Fact("x", [0, 1, 2]), sentence)]
    assert tasks == ["all", "alone.0", "alone.1", "alone.2", "without.0", "without.1", "without.2"]


def test_invalid_citation_is_never_asked_about_and_two_valid_ones_ask_no_without():
    sentence = Sentence("x", citations=[VISUAL, BROKEN, AUDIO])
    tasks = [str(task) for task, _, _ in entailment_questions(Fact("x", [0, 1, 2]), sentence)]
    assert tasks == ["all", "alone.0", "alone.2"]


def test_one_valid_citation_beside_an_invalid_one_asks_only_all():
    sentence = Sentence("x", citations=[VISUAL, BROKEN])
    assert [str(task) for task, _, _ in entailment_questions(Fact("x", [0, 1]), sentence)] == ["all"]


def test_a_fact_whose_citations_are_all_invalid_is_asked_nothing():
    sentence = Sentence("x", citations=[BROKEN, BROKEN])
    assert entailment_questions(Fact("x", [0, 1]), sentence) == []


def test_fact_without_citations_is_asked_nothing():
    assert entailment_questions(Fact("x", []), two_sentences()[0]) == []


def test_out_of_range_citation_index_is_refused():
    with pytest.raises(ValueError, match="out of range"):
        entailment_questions(Fact("x", [5]), two_sentences()[0])


@pytest.mark.parametrize(
    "validity", [v for k in range(1, 5) for v in itertools.product([True, False], repeat=k)]
)
def test_answers_asked_plus_protocol_derivations_leave_nothing_undetermined(validity):
    citations = [VISUAL if valid else BROKEN for valid in validity]
    sentence = Sentence("x", citations=citations)
    fact = Fact("x", list(range(len(citations))))
    answers = {Task("all"): True}
    for task, _, _ in entailment_questions(fact, sentence):
        answers[task] = True
    k = len(citations)
    fact.entailment = Entailment(
        answers[Task("all")],
        [answers.get(Task("alone", j)) for j in range(k)],
        [answers.get(Task("without", j)) for j in range(k)],
    )
    derived = derive_entailment(fact, sentence)
    assert None not in derived.alone and None not in derived.without


def test_stage_one_comes_first_sentence_by_sentence():
    question = next_question(two_sentences(), {})
    assert (question.stage, question.sentence_index, str(question.task)) == (1, 0, "verifiable")


def test_stage_one_segments_are_all_the_sentence_citations():
    assert next_question(two_sentences(), {}).segments == (0, 1)


def test_facts_are_asked_only_for_verifiable_cited_sentences():
    labels = {
        (Unit.of_sentence(0), Task.parse("verifiable")): True,
        (Unit.of_sentence(1), Task.parse("verifiable")): True,
    }
    question = next_question(two_sentences(), labels)
    assert (question.kind, question.sentence_index) == ("facts", 0)
    labels[(Unit.of_sentence(0), Task.parse("facts"))] = [{"text": "A man points.", "citations": [0]}]
    assert next_question(two_sentences(), labels).kind == "all"


def test_entailment_question_is_keyed_to_the_fact_content():
    labels = {
        (Unit.of_sentence(0), Task.parse("verifiable")): True,
        (Unit.of_sentence(1), Task.parse("verifiable")): False,
        (Unit.of_sentence(0), Task.parse("facts")): [{"text": "A man points.", "citations": [0]}],
    }
    question = next_question(two_sentences(), labels)
    assert question.unit == Unit.of_fact(0, "A man points.", [0]) and question.segments == (0,)


def test_alone_question_plays_its_one_citation_and_without_plays_the_others():
    sentence = Sentence("x", citations=[VISUAL, AUDIO, Citation("audio", 20.0, 21.0)])
    labels = {
        (Unit.of_sentence(0), Task.parse("verifiable")): True,
        (Unit.of_sentence(0), Task.parse("facts")): [{"text": "x", "citations": [0, 1, 2]}],
    }
    questions, _ = plan([sentence], labels)
    by_task = {str(q.task): q.segments for q in questions if q.stage == 3}
    assert by_task["alone.1"] == (1,) and by_task["without.1"] == (0, 2) and by_task["all"] == (0, 1, 2)


def test_not_verifiable_response_is_complete_after_stage_one():
    labels = {
        (Unit.of_sentence(0), Task.parse("verifiable")): False,
        (Unit.of_sentence(1), Task.parse("verifiable")): False,
    }
    assert next_question(two_sentences(), labels) is None


def test_complete_end_to_end_response_took_four_decisions():
    labels = {}
    asked = answer_all(two_sentences(), labels)
    assert [str(q.task) for q in asked] == ["verifiable", "verifiable", "facts", "all"]


def test_response_progress_counts_answered_of_known_questions():
    assert response_progress(two_sentences(), {(Unit.of_sentence(0), Task.parse("verifiable")): True}) == (
        1,
        2,
    )


def test_staged_mode_waits_for_gold_verifiability_after_own_stage_one():
    labels = {
        (Unit.of_sentence(0), Task.parse("verifiable")): True,
        (Unit.of_sentence(1), Task.parse("verifiable")): False,
    }
    result = next_question(two_sentences(), labels, "staged", gold=None)
    assert isinstance(result, Waiting) and result.stage == 2


def test_staged_mode_splits_gold_verifiable_sentences_not_own():
    gold = EvaluationRecord(
        "r1",
        "gold",
        [Sentence(s.text, verifiable=v) for s, v in zip(two_sentences(), [True, False], strict=True)],
    )
    labels = {
        (Unit.of_sentence(0), Task.parse("verifiable")): False,
        (Unit.of_sentence(1), Task.parse("verifiable")): False,
    }
    question = next_question(two_sentences(), labels, "staged", gold)
    assert (question.kind, question.sentence_index) == ("facts", 0)


def test_staged_mode_judges_the_gold_facts():
    gold_facts = [Fact("The man speaks.", [1])]
    gold = EvaluationRecord(
        "r1",
        "gold",
        [Sentence(two_sentences()[0].text, True, facts=gold_facts), Sentence("So B is right.", False)],
    )
    labels = {
        (Unit.of_sentence(0), Task.parse("verifiable")): True,
        (Unit.of_sentence(1), Task.parse("verifiable")): False,
        (Unit.of_sentence(0), Task.parse("facts")): [{"text": "Something else.", "citations": [0]}],
    }
    question = next_question(two_sentences(), labels, "staged", gold)
    assert question.unit == Unit.of_fact(0, "The man speaks.", [1])


def test_staged_mode_waits_for_gold_facts_after_own_facts():
    gold = EvaluationRecord(
        "r1", "gold", [Sentence(two_sentences()[0].text, True), Sentence("So B is right.", False)]
    )
    labels = {
        (Unit.of_sentence(0), Task.parse("verifiable")): True,
        (Unit.of_sentence(1), Task.parse("verifiable")): False,
        (Unit.of_sentence(0), Task.parse("facts")): [{"text": "A man points.", "citations": [0]}],
    }
    result = next_question(two_sentences(), labels, "staged", gold)
    assert isinstance(result, Waiting) and result.stage == 3


def test_gold_of_another_sentence_text_is_not_used():
    gold = EvaluationRecord(
        "r1", "gold", [Sentence("Different text.", True), Sentence("So B is right.", False)]
    )
    labels = {
        (Unit.of_sentence(0), Task.parse("verifiable")): True,
        (Unit.of_sentence(1), Task.parse("verifiable")): False,
    }
    assert isinstance(next_question(two_sentences(), labels, "staged", gold), Waiting)


def test_campaign_mode_spellings():
    assert normalise_campaign_mode("End-to-end") == "end_to_end"
    assert normalise_campaign_mode("staged") == "staged"
    assert normalise_campaign_mode(None) == "end_to_end"


def test_judge_decomposition_is_preferred_to_the_rule_based_split():
    sentence = two_sentences()[0]
    judge = EvaluationRecord("r1", "judge:x", [Sentence(sentence.text, True, facts=[Fact("A man.", [1, 7])])])
    proposal = propose_facts(0, sentence, [judge], lambda s: [Fact("rule", [0])])
    assert proposal == [{"text": "A man.", "citations": [1]}]


def test_judge_decomposition_passes_through_the_split_when_one_is_given():
    sentence = two_sentences()[0]
    judge = EvaluationRecord(
        "r1", "judge:x", [Sentence(sentence.text, True, facts=[Fact("A and B.", [0, 1])])]
    )
    halves = lambda fact, citations: [Fact("A.", [0]), Fact("B.", [1])]  # noqa: E731
    assert propose_facts(0, sentence, [judge], lambda s: [], halves) == [
        {"text": "A.", "citations": [0]},
        {"text": "B.", "citations": [1]},
    ]


def test_a_judges_invalid_citation_is_never_proposed_ticked():
    sentence = Sentence("A man points (visual, 0:75; audio, 0:12-0:14).", citations=[BROKEN, AUDIO])
    judge = EvaluationRecord("r1", "judge:x", [Sentence(sentence.text, True, facts=[Fact("A man.", [0, 1])])])
    assert propose_facts(0, sentence, [judge], lambda s: []) == [{"text": "A man.", "citations": [1]}]


def test_a_proposed_fact_left_without_a_valid_citation_gets_the_sentences_valid_ones():
    sentence = Sentence("A red dot (visual, 0:75) and a tone (audio, 0:12-0:14).", citations=[BROKEN, AUDIO])
    judge = EvaluationRecord(
        "r1", "judge:x", [Sentence(sentence.text, True, facts=[Fact("A red dot.", [0])])]
    )
    assert propose_facts(0, sentence, [judge], lambda s: []) == [{"text": "A red dot.", "citations": [1]}]


def test_rule_based_split_is_used_without_a_judge_decomposition():
    proposal = propose_facts(0, two_sentences()[0], [], lambda s: [Fact("rule", [0])])
    assert proposal == [{"text": "rule", "citations": [0]}]


def test_fact_list_needs_text_and_a_ticked_citation():
    problems = check_fact_list([{"text": " ", "citations": []}], 2)
    assert problems == ["fact 1 has no text", "fact 1 cites nothing: tick at least one citation"]


def test_empty_fact_list_is_refused():
    assert check_fact_list([], 2) == ["add at least one fact"]


@pytest.fixture
def store(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response("r1", "…"), two_sentences())])
    return store


def current(store, who="ana"):
    return labels_by_unit(store.events.current_labels(who, "r1"))


def test_answers_written_by_the_session_make_the_persons_record(store):
    while isinstance(question := next_question(two_sentences(), current(store)), Question):
        value = {"verifiable": question.sentence_index == 0, "all": True}.get(
            question.kind, [{"text": "A man points.", "citations": [0]}]
        )
        record_answer(store, "ana", "r1", question, value, spent_ms=5)
    record = record_from_labels("r1", "human:ana", two_sentences(), current(store))
    assert record.sentences[0].facts[0].entailment == Entailment(True, [None], [None])


def test_time_spent_is_kept_with_the_decision(store):
    question = next_question(two_sentences(), {})
    record_answer(store, "ana", "r1", question, True, spent_ms=1234)
    assert store.events.current_labels("ana", "r1")[0].spent_ms == 1234


def test_a_question_already_answered_is_not_answered_again_until_undone(store):
    # A double click, or a click on a button still on screen while the page redraws, must
    # neither change the answer nor write a second one.
    question = next_question(two_sentences(), {})
    assert record_answer(store, "ana", "r1", question, True) is not None
    assert record_answer(store, "ana", "r1", question, False) is None
    assert (
        current(store) == {(Unit.of_sentence(0), Task.parse("verifiable")): True}
        and len(store.events.log("ana")) == 1
    )
    undo_last_decision(store, "ana")
    assert record_answer(store, "ana", "r1", question, False) is not None
    assert current(store) == {(Unit.of_sentence(0), Task.parse("verifiable")): False}


def test_undo_after_done_takes_back_the_last_choice_too(store):
    question = next_question(two_sentences(), {})
    record_answer(store, "ana", "r1", question, False)
    store.events.append("ana", "r1", "response", "done", True)
    undone = undo_last_decision(store, "ana")
    assert (undone.unit, undone.task) == (Unit.of_sentence(0), Task.parse("verifiable")) and current(
        store
    ) == {}


def test_undo_on_the_annotate_page_never_takes_back_a_ruling(store):
    # QA: an adjudicator pressing Undo on the Annotate page withdrew her Disputes rulings, unseen
    store.events.append("ada", "r1", "s0", "gold.verifiable", {"value": True, "reason": None})
    assert undo_last_decision(store, "ada") is None  # nothing of hers to undo here
    assert [e.task for e in store.events.current_labels("ada", "r1")] == [Task.parse("gold.verifiable")]
    record_answer(store, "ada", "r1", next_question(two_sentences(), {}), False)  # she annotates too
    undone = undo_last_decision(store, "ada")
    assert undone.task == Task.parse("verifiable") and undo_last_decision(store, "ada") is None


def test_skip_needs_a_reason(store):
    with pytest.raises(ValueError):
        skip_response(store, "ana", "r1", "  ")


def test_after_an_undo_the_fact_list_confirmed_before_comes_back(store):
    record_answer(store, "ana", "r1", next_question(two_sentences(), {}), True)
    record_answer(store, "ana", "r1", next_question(two_sentences(), current(store)), False)
    facts_question = next_question(two_sentences(), current(store))
    assert undone_fact_list(store, "ana", "r1", facts_question) is None
    record_answer(store, "ana", "r1", facts_question, [{"text": "My own words.", "citations": [1]}])
    undo_last_decision(store, "ana")
    assert undone_fact_list(store, "ana", "r1", facts_question) == [
        {"text": "My own words.", "citations": [1]}
    ]


def test_cant_tell_needs_a_reason_and_a_stage_three_question(store):
    with pytest.raises(ValueError, match="say why"):
        cant_tell_answer("  ")
    stage_one = next_question(two_sentences(), {})
    with pytest.raises(ValueError, match="stage-3"):
        record_answer(store, "ana", "r1", stage_one, cant_tell_answer("the audio is inaudible"))
    assert store.events.log("ana") == []


def test_an_answer_returns_the_work_after_it_as_a_fresh_read_would_give_it(store):
    work = open_response(store, "ana", "r1", "end_to_end")
    assert str(work.question.unit) == "s0" and work.answered == 0
    work = answer(store, "ana", work, work.question, True)  # s0 verifiable
    assert work.labels == current(store) and str(work.question.unit) == "s1"
    work = answer(store, "ana", work, work.question, False)  # s1 not verifiable: facts of s0 next
    assert work.question.kind == "facts" and work == open_response(store, "ana", "r1", "end_to_end")


def test_the_answer_that_leaves_nothing_to_ask_writes_the_done_mark(store):
    work = open_response(store, "ana", "r1", "end_to_end")
    values = iter([True, False, [{"text": "A man points.", "citations": [0]}], True])
    while work.question is not None:
        assert not work.done
        work = answer(store, "ana", work, work.question, next(values))
    assert work.done and current(store)[(Unit.response(), Task.parse("done"))] is True


def test_an_answer_to_a_question_answered_meanwhile_writes_nothing(store):
    work = open_response(store, "ana", "r1", "end_to_end")
    assert answer(store, "ana", work, work.question, True) is not None
    assert answer(store, "ana", work, work.question, False) is None  # `work` is from before
    assert (
        current(store) == {(Unit.of_sentence(0), Task.parse("verifiable")): True}
        and len(store.events.log("ana")) == 1
    )
