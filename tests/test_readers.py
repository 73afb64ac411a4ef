"""Readers for generation, metric and evaluation-record files: located errors, conversions."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from annotation.citations import Citation
from annotation.errors import InputError
from annotation.readers import (
    MetricEntry,
    detect_format,
    load_rows,
    read_any,
    read_generation_file,
    read_metric_file,
    read_records_file,
    validate_record,
    write_records_jsonl,
)
from annotation.records import Entailment, EvaluationRecord, Fact, Sentence

DATA = Path(__file__).parent / "data"


def write_text(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def write_jsonl(tmp_path: Path, name: str, rows: list) -> Path:
    return write_text(tmp_path, name, "".join(json.dumps(row) + "\n" for row in rows))


def write_json(tmp_path: Path, name: str, value: object) -> Path:
    return write_text(tmp_path, name, json.dumps(value, indent=2))


def problems_raised(read, *args, **kwargs) -> list:
    with pytest.raises(InputError) as caught:
        read(*args, **kwargs)
    return caught.value.problems


def generation_row(**changes) -> dict:
    row = {"id": "r1", "video": "v.mp4", "question": "Q?", "options": ["A. x", "B. y"], "answer": "B",
           "model_generation": "A man waves (visual, 0:03).\nAnswer: B"}
    row.update(changes)
    return {k: v for k, v in row.items() if v is not ...}


def metric_row(evaluations: dict, **changes) -> dict:
    row = generation_row(**changes)
    row["evaluations"] = evaluations
    return row


def judged_fact(fact: str, judgments: dict, precision=1.0, recall=1.0) -> dict:
    return {"fact": fact, "scores": {"precision": precision, "recall": recall, "citation_judgments": judgments}}


def worthy(prediction, facts=None) -> dict:
    data = {"verification_worthy": {"prediction": prediction, "prediction_raw": "x"}}
    if facts is not None:
        data["atomic_facts"] = facts
    return data


def record_dict(**changes) -> dict:
    record = {"response_id": "ws-0042", "source": "human:alice", "sentences": [
        {"text": "The man points while speaking (visual, 0:12; audio, 0:12-0:14).", "verifiable": True,
         "citations": [{"modality": "visual", "start": 12.0, "end": 12.0},
                       {"modality": "audio", "start": 12.0, "end": 14.0}],
         "facts": [{"text": "The man speaks.", "citations": [0, 1],
                    "entailment": {"all": True, "alone": [False, True], "without": [True, False]}}]}]}
    record.update(changes)
    return record


# --- rows and format detection ---------------------------------------------------------------

def test_json_list_rows_are_numbered_by_entry_index(tmp_path):
    path = write_json(tmp_path, "g.json", [{"a": 1}, {"a": 2}])
    assert load_rows(path) == [(0, True, {"a": 1}), (1, True, {"a": 2})]


def test_jsonl_rows_are_numbered_by_line_and_blank_lines_are_ignored(tmp_path):
    path = write_text(tmp_path, "g.jsonl", '{"a": 1}\n\n{"a": 2}\n')
    assert load_rows(path) == [(1, False, {"a": 1}), (3, False, {"a": 2})]


def test_pretty_printed_single_object_is_entry_zero(tmp_path):
    path = write_json(tmp_path, "g.json", {"a": 1, "b": [1, 2]})
    assert load_rows(path) == [(0, True, {"a": 1, "b": [1, 2]})]


def test_jsonl_is_detected_by_content_not_by_extension(tmp_path):
    path = write_text(tmp_path, "named_like.json", '{"a": 1}\n{"a": 2}\n')
    assert [line for line, _, _ in load_rows(path)] == [1, 2]


def test_every_bad_jsonl_line_is_reported_with_its_line_number(tmp_path):
    path = write_text(tmp_path, "g.jsonl", '{"a": 1}\n{"a": \n{"a": 3}\n{oops}\n')
    problems = problems_raised(load_rows, path)
    assert [(p.line, p.entry) for p in problems] == [(2, False), (4, False)]
    assert "line 2" in str(problems[0]) and "not valid JSON" in str(problems[0])


def test_jsonl_with_a_bad_first_line_is_still_read_line_by_line(tmp_path):
    path = write_text(tmp_path, "g.jsonl", '{"a": 1,}\n{"a": 2}\n')
    assert [p.line for p in problems_raised(load_rows, path)] == [1]


def test_bad_json_is_reported_with_line_and_column(tmp_path):
    path = write_text(tmp_path, "g.json", '[\n  {"a": 1},\n  {"a" 2}\n]\n')
    [problem] = problems_raised(load_rows, path)
    assert (problem.line, problem.entry) == (3, False)
    assert "column 8" in problem.message


def test_empty_file_is_an_input_error(tmp_path):
    path = write_text(tmp_path, "g.jsonl", "  \n\n")
    [problem] = problems_raised(load_rows, path)
    assert "empty" in problem.message and problem.path == str(path)


def test_utf8_byte_order_mark_is_tolerated(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + '{"a": "é"}\n'.encode())
    assert load_rows(path) == [(1, False, {"a": "é"})]


def test_file_that_is_not_utf8_names_the_line(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": "\xff"}\n')
    [problem] = problems_raised(load_rows, path)
    assert problem.line == 2 and "UTF-8" in problem.message


def test_missing_file_is_an_input_error(tmp_path):
    [problem] = problems_raised(load_rows, tmp_path / "nowhere.json")
    assert "cannot read" in problem.message


def test_json_scalar_is_not_a_file_of_rows(tmp_path):
    path = write_text(tmp_path, "g.json", "42")
    [problem] = problems_raised(load_rows, path)
    assert "got a number" in problem.message


def test_line_separator_inside_a_jsonl_string_does_not_split_the_row(tmp_path):
    path = write_text(tmp_path, "g.jsonl", '{"a": "x\u2028y"}\n{"a": 2}\n')
    assert load_rows(path) == [(1, False, {"a": "x\u2028y"}), (2, False, {"a": 2})]


@pytest.mark.parametrize("name, expected", [("generation_small.json", "generation"),
                                            ("metric_small.json", "metric"),
                                            ("records_small.jsonl", "records")])
def test_detect_format_tells_the_three_formats_apart_by_their_fields(name, expected):
    assert detect_format(DATA / name) == expected


def test_detect_format_sees_a_metric_file_whose_first_entry_the_pipeline_failed_on(tmp_path):
    path = write_json(tmp_path, "m.json", [generation_row(), metric_row({}, id="r2")])
    assert detect_format(path) == "metric"


def test_detect_format_of_rows_with_no_telling_field_is_an_input_error(tmp_path):
    path = write_jsonl(tmp_path, "x.jsonl", [{"question": "Q?"}])
    [problem] = problems_raised(detect_format, path)
    assert "cannot tell the format" in problem.message


# --- generation files ----------------------------------------------------------------------------

def test_generation_row_becomes_a_response_with_unknown_fields_in_extra():
    [first, _] = read_generation_file(DATA / "generation_small.json").items
    assert (first.response_id, first.video, first.answer) == ("ws-0001", "clip_0001.mp4", "B")
    assert first.options[1] == "B. He waves"
    assert first.extra == {"task_type": "action"}


def test_think_blocks_in_model_generation_survive_in_response_text():
    [first, _] = read_generation_file(DATA / "generation_small.json").items
    assert first.text.startswith("<think>The man talks first, then...</think>Reasoning:")


def test_generation_row_without_id_is_named_by_file_stem_and_index():
    [_, second] = read_generation_file(DATA / "generation_small.json").items
    assert second.response_id == "generation_small-1"


def test_generation_missing_model_generation_names_the_entry_and_field(tmp_path):
    path = write_json(tmp_path, "g.json", [generation_row(), generation_row(id="r2", model_generation=...)])
    [problem] = problems_raised(read_generation_file, path)
    assert (problem.line, problem.entry, problem.field) == (1, True, "model_generation")
    assert str(problem).endswith("entry 1, field 'model_generation': missing")


def test_generation_blank_model_generation_is_a_problem(tmp_path):
    path = write_jsonl(tmp_path, "g.jsonl", [generation_row(model_generation="  \n")])
    [problem] = problems_raised(read_generation_file, path)
    assert (problem.line, problem.field, problem.message) == (1, "model_generation", "must not be empty")


def test_generation_missing_video_names_the_line_and_field(tmp_path):
    path = write_jsonl(tmp_path, "g.jsonl", [generation_row(), generation_row(id="r2", video=...)])
    [problem] = problems_raised(read_generation_file, path)
    assert (problem.line, problem.entry, problem.field) == (2, False, "video")


def test_generation_option_that_is_not_a_string_names_its_position(tmp_path):
    path = write_jsonl(tmp_path, "g.jsonl", [generation_row(options=["A. x", 2])])
    [problem] = problems_raised(read_generation_file, path)
    assert (problem.field, problem.message) == ("options[1]", "must be a string, got a number")


def test_generation_answer_must_be_a_string_or_null(tmp_path):
    path = write_jsonl(tmp_path, "g.jsonl", [generation_row(answer=2)])
    [problem] = problems_raised(read_generation_file, path)
    assert problem.field == "answer"


def test_generation_id_of_a_wrong_type_is_a_problem(tmp_path):
    path = write_jsonl(tmp_path, "g.jsonl", [generation_row(id=True)])
    [problem] = problems_raised(read_generation_file, path)
    assert (problem.field, problem.message) == ("id", "must be a string or an integer, got a boolean")


def test_generation_duplicate_id_names_both_places(tmp_path):
    path = write_jsonl(tmp_path, "g.jsonl", [generation_row(id="r1"), generation_row(id="r2"),
                                             generation_row(id="r1")])
    [problem] = problems_raised(read_generation_file, path)
    assert (problem.line, problem.field) == (3, "id")
    assert problem.message == "duplicate id 'r1' (first at line 1)"


def test_generation_integer_id_becomes_a_string(tmp_path):
    path = write_jsonl(tmp_path, "g.jsonl", [generation_row(id=7)])
    assert read_generation_file(path).items[0].response_id == "7"


def test_generation_row_that_is_not_an_object_is_a_problem(tmp_path):
    path = write_json(tmp_path, "g.json", [generation_row(), ["not", "a", "row"]])
    [problem] = problems_raised(read_generation_file, path)
    assert (problem.line, problem.field, problem.message) == (1, None, "expected an object, got a list")


def test_reader_reports_every_problem_of_the_file_at_once(tmp_path):
    path = write_jsonl(tmp_path, "g.jsonl", [generation_row(video=...), generation_row(id="r2"),
                                             generation_row(id="r3", question=3, answer=1)])
    problems = problems_raised(read_generation_file, path)
    assert [(p.line, p.field) for p in problems] == [(1, "video"), (3, "question"), (3, "answer")]


def test_skip_invalid_returns_the_valid_rows_and_one_problem_per_skipped_row(tmp_path):
    path = write_jsonl(tmp_path, "g.jsonl", [generation_row(video=...), generation_row(id="r2"),
                                             generation_row(id="r3", question=3, answer=1)])
    result = read_generation_file(path, skip_invalid=True)
    assert [r.response_id for r in result.items] == ["r2"]
    assert [(p.line, p.field) for p in result.skipped] == [(1, "video"), (3, None)]
    assert "question: must be a string" in result.skipped[1].message
    assert "answer: must be a string or null" in result.skipped[1].message


def test_each_item_carries_the_line_it_came_from(tmp_path):
    path = write_text(tmp_path, "g.jsonl", json.dumps(generation_row(video=...)) + "\n\n"
                      + json.dumps(generation_row(id="r2")) + "\n")
    assert read_generation_file(path, skip_invalid=True).locations == [(3, False)]


def test_skip_invalid_skips_a_line_that_is_not_json(tmp_path):
    path = write_text(tmp_path, "g.jsonl", json.dumps(generation_row()) + "\n{broken\n")
    result = read_generation_file(path, skip_invalid=True)
    assert len(result.items) == 1 and [p.line for p in result.skipped] == [2]


def test_skip_invalid_keeps_the_first_of_two_rows_with_the_same_id(tmp_path):
    path = write_jsonl(tmp_path, "g.jsonl", [generation_row(question="first"), generation_row(question="second")])
    result = read_generation_file(path, skip_invalid=True)
    assert [r.question for r in result.items] == ["first"]
    assert result.skipped[0].message == "duplicate id 'r1' (first at line 1)"


# --- metric files ---------------------------------------------------------------------------------

def test_metric_entry_converts_to_the_expected_record():
    [entry] = read_metric_file(DATA / "metric_small.json").items
    assert isinstance(entry, MetricEntry)
    assert entry.record == EvaluationRecord("ws-0001", "judge:metric_small", [
        Sentence("The man speaks (audio, 0:01-0:03).", True,
                 [Citation("audio", 1.0, 3.0, True, "audio, 0:01-0:03")],
                 [Fact("A man speaks.", [0], Entailment(True, [True], [None]))]),
        Sentence("The man then waves (visual, 0:04).", True,
                 [Citation("visual", 4.0, 4.0, True, "visual, 0:04")],
                 [Fact("The man waves.", [0], Entailment(False, [False], [None]))]),
        Sentence("So B.", False, [], []),
    ])


def test_metric_entry_keeps_the_raw_row_and_its_response_score():
    [entry] = read_metric_file(DATA / "metric_small.json").items
    assert entry.response_score["final_score"] == 0.5
    assert entry.entry["decontextualized_text"].startswith("The man speaks")
    assert entry.response.extra == {"decontextualized_text": entry.entry["decontextualized_text"]}


def test_metric_judgements_align_with_each_fact_citation_in_order(tmp_path):
    sentence = "He talks and waves (visual, 0:03; audio, 0:03-0:05; audio, 0:09)."
    fact = judged_fact("- He talks (audio, 0:09; visual, 0:03; audio, 0:03-0:05).",
                       {"(visual, 0:03)": False, "(audio, 0:03-0:05)": True, "(audio, 0:09)": None},
                       precision=0.5, recall=0.0)
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


def test_metric_judged_citation_our_parser_does_not_see_is_kept(tmp_path):
    # the reference reads each ';' part on its own; ours rejects a group with a non-citation part
    fact = judged_fact("- He waves (visual, 0:05; see above).", {"(visual, 0:05)": True})
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves.": worthy(True, [fact])})])
    [sentence] = read_metric_file(path).items[0].record.sentences
    assert [(c.modality, c.start) for c in sentence.citations] == [("visual", 5.0)]
    assert sentence.facts[0].entailment.alone == [True]


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
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves (visual, 1:00:03).": worthy(True, [fact])})])
    [converted] = read_metric_file(path).items[0].record.sentences[0].facts
    assert converted.entailment == Entailment(None, [None], [None])


def test_metric_fact_without_citations_is_not_entailed(tmp_path):
    fact = judged_fact("- He waves.", {}, precision=0.0, recall=0.0)
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves.": worthy(True, [fact])})])
    [converted] = read_metric_file(path).items[0].record.sentences[0].facts
    assert (converted.citations, converted.entailment) == ([], Entailment(False, [], []))


def test_metric_fact_without_scores_has_no_entailment(tmp_path):
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves (visual, 0:03).":
                                                         worthy(True, [{"fact": "- He waves (visual, 0:03)."}])})])
    [converted] = read_metric_file(path).items[0].record.sentences[0].facts
    assert (converted.citations, converted.entailment) == ([0], None)


def test_metric_null_prediction_gives_an_unjudged_sentence(tmp_path):
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves.": worthy(None)})])
    assert read_metric_file(path).items[0].record.sentences[0].verifiable is None


def test_metric_response_id_defaults_to_the_entry_index(tmp_path):
    path = write_json(tmp_path, "m.json", [metric_row({}, id="a"), metric_row({}, id=...)])
    assert [e.record.response_id for e in read_metric_file(path).items] == ["a", "1"]


def test_metric_source_can_be_named_by_the_caller(tmp_path):
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({})])
    assert read_metric_file(path, source="judge:gemini-3").items[0].record.source == "judge:gemini-3"


def test_metric_text_may_come_from_original_full_generation(tmp_path):
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({}, model_generation=..., original_full_generation="Hi.")])
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
        'evaluations["He waves."].atomic_facts[0].scores.citation_judgments', "missing")


def test_metric_judgement_key_that_is_not_a_citation_is_a_problem(tmp_path):
    fact = judged_fact("- He waves (visual, 0:03).", {"visual at three": True})
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves (visual, 0:03).": worthy(True, [fact])})])
    [problem] = problems_raised(read_metric_file, path)
    assert problem.message == "is not one citation like '(visual, 0:05)'"


def test_metric_fact_without_text_is_a_problem(tmp_path):
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({"He waves.": worthy(True, [{"scores": None}])})])
    problems = problems_raised(read_metric_file, path)
    assert ('evaluations["He waves."].atomic_facts[0].fact', "missing") in [(p.field, p.message) for p in problems]


def test_metric_long_sentence_key_is_shortened_in_the_field_path(tmp_path):
    key = "The man in the blue jacket walks slowly towards the red door."
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({key: worthy(1)})])
    [problem] = problems_raised(read_metric_file, path)
    assert problem.field == 'evaluations["The man in the blue jacket walks slowly…"].verification_worthy.prediction'


def test_metric_response_score_of_a_wrong_type_is_a_problem(tmp_path):
    row = metric_row({})
    row["response_score"] = {"final_score": "high"}
    path = write_jsonl(tmp_path, "m.jsonl", [row])
    [problem] = problems_raised(read_metric_file, path)
    assert (problem.field, problem.message) == ("response_score.final_score", "must be a number, got a string")


def test_metric_duplicate_id_is_a_problem(tmp_path):
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({}), metric_row({})])
    [problem] = problems_raised(read_metric_file, path)
    assert (problem.line, problem.message) == (2, "duplicate id 'r1' (first at line 1)")


# --- evaluation records ----------------------------------------------------------------------------

def test_protocol_example_record_has_no_problems():
    assert validate_record(record_dict()) == []


def test_record_fact_citation_index_out_of_range_is_named_by_its_path():
    record = record_dict()
    record["sentences"][0]["facts"][0]["citations"] = [0, 2]
    record["sentences"][0]["facts"][0]["entailment"] = {"all": True, "alone": [True, None], "without": [None, None]}
    assert validate_record(record) == [("sentences[0].facts[0].citations[1]",
                                        "index 2 is out of range: the sentence has 2 citations")]


def test_record_alone_length_must_match_the_fact_citations():
    record = record_dict()
    record["sentences"][0]["facts"][0]["entailment"]["alone"] = [True]
    assert validate_record(record) == [("sentences[0].facts[0].entailment.alone",
                                        "has 1 values but the fact has 2 citations")]


def test_record_entailment_without_a_without_list_is_a_problem():
    record = record_dict()
    del record["sentences"][0]["facts"][0]["entailment"]["without"]
    [(path, message)] = validate_record(record)
    assert path == "sentences[0].facts[0].entailment.without" and message.startswith("missing")


def test_record_valid_citation_with_an_unknown_modality_is_a_problem():
    record = record_dict()
    record["sentences"][0]["citations"][1]["modality"] = "speech"
    assert validate_record(record) == [("sentences[0].citations[1].modality",
                                        "unknown modality 'speech' (expected 'visual' or 'audio')")]


def test_record_citation_starting_after_it_ends_is_a_problem():
    record = record_dict()
    record["sentences"][0]["citations"][1].update(start=15.0, end=14.0)
    assert validate_record(record) == [("sentences[0].citations[1]", "start 15.0 is after end 14.0")]


def test_record_citation_time_written_as_text_is_a_problem():
    record = record_dict()
    record["sentences"][0]["citations"][0]["start"] = "0:12"
    assert validate_record(record) == [("sentences[0].citations[0].start",
                                        "must be a number of seconds >= 0, got '0:12'")]


def test_record_invalid_citation_may_have_no_times_and_any_modality():
    assert validate_record(json.loads((DATA / "records_small.jsonl").read_text().splitlines()[1])) == []


def test_record_source_must_be_gold_human_or_judge():
    assert validate_record(record_dict(source="alice")) == [
        ("source", "'alice' is not 'gold', 'human:<name>' or 'judge:<name>'")]


def test_record_without_response_id_is_a_problem():
    record = record_dict()
    del record["response_id"]
    assert validate_record(record) == [("response_id", "missing")]


def test_record_fact_listing_a_citation_twice_is_a_problem():
    record = record_dict()
    record["sentences"][0]["facts"][0]["citations"] = [1, 1]
    assert validate_record(record) == [("sentences[0].facts[0].citations[1]", "index 1 is listed twice")]


def test_record_verifiable_must_be_a_boolean_or_null():
    record = record_dict()
    record["sentences"][0]["verifiable"] = "yes"
    assert validate_record(record) == [("sentences[0].verifiable", "must be true, false or null, got a string")]


def test_records_file_reads_into_evaluation_records():
    records = read_records_file(DATA / "records_small.jsonl").items
    assert [(r.response_id, r.source) for r in records] == [("ws-0042", "human:alice"), ("ws-0042", "judge:gemini")]
    assert records[0].sentences[0].facts[1].entailment == Entailment(True, [False, True], [True, False])


def test_records_file_problem_names_the_line_and_the_field_path(tmp_path):
    bad = record_dict()
    bad["sentences"][0]["facts"][0]["citations"] = [0, 5]
    path = write_jsonl(tmp_path, "r.jsonl", [record_dict(source="gold"), bad])
    [problem] = problems_raised(read_records_file, path)
    assert (problem.line, problem.field) == (2, "sentences[0].facts[0].citations[1]")
    assert "line 2, field 'sentences[0].facts[0].citations[1]'" in str(problem)


def test_records_file_with_a_repeated_response_and_source_is_a_problem(tmp_path):
    path = write_jsonl(tmp_path, "r.jsonl", [record_dict(), record_dict(source="gold"), record_dict()])
    [problem] = problems_raised(read_records_file, path)
    assert (problem.line, problem.field) == (3, "response_id")
    assert problem.message == "duplicate (response_id, source) pair 'ws-0042, human:alice' (first at line 1)"


def test_records_written_then_read_come_back_equal(tmp_path):
    records = read_records_file(DATA / "records_small.jsonl").items
    assert write_records_jsonl(records, tmp_path / "out.jsonl") == 2
    assert read_records_file(tmp_path / "out.jsonl").items == records


def test_write_records_to_an_open_file_writes_one_line_per_record():
    buffer = io.StringIO()
    write_records_jsonl([EvaluationRecord("r1", "gold", [])], buffer)
    assert buffer.getvalue() == '{"response_id": "r1", "source": "gold", "sentences": []}\n'


def test_write_records_refuses_an_invalid_record_before_writing_anything(tmp_path):
    bad = EvaluationRecord("r2", "gold", [Sentence("S.", True, [], [Fact("F.", [3])])])
    with pytest.raises(ValueError, match=r"record 1 \(r2, gold\): sentences\[0\]\.facts\[0\]\.citations\[0\]"):
        write_records_jsonl([EvaluationRecord("r1", "gold", []), bad], tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()


# --- read_any ---------------------------------------------------------------------------------------

def test_read_any_detects_the_format_and_reads_with_its_reader():
    fmt, result = read_any(DATA / "metric_small.json", source="judge:x")
    assert fmt == "metric" and result.items[0].record.source == "judge:x"


def test_read_any_with_a_named_format_validates_against_that_format():
    problems = problems_raised(read_any, DATA / "generation_small.json", fmt="metric")
    assert [(p.line, p.field) for p in problems] == [(0, "evaluations"), (1, "evaluations")]


def test_read_any_rejects_an_unknown_format_name():
    with pytest.raises(ValueError, match="unknown format 'csv'"):
        read_any(DATA / "metric_small.json", fmt="csv")
