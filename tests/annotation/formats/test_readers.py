"""Readers: rows and format detection, generation files, read_any; located errors."""

from __future__ import annotations

import json

import pytest
from reader_support import (
    DATA,
    generation_row,
    metric_row,
    problems_raised,
    write_json,
    write_jsonl,
    write_text,
)

from annotation.formats.readers import (
    detect_format,
    load_rows,
    read_any,
    read_generation_file,
)

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


def test_jsonl_whose_first_line_is_json_but_no_object_is_still_read_line_by_line(tmp_path):
    # read as one JSON document it was "line 2: not valid JSON (Extra data)": the fault is line 1's
    path = write_text(tmp_path, "g.jsonl", '"just a string"\n{"a": 2}\n{"a": 3}\n')
    assert load_rows(path) == [(1, False, "just a string"), (2, False, {"a": 2}), (3, False, {"a": 3})]


def test_jsonl_of_values_that_are_no_objects_is_still_read_line_by_line(tmp_path):
    # read as one JSON document (its first line a list) it was "line 2: not valid JSON (Extra data)"
    path = write_text(tmp_path, "g.jsonl", '[1,2]\n"str"\n')
    assert load_rows(path) == [(1, False, [1, 2]), (2, False, "str")]


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


@pytest.mark.parametrize(
    "name, expected",
    [
        ("generation_small.json", "generation"),
        ("metric_small.json", "metric"),
        ("records_small.jsonl", "records"),
    ],
)
def test_detect_format_tells_the_three_formats_apart_by_their_fields(name, expected):
    assert detect_format(DATA / name) == expected


def test_detect_format_sees_a_metric_file_whose_first_entry_the_pipeline_failed_on(tmp_path):
    path = write_json(tmp_path, "m.json", [generation_row(), metric_row({}, id="r2")])
    assert detect_format(path) == "metric"


def test_detect_format_of_rows_with_no_telling_field_is_an_input_error(tmp_path):
    path = write_jsonl(tmp_path, "x.jsonl", [{"question": "Q?"}])
    [problem] = problems_raised(detect_format, path)
    assert "cannot tell the format" in problem.message


def test_detect_format_names_each_row_that_is_not_an_object(tmp_path):
    path = write_text(tmp_path, "x.jsonl", '[1,2]\n"str"\n')
    problems = problems_raised(detect_format, path)
    assert [(p.line, p.entry, p.message) for p in problems] == [
        (1, False, "expected an object, got a list"),
        (2, False, "expected an object, got a string"),
    ]


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
    # the second object of the list, as a person counts (the index is 0-based)
    assert str(problem).endswith("item 2 of the list, field 'model_generation': missing")


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
    path = write_jsonl(
        tmp_path, "g.jsonl", [generation_row(id="r1"), generation_row(id="r2"), generation_row(id="r1")]
    )
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
    path = write_jsonl(
        tmp_path,
        "g.jsonl",
        [generation_row(video=...), generation_row(id="r2"), generation_row(id="r3", question=3, answer=1)],
    )
    problems = problems_raised(read_generation_file, path)
    assert [(p.line, p.field) for p in problems] == [(1, "video"), (3, "question"), (3, "answer")]


def test_skip_invalid_returns_the_valid_rows_and_one_problem_per_skipped_row(tmp_path):
    path = write_jsonl(
        tmp_path,
        "g.jsonl",
        [generation_row(video=...), generation_row(id="r2"), generation_row(id="r3", question=3, answer=1)],
    )
    result = read_generation_file(path, skip_invalid=True)
    assert [r.response_id for r in result.items] == ["r2"]
    assert [(p.line, p.field) for p in result.skipped] == [(1, "video"), (3, None)]
    assert "question: must be a string" in result.skipped[1].message
    assert "answer: must be a string or null" in result.skipped[1].message


def test_each_item_carries_the_line_it_came_from(tmp_path):
    path = write_text(
        tmp_path,
        "g.jsonl",
        json.dumps(generation_row(video=...)) + "\n\n" + json.dumps(generation_row(id="r2")) + "\n",
    )
    assert read_generation_file(path, skip_invalid=True).locations == [(3, False)]


def test_skip_invalid_skips_a_line_that_is_not_json(tmp_path):
    path = write_text(tmp_path, "g.jsonl", json.dumps(generation_row()) + "\n{broken\n")
    result = read_generation_file(path, skip_invalid=True)
    assert len(result.items) == 1 and [p.line for p in result.skipped] == [2]


def test_skip_invalid_keeps_the_first_of_two_rows_with_the_same_id(tmp_path):
    path = write_jsonl(
        tmp_path, "g.jsonl", [generation_row(question="first"), generation_row(question="second")]
    )
    result = read_generation_file(path, skip_invalid=True)
    assert [r.question for r in result.items] == ["first"]
    assert result.skipped[0].message == "duplicate id 'r1' (first at line 1)"


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
