"""Metric files (the reference judge output): conversion to records, located errors."""

from __future__ import annotations

import pytest
from reader_support import (
    DATA,
    generation_row,
    judged_fact,
    metric_row,
    problems_raised,
    worthy,
    write_json,
    write_jsonl,
)

from annotation.formats.metric_file import MetricEntry, read_metric_file
from annotation.protocol.citations import Citation
from annotation.protocol.errors import InputError
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence

# --- metric files ---------------------------------------------------------------------------------


def test_metric_entry_converts_to_the_expected_record():
    [entry] = read_metric_file(DATA / "metric_small.json").items
    assert isinstance(entry, MetricEntry)
    assert entry.record == EvaluationRecord(
        "ws-0001",
        "judge:metric_small",
        [
            Sentence(
                "The man speaks (audio, 0:01-0:03).",
                True,
                [Citation("audio", 1.0, 3.0, True, "audio, 0:01-0:03")],
                [Fact("A man speaks.", [0], Entailment(True, [True], [None]))],
            ),
            Sentence(
                "The man then waves (visual, 0:04).",
                True,
                [Citation("visual", 4.0, 4.0, True, "visual, 0:04")],
                [Fact("The man waves.", [0], Entailment(False, [False], [None]))],
            ),
            Sentence("So B.", False, [], []),
        ],
    )


def test_metric_entry_keeps_the_raw_row_and_its_response_score():
    [entry] = read_metric_file(DATA / "metric_small.json").items
    assert entry.response_score["final_score"] == 0.5
    assert entry.entry["decontextualized_text"].startswith("The man speaks")
    assert entry.response.extra == {"decontextualized_text": entry.entry["decontextualized_text"]}


def test_metric_judgements_align_with_each_fact_citation_in_order(tmp_path):
    sentence = "He talks and waves (visual, 0:03; audio, 0:03-0:05; audio, 0:09)."
    fact = judged_fact(
        "- He talks (audio, 0:09; visual, 0:03; audio, 0:03-0:05).",
        {"(visual, 0:03)": False, "(audio, 0:03-0:05)": True, "(audio, 0:09)": None},
        precision=0.5,
        recall=0.0,
    )
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({sentence: worthy(True, [fact])})])
    [converted] = read_metric_file(path).items[0].record.sentences[0].facts
    assert converted.citations == [2, 0, 1]
    assert converted.entailment == Entailment(False, [None, False, True], [None, None, None])


def test_metric_fact_citation_missing_from_the_sentence_is_appended_to_it(tmp_path):
    fact = judged_fact("- He waves (visual, 0:07).", {"(visual, 0:07)": True})
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves (visual, 0:03).": worthy(True, [fact])})])
    [sentence] = read_metric_file(path).items[0].record.sentences
    assert [(c.start, c.end) for c in sentence.citations] == [(3.0, 3.0), (7.0, 7.0)]
    assert sentence.facts[0].citations == [1]


def test_metric_judgement_key_matches_a_citation_written_differently(tmp_path):
    fact = judged_fact("- He waves (Video, 00:03).", {"(visual, 0:03)": True})
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves (visual, 0:03).": worthy(True, [fact])})])
    [converted] = read_metric_file(path).items[0].record.sentences[0].facts
    assert (converted.citations, converted.entailment.alone) == ([0], [True])


def test_metric_group_with_a_prose_part_keeps_the_judged_citation_and_an_invalid_one(tmp_path):
    # the reference reads each ';' part on its own; ours keeps the prose part as an invalid citation
    fact = judged_fact("- He waves (visual, 0:05; see above).", {"(visual, 0:05)": True})
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves.": worthy(True, [fact])})])
    [sentence] = read_metric_file(path).items[0].record.sentences
    assert [(c.modality, c.start, c.valid) for c in sentence.citations] == [
        ("visual", 5.0, True),
        ("", None, False),
    ]
    assert sentence.facts[0].entailment.alone == [True, None]


def test_metric_invalid_citation_is_matched_to_its_judgement_by_its_text(tmp_path):
    fact = judged_fact("- He waves (visual, 0:75).", {"(visual, 0:75)": False}, precision=0.0, recall=0.0)
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves (visual, 0:75).": worthy(True, [fact])})])
    [sentence] = read_metric_file(path).items[0].record.sentences
    assert not sentence.citations[0].valid
    assert (sentence.facts[0].citations, sentence.facts[0].entailment.alone) == ([0], [False])


def test_metric_null_recall_leaves_all_undetermined(tmp_path):
    fact = judged_fact("- He waves (visual, 0:03).", {"(visual, 0:03)": None}, precision=None, recall=None)
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves (visual, 0:03).": worthy(True, [fact])})])
    [converted] = read_metric_file(path).items[0].record.sentences[0].facts
    assert converted.entailment == Entailment(None, [None], [None])


def test_metric_fact_with_citations_but_no_judgements_is_left_undetermined(tmp_path):
    # the reference parser does not read H:MM:SS, so it scored the fact 0/0 with no judgements
    fact = judged_fact("- He waves (visual, 1:00:03).", {}, precision=0.0, recall=0.0)
    path = write_jsonl(
        tmp_path, "m.jsonl", [metric_row({"He waves (visual, 1:00:03).": worthy(True, [fact])})]
    )
    [converted] = read_metric_file(path).items[0].record.sentences[0].facts
    assert converted.entailment == Entailment(None, [None], [None])


def test_metric_fact_without_citations_is_not_entailed(tmp_path):
    fact = judged_fact("- He waves.", {}, precision=0.0, recall=0.0)
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves.": worthy(True, [fact])})])
    [converted] = read_metric_file(path).items[0].record.sentences[0].facts
    assert (converted.citations, converted.entailment) == ([], Entailment(False, [], []))


def test_metric_fact_without_scores_has_no_entailment(tmp_path):
    path = write_jsonl(
        tmp_path,
        "m.jsonl",
        [metric_row({"He waves (visual, 0:03).": worthy(True, [{"fact": "- He waves (visual, 0:03)."}])})],
    )
    [converted] = read_metric_file(path).items[0].record.sentences[0].facts
    assert (converted.citations, converted.entailment) == ([0], None)


def test_metric_null_prediction_gives_an_unjudged_sentence(tmp_path):
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves.": worthy(None)})])
    assert read_metric_file(path).items[0].record.sentences[0].verifiable is None


def test_metric_response_id_defaults_to_the_file_stem_and_entry_index(tmp_path):
    # as in generation files, so rows without `id` in two files of one import never collide
    path = write_json(tmp_path, "m.json", [metric_row({}, id="a"), metric_row({}, id=...)])
    assert [e.record.response_id for e in read_metric_file(path).items] == ["a", "m-1"]


def test_metric_source_can_be_named_by_the_caller(tmp_path):
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({})])
    assert read_metric_file(path, source="judge:gemini-3").items[0].record.source == "judge:gemini-3"


def test_a_caller_named_source_that_is_no_source_is_refused_naming_the_option(tmp_path):
    # stored as 'alice', the records were left out by every reader of human or judge sources
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({})])
    with pytest.raises(InputError, match="field '--source': 'alice' is not 'gold', 'human:<name>'"):
        read_metric_file(path, source="alice")


def test_metric_text_may_come_from_original_full_generation(tmp_path):
    path = write_jsonl(
        tmp_path, "m.jsonl", [metric_row({}, model_generation=..., original_full_generation="Hi.")]
    )
    assert read_metric_file(path).items[0].response.text == "Hi."


def test_metric_entry_the_pipeline_failed_on_is_a_problem(tmp_path):
    path = write_json(tmp_path, "m.json", [metric_row({}), generation_row(id="r2")])
    [problem] = problems_raised(read_metric_file, path)
    assert (problem.line, problem.entry, problem.field) == (1, True, "evaluations")


def test_metric_prediction_of_a_wrong_type_names_its_field_path(tmp_path):
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves.": worthy("yes")})])
    [problem] = problems_raised(read_metric_file, path)
    assert problem.field == 'evaluations["He waves."].verification_worthy.prediction'
    assert problem.message == "must be true, false or null, got a string"


def test_metric_sentence_without_verification_worthy_is_a_problem(tmp_path):
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves.": {"atomic_facts": []}})])
    [problem] = problems_raised(read_metric_file, path)
    assert (problem.field, problem.message) == ('evaluations["He waves."].verification_worthy', "missing")


def test_metric_precision_outside_zero_to_one_is_a_problem(tmp_path):
    fact = judged_fact("- He waves (visual, 0:03).", {"(visual, 0:03)": True}, precision=2)
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves (visual, 0:03).": worthy(True, [fact])})])
    [problem] = problems_raised(read_metric_file, path)
    assert problem.field == 'evaluations["He waves (visual, 0:03)."].atomic_facts[0].scores.precision'


def test_metric_judgement_that_is_not_a_boolean_is_a_problem(tmp_path):
    fact = judged_fact("- He waves (visual, 0:03).", {"(visual, 0:03)": "yes"})
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves (visual, 0:03).": worthy(True, [fact])})])
    [problem] = problems_raised(read_metric_file, path)
    assert problem.field.endswith('.scores.citation_judgments["(visual, 0:03)"]')


def test_metric_scores_without_citation_judgments_is_a_problem(tmp_path):
    fact = {"fact": "- He waves.", "scores": {"precision": 0.0, "recall": 0.0}}
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves.": worthy(True, [fact])})])
    [problem] = problems_raised(read_metric_file, path)
    assert (problem.field, problem.message) == (
        'evaluations["He waves."].atomic_facts[0].scores.citation_judgments',
        "missing",
    )


def test_metric_judgement_key_that_is_not_a_citation_is_a_problem(tmp_path):
    fact = judged_fact("- He waves (visual, 0:03).", {"visual at three": True})
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves (visual, 0:03).": worthy(True, [fact])})])
    [problem] = problems_raised(read_metric_file, path)
    assert problem.message == "is not one citation like '(visual, 0:05)'"


def test_metric_fact_without_text_is_a_problem(tmp_path):
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves.": worthy(True, [{"scores": None}])})])
    problems = problems_raised(read_metric_file, path)
    assert ('evaluations["He waves."].atomic_facts[0].fact', "missing") in [
        (p.field, p.message) for p in problems
    ]


def test_metric_long_sentence_key_is_shortened_in_the_field_path(tmp_path):
    key = "The man in the blue jacket walks slowly towards the red door."
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({key: worthy(1)})])
    [problem] = problems_raised(read_metric_file, path)
    assert (
        problem.field
        == 'evaluations["The man in the blue jacket walks slowly…"].verification_worthy.prediction'
    )


def test_metric_response_score_of_a_wrong_type_is_a_problem(tmp_path):
    row = metric_row({})
    row["response_score"] = {"final_score": "high"}
    path = write_jsonl(tmp_path, "m.jsonl", [row])
    [problem] = problems_raised(read_metric_file, path)
    assert (problem.field, problem.message) == (
        "response_score.final_score",
        "must be a number, got a string",
    )


def test_metric_duplicate_id_is_a_problem(tmp_path):
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({}), metric_row({})])
    [problem] = problems_raised(read_metric_file, path)
    assert (problem.line, problem.message) == (2, "duplicate id 'r1' (first at line 1)")
