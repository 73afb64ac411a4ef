"""Gold with provenance (annotation/gold.py): rules, rulings, disputes, export and CSV."""

from __future__ import annotations

import json

import pytest

from annotation.agreement.adjudication import Ruling, adjudicate, rulings_from_events
from annotation.agreement.gold import DERIVED, derive_gold
from annotation.formats.gold_csv import gold_csv_rows, read_gold_csv, write_gold_csv
from annotation.formats.readers import read_records_file, write_records_jsonl
from annotation.formats.record_schema import validate_record
from annotation.protocol.citations import Citation
from annotation.protocol.ids import Task, Unit
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Response, Sentence
from annotation.state import project_state
from annotation.store.project_store import ProjectStore

VISUAL = Citation("visual", 1.0, 1.0)
AUDIO = Citation("audio", 2.0, 4.0)
TEXT = "The man points (visual, 0:01; audio, 0:02-0:04)."


def sentences(verifiable, facts=()):
    return [Sentence(TEXT, verifiable, [VISUAL, AUDIO], list(facts)), Sentence("So B is right.", False)]


def record(name, verifiable, facts=(), rid="r1"):
    return EvaluationRecord(rid, f"human:{name}", sentences(verifiable, facts))


def fact(text, cites=(0,), all=None, alone=()):
    return Fact(text, list(cites), Entailment(all, list(alone), [None] * len(alone)))


def value_of(gold, question, sentence=0, rid="r1"):
    (found,) = [
        v for v in gold.values if (v.response_id, v.sentence, v.question) == (rid, sentence, question)
    ]
    return found


# -- rules and provenance -----------------------------------------------------------------------
def test_unanimous_value_is_accepted_with_its_provenance():
    gold = derive_gold([record(n, True, [fact("A man points.")]) for n in ("alice", "bob", "carol")])
    verifiable = value_of(gold, "verifiable")
    assert (verifiable.value, verifiable.provenance) == (True, "unanimous 3/3")
    assert gold.records[0].sentences[0].provenance["verifiable"] == "unanimous 3/3"


def test_majority_rule_takes_the_majority_value_and_says_so():
    gold = derive_gold([record("alice", True), record("bob", True), record("carol", False)], rule="majority")
    verifiable = value_of(gold, "verifiable")
    assert (verifiable.value, verifiable.provenance) == (True, "majority 2/3")


def test_unanimity_rule_leaves_a_disputed_unit_unresolved():
    gold = derive_gold([record("alice", True), record("bob", True), record("carol", False)], rule="unanimity")
    verifiable = value_of(gold, "verifiable")
    assert verifiable.value is None
    assert verifiable.provenance == "unresolved: disputed 2/3"
    # no gold record to score until it is ruled: its MURGAT-S is undetermined (PROTOCOL §3)
    assert gold.records == [] and gold.awaiting["r1"].undecided == ("sentence 0: verifiable",)
    assert gold.awaiting["r1"].record.sentences[0].verifiable is None


def test_a_tie_stays_unresolved_under_the_majority_rule():
    gold = derive_gold([record("alice", True), record("bob", False)], rule="majority")
    assert value_of(gold, "verifiable").value is None


def test_a_ruling_wins_over_the_majority_and_names_adjudicator_and_reason():
    rulings = {
        ("r1", Unit.of_sentence(0), Task.parse("verifiable")): Ruling("ada", False, "annotator error", 99)
    }
    gold = derive_gold([record("alice", True), record("bob", True), record("carol", False)], rulings)
    verifiable = value_of(gold, "verifiable")
    assert (verifiable.value, verifiable.provenance) == (False, "adjudicated:ada:annotator error")


def test_without_auto_acceptance_unanimous_units_wait_for_a_ruling_and_are_listed():
    gold = derive_gold([record(n, True) for n in ("alice", "bob")], auto_accept_unanimous=False)
    verifiable = value_of(gold, "verifiable")
    assert verifiable.value is None
    assert verifiable in gold.disputes()


def test_an_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="gold rule 'vote'"):
        derive_gold([], rule="vote")


# -- facts and entailment -----------------------------------------------------------------------
def test_under_majority_a_disputed_fact_list_keeps_the_facts_most_decomposers_gave():
    records = [
        record("alice", True, [fact("A man points."), fact("He talks.", [1])]),
        record("bob", True, [fact("a man points"), fact("He shouts.", [1])]),
        record("carol", True, [fact("A man points."), fact("He whispers.", [1])]),
    ]
    gold = derive_gold(records)
    facts = gold.records[0].sentences[0].facts
    assert [(f.text, f.provenance["text"]) for f in facts] == [("A man points.", "unanimous 3/3")]
    assert gold.records[0].sentences[0].provenance["facts"] == "majority per fact"


def test_under_unanimity_a_disputed_fact_list_gives_no_facts():
    records = [record("alice", True, [fact("A man points.")]), record("bob", True, [fact("He talks.", [1])])]
    gold = derive_gold(records, rule="unanimity")
    assert gold.records == [] and gold.awaiting["r1"].undecided == ("sentence 0: facts",)
    sentence = gold.awaiting["r1"].record.sentences[0]
    assert sentence.facts == []
    assert sentence.provenance["facts"] == "unresolved: disputed 1/2"


def test_entailment_is_voted_on_the_asked_questions_and_the_rest_is_derived():
    records = [
        record("alice", True, [fact("A man points.", [0], True)]),
        record("bob", True, [fact("A man points.", [0], True)]),
        record("carol", True, [fact("A man points.", [0], False)]),
    ]
    (gold_fact,) = derive_gold(records).records[0].sentences[0].facts
    assert gold_fact.entailment.to_dict() == {"all": True, "alone": [True], "without": [False]}
    assert gold_fact.provenance == {
        "text": "unanimous 3/3",
        "wordings": [
            {"author": n, "text": "A man points.", "citations": [0]} for n in ("alice", "bob", "carol")
        ],
        "all": "majority 2/3",
        "alone[0]": DERIVED,
        "without[0]": DERIVED,
    }


def test_alone_answers_are_matched_by_cited_segment_whatever_the_fact_order():
    records = [
        record("alice", True, [fact("He talks.", [0, 1], True, [True, False])]),
        record("bob", True, [fact("He talks.", [1, 0], True, [False, True])]),
    ]
    (gold_fact,) = derive_gold(records).records[0].sentences[0].facts
    assert gold_fact.citations == [0, 1]
    assert gold_fact.entailment.alone == [True, False]
    assert gold_fact.provenance["alone[0]"] == "unanimous 2/2"


def test_gold_records_with_provenance_pass_the_record_validator():
    records = [record("alice", True, [fact("A man points.", [0], True)]), record("bob", False, [])]
    for gold_record in derive_gold(records).records:
        assert validate_record(gold_record.to_dict()) == []


# -- disputes -----------------------------------------------------------------------------------
def test_disputes_list_lowest_agreement_first_and_leaves_unanimous_units_out():
    records = [
        EvaluationRecord("r1", f"human:{n}", [Sentence(f"S{i}.", v) for i, v in enumerate(labels)])
        for n, labels in (
            ("alice", [True, True, True]),
            ("bob", [True, False, False]),
            ("carol", [True, False, True]),
            ("dana", [True, True, False]),
        )
    ]
    # r1: s0 unanimous (not a dispute), s1 and s2 split 2/4; r2: s0 split 2/3
    records.append(EvaluationRecord("r2", "human:alice", [Sentence("T.", True)]))
    records.append(EvaluationRecord("r2", "human:bob", [Sentence("T.", True)]))
    records.append(EvaluationRecord("r2", "human:carol", [Sentence("T.", False)]))
    disputes = derive_gold(records).disputes()
    assert [(d.response_id, d.sentence, d.agreement) for d in disputes] == [
        ("r1", 1, 0.5),
        ("r1", 2, 0.5),
        ("r2", 0, pytest.approx(2 / 3)),
    ]


def test_disputes_show_each_annotators_time_and_flag_decisions_under_two_seconds():
    spent = {
        ("alice", "r1", Unit.of_sentence(0), Task.parse("verifiable")): 1500,
        ("bob", "r1", Unit.of_sentence(0), Task.parse("verifiable")): 9000,
    }
    gold = derive_gold([record("alice", True), record("bob", False)], spent_ms=spent)
    (dispute,) = gold.disputes()
    assert dispute.values == {"alice": True, "bob": False}
    assert dispute.spent_ms == {"alice": 1500, "bob": 9000}
    assert dispute.fast_annotators == ["alice"]


def test_open_disputes_leave_out_the_ruled_ones():
    rulings = {("r1", Unit.of_sentence(0), Task.parse("verifiable")): Ruling("ada", True, None, 1)}
    gold = derive_gold([record("alice", True), record("bob", False)], rulings)
    assert len(gold.disputes()) == 1 and gold.disputes(open_only=True) == []


# -- CSV ----------------------------------------------------------------------------------------
def test_csv_round_trip_keeps_every_row(tmp_path):
    records = [
        record("alice", True, [fact('A man points, "slowly".', [0], True)]),
        record("bob", True, [fact('A man points, "slowly".', [0], False)]),
    ]
    gold = derive_gold(records)
    write_gold_csv(gold.values, tmp_path / "gold.csv")
    assert read_gold_csv(tmp_path / "gold.csv") == gold_csv_rows(gold.values)


def test_csv_shows_a_fact_typed_like_a_formula_as_text_and_reads_it_back(tmp_path):
    typed = '=HYPERLINK("http://example.com", "more")'
    gold = derive_gold([record(name, True, [fact(typed, [0], True)]) for name in ("alice", "bob")])
    write_gold_csv(gold.values, tmp_path / "gold.csv")
    text = (tmp_path / "gold.csv").read_text(encoding="utf-8")
    assert "'=HYPERLINK" in text and ',"=HYPERLINK' not in text
    assert read_gold_csv(tmp_path / "gold.csv") == gold_csv_rows(gold.values)
    assert {row["fact"] for row in read_gold_csv(tmp_path / "gold.csv")} == {"", typed}


def test_csv_row_holds_value_provenance_and_each_annotators_value():
    gold = derive_gold([record("alice", True), record("bob", True)])
    row = gold_csv_rows(gold.values)[0]
    assert row == {
        "response_id": "r1",
        "sentence": "0",
        "fact": "",
        "question": "verifiable",
        "value": "true",
        "provenance": "unanimous 2/2",
        "alice": "true",
        "bob": "true",
    }


# -- the store: adjudication as events ----------------------------------------------------------
@pytest.fixture
def store(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response("r1", TEXT + " So B is right."), sentences(None))])
    for name, role in (("alice", "annotator"), ("bob", "annotator"), ("ada", "adjudicator")):
        store.add_user(name, role, None)
    store.events.append("alice", "r1", "s0", "verifiable", True, spent_ms=4000)
    store.events.append("bob", "r1", "s0", "verifiable", False, spent_ms=1200)
    for name in ("alice", "bob"):  # both sentences labelled: gold awaits nothing but the dispute
        store.events.append(name, "r1", "s1", "verifiable", False, spent_ms=900)
    return store


def test_an_adjudicated_value_wins_and_appears_in_the_gold_export_with_its_provenance(store, tmp_path):
    adjudicate(store, "ada", "r1", Unit.of_sentence(0), "verifiable", False, "guideline gap")
    write_records_jsonl(project_state(store).gold.records, tmp_path / "gold.jsonl")
    (exported,) = read_records_file(tmp_path / "gold.jsonl").items
    assert exported.source == "gold"
    assert exported.sentences[0].verifiable is False
    assert exported.sentences[0].provenance["verifiable"] == "adjudicated:ada:guideline gap"


def test_an_annotator_cannot_adjudicate(store):
    with pytest.raises(PermissionError):
        adjudicate(store, "alice", "r1", "s0", "verifiable", True)


def test_an_unknown_reason_tag_is_refused(store):
    with pytest.raises(ValueError, match="reason 'tired'"):
        adjudicate(store, "ada", "r1", "s0", "verifiable", True, "tired")


def test_a_ruling_on_a_yes_no_question_must_be_a_bool(store):
    with pytest.raises(ValueError, match="true or false"):
        adjudicate(store, "ada", "r1", "s0", "verifiable", "yes")


def test_the_latest_ruling_wins_and_undoing_it_brings_back_the_one_before(store):
    adjudicate(store, "ada", "r1", "s0", "verifiable", True)
    adjudicate(store, "ada", "r1", "s0", "verifiable", False, "ambiguous media")
    assert (
        rulings_from_events(store.events.current_labels())[
            ("r1", Unit.of_sentence(0), Task.parse("verifiable"))
        ].value
        is False
    )
    store.events.undo_last("ada")
    assert (
        rulings_from_events(store.events.current_labels())[
            ("r1", Unit.of_sentence(0), Task.parse("verifiable"))
        ].value
        is True
    )


def test_the_disputes_list_reads_time_on_item_from_the_events(store):
    (dispute,) = project_state(store).gold.disputes()
    assert dispute.spent_ms == {"alice": 4000, "bob": 1200}
    assert dispute.fast_annotators == ["bob"]


def test_the_gold_rule_comes_from_the_project_settings(store):
    store.set_setting("gold_rule", "unanimity")
    assert project_state(store).gold.rule == "unanimity"
    store.set_setting("gold_rule", "loudest")
    with pytest.raises(ValueError, match="gold_rule"):
        project_state(store)


def test_a_ruled_fact_list_becomes_gold_and_its_new_facts_await_entailment_rulings(store):
    adjudicate(store, "ada", "r1", "s0", "verifiable", True)
    adjudicate(store, "ada", "r1", "s0", "facts", [{"text": "A man points.", "citations": [0]}])
    gold = project_state(store).gold
    (gold_fact,) = gold.records[0].sentences[0].facts
    assert gold_fact.provenance["text"] == "adjudicated:ada"
    (waiting,) = [d for d in gold.disputes() if d.question == "all"]
    assert waiting.unit == Unit.of_fact(0, "A man points.", [0]) and waiting.segments == (0,)


def test_a_sentence_ruled_verifiable_that_nobody_decomposed_waits_for_a_fact_list_ruling(store):
    store.events.append("alice", "r1", "s0", "verifiable", False)
    adjudicate(store, "ada", "r1", "s0", "verifiable", True)
    (waiting,) = [d for d in project_state(store).gold.disputes() if d.question == "facts"]
    assert waiting.value is None and waiting.values == {}


def test_a_ruled_fact_list_must_pass_the_fact_list_checks(store):
    with pytest.raises(ValueError, match="cites nothing"):
        adjudicate(store, "ada", "r1", "s0", "facts", [{"text": "A man points.", "citations": []}])


def test_a_ruling_is_in_the_projects_gold_records_at_once_and_nothing_is_stored(store):
    adjudicate(store, "ada", "r1", "s0", "verifiable", False)
    (current,) = project_state(store).gold.records
    assert current.sentences[0].provenance == {"verifiable": "adjudicated:ada"}
    assert store.list_records("gold") == []


def test_imported_gold_counts_only_for_responses_nobody_labelled_in_the_project(store):
    store.add_responses([(Response("r9", "Unlabelled."), [])])
    store.add_records(
        [
            EvaluationRecord("r9", "gold", [Sentence("Unlabelled.", False)]),
            EvaluationRecord("r1", "gold", [Sentence("Imported, outvoted.", False)]),
        ]
    )
    adjudicate(store, "ada", "r1", "s0", "verifiable", False)
    by_response = {r.response_id: r for r in project_state(store).gold.records}
    assert by_response["r9"].sentences[0].text == "Unlabelled."
    assert by_response["r1"].sentences[0].provenance["verifiable"] == "adjudicated:ada"


def test_a_labelled_response_awaiting_a_ruling_has_no_gold_record_not_even_an_imported_one(store):
    store.add_records([EvaluationRecord("r1", "gold", [Sentence("Imported.", False)])])
    gold = project_state(store).gold  # alice and bob disagree on sentence 0, nobody ruled
    assert gold.records == [] and gold.awaiting["r1"].undecided == ("sentence 0: verifiable",)
    adjudicate(store, "ada", "r1", "s0", "verifiable", False)
    (ruled,) = project_state(store).gold.records
    assert ruled.sentences[0].provenance["verifiable"] == "adjudicated:ada"
    assert project_state(store).gold.awaiting == {}


def test_gold_csv_values_are_json():
    gold = derive_gold(
        [record("alice", True, [fact("A man points.")]), record("bob", True, [fact("A man points.")])]
    )
    rows = gold_csv_rows(gold.values)
    facts_row = next(r for r in rows if r["question"] == "facts")
    assert json.loads(facts_row["value"]) == [{"text": "A man points.", "citations": [0]}]


def test_staged_answers_about_gold_facts_count_for_the_gold_they_settle(store):
    # bob and carol split the sentence alike, so gold has their fact; alice's own split differs,
    # but in a staged campaign she answers stage 3 about the gold fact, and her answer counts.
    store.add_user("carol", "annotator", None)
    gold_fact = {"text": "A man points.", "citations": [0]}
    store.events.append("alice", "r1", "s0", "verifiable", True)  # alice and bob now agree
    store.events.append("bob", "r1", "s0", "verifiable", True)
    store.events.append("carol", "r1", "s0", "verifiable", True)
    store.events.append("alice", "r1", "s0", "facts", [{"text": "Someone gestures.", "citations": [0]}])
    store.events.append("bob", "r1", "s0", "facts", [gold_fact])
    store.events.append("carol", "r1", "s0", "facts", [gold_fact])
    unit = Unit.of_fact(0, gold_fact["text"], [0])
    for name, answer in (("alice", False), ("bob", False), ("carol", True)):
        store.events.append(name, "r1", unit, "all", answer)
    (all_value,) = [v for v in project_state(store).gold.values if v.question == "all"]
    assert all_value.values == {"alice": False, "bob": False, "carol": True}
    assert all_value.value is False and all_value.provenance == "majority 2/3"


def test_without_auto_acceptance_a_fact_list_everyone_gave_in_other_words_waits_for_a_ruling():
    records = [
        record("alice", True, [fact("A man points.")]),
        record("bob", True, [fact("The man is pointing.")]),
    ]
    confirmed = {("r1", Unit.of_sentence(0), Task.parse("verifiable")): Ruling("ada", True, None, 1)}
    gold = derive_gold(records, confirmed, auto_accept_unanimous=False)
    facts = value_of(gold, "facts")
    assert (facts.value, facts.provenance) == (None, "unresolved: unanimous 2/2, awaiting confirmation")
    assert facts in gold.disputes() and gold.awaiting["r1"].record.sentences[0].facts == []
    assert gold.records == []


def test_each_kind_of_provenance_is_counted_from_its_kind_not_its_words():
    # s0: alice and bob say verifiable, carol not (majority), nobody gave facts (unresolved);
    # s1: everyone says not verifiable (unanimous)
    gold = derive_gold([record("alice", True), record("bob", True), record("carol", False)])
    assert gold.counts() == {"majority": 1, "unresolved": 1, "unanimous": 1}
    assert [v.provenance_kind for v in gold.values] == ["majority", "unresolved", "unanimous"]


# -- can't tell (PROTOCOL §2) ----------------------------------------------------------------------
def cant_tell(text, cites=(0,)):
    """A fact whose `all` the person could not tell (null, with the reason in its provenance)."""
    return Fact(
        text, list(cites), Entailment(None, [None], [None]), {"all": "can't tell: the audio is inaudible"}
    )


def test_gold_takes_the_majority_of_the_answers_that_decided():
    records = [
        record("alice", True, [fact("A man points.", [0], True)]),
        record("bob", True, [cant_tell("A man points.")]),
        record("carol", True, [cant_tell("A man points.")]),
    ]
    gold = derive_gold(records)
    value = value_of(gold, "all")
    assert (value.value, value.provenance, value.needs_ruling) == (True, "unanimous 1/1", False)


def test_a_value_nobody_could_tell_stays_null_and_waits_for_a_ruling():
    records = [record(n, True, [cant_tell("A man points.")]) for n in ("alice", "bob")]
    gold = derive_gold(records)
    value = value_of(gold, "all")
    assert value.value is None and value.needs_ruling and value in gold.disputes()
    assert gold.records[0].sentences[0].facts[0].entailment.all is None


def test_a_value_not_yet_answered_is_not_listed_for_the_adjudicator():
    records = [record(n, True, [Fact("A man points.", [0])]) for n in ("alice", "bob")]
    assert [v for v in derive_gold(records).disputes() if v.question == "all"] == []
