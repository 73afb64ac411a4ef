"""Strict JSON reading (issue 12): what Python's json lets through is a located problem here,
every writer emits strict JSON, and no reader raises anything but InputError on any input."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reader_support import generation_row, problems_raised, write_text

from annotation.formats.atomic_file import write_text_atomically
from annotation.formats.json_values import strict_dumps
from annotation.formats.readers import (
    detect_format,
    load_rows,
    read_any,
    read_generation_file,
    read_metric_file,
    read_records_file,
    write_records_jsonl,
)
from annotation.formats.strict_json import MAX_DEPTH, StrictJSONError, loads
from annotation.protocol.errors import InputError
from annotation.protocol.records import EvaluationRecord, Sentence


def one_problem(tmp_path: Path, text: str, name: str = "g.jsonl"):
    [problem] = problems_raised(read_generation_file, write_text(tmp_path, name, text))
    return problem


def row_text(**changes) -> str:
    return json.dumps(generation_row(**changes))


# --- each refusal is located: line (or entry) and field ----------------------------------------


def test_a_duplicate_key_is_refused_naming_the_key_and_line(tmp_path):
    text = row_text() + "\n" + row_text(id="r2")[:-1] + ', "video": "../../etc/passwd"}\n'
    problem = one_problem(tmp_path, text)
    assert (problem.line, problem.field) == (2, "video")
    assert "appears twice" in problem.message


def test_a_second_evaluations_object_is_a_duplicate_key_not_an_empty_record(tmp_path):
    text = '{"id": "r1", "video": "v", "model_generation": "x", "evaluations": {"s": 1}, "evaluations": {}}'
    [problem] = problems_raised(read_metric_file, write_text(tmp_path, "m.jsonl", text))
    assert (problem.line, problem.field) == (1, "evaluations")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinities_are_not_json_numbers(tmp_path, constant):
    problem = one_problem(tmp_path, row_text()[:-1] + f', "score": {{"x": [1, {constant}]}}}}')
    assert (problem.line, problem.field) == (1, "score.x[1]")
    assert problem.message == f"{constant} is not a JSON number"


def test_a_number_past_a_double_is_refused(tmp_path):
    problem = one_problem(tmp_path, row_text()[:-1] + ', "weight": 1e400}')
    assert (problem.field, problem.message) == ("weight", "the number 1e400 is too large for JSON")


def test_an_integer_past_pythons_digit_limit_is_refused_in_our_words(tmp_path):
    problem = one_problem(tmp_path, row_text()[:-1] + ', "n": ' + "9" * 5000 + "}")
    assert (problem.field, problem.message) == ("n", "an integer of 5000 digits is too large (at most 308)")


def test_a_lone_surrogate_is_reported_at_the_field_that_holds_it(tmp_path):
    problem = one_problem(tmp_path, row_text(question="ok")[:-1] + ', "notes": ["fine", "bad \\ud800"]}')
    assert (problem.line, problem.field) == (1, "notes[1]")
    assert "lone surrogate" in problem.message


def test_a_lone_surrogate_in_a_key_is_shown_escaped(tmp_path):
    problem = one_problem(tmp_path, row_text()[:-1] + ', "k\\udc00": 1}')
    assert problem.field == '["k\\udc00"]'


def test_a_surrogate_pair_is_one_character_and_welcome(tmp_path):
    path = write_text(tmp_path, "g.jsonl", row_text()[:-1] + ', "emoji": "\\ud83d\\ude00"}')
    assert read_generation_file(path).items[0].extra["emoji"] == "\U0001f600"


def test_nesting_deeper_than_the_limit_is_refused_with_its_line(tmp_path):
    prefix = row_text(id="r2")[:-1] + ', "x": '
    deep = "[" * 5000 + "]" * 5000
    problem = one_problem(tmp_path, row_text() + "\n" + prefix + deep + "}\n")
    # the row's object is level 1, so the 64th '[' is the first level too deep
    column = len(prefix) + MAX_DEPTH
    assert (problem.line, problem.message) == (2, f"nested deeper than {MAX_DEPTH} levels (column {column})")


def test_nesting_deeper_than_the_limit_in_a_json_list_names_its_line(tmp_path):
    text = "[\n" + row_text() + ",\n" + "[" * 3000 + "]" * 3000 + "\n]"
    [problem] = problems_raised(read_generation_file, write_text(tmp_path, "g.json", text))
    # the file's list is level 1, so the 64th '[' of line 3 is the first level too deep
    assert (problem.line, problem.message) == (
        3,
        f"nested deeper than {MAX_DEPTH} levels (column {MAX_DEPTH})",
    )


def test_moderate_nesting_past_the_limit_is_refused_at_the_entry_and_field(tmp_path):
    value = json.loads("[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5))
    [problem] = problems_raised(
        read_generation_file, write_text(tmp_path, "g.json", json.dumps([generation_row(extra=value)]))
    )
    assert (problem.line, problem.entry, problem.field.startswith("extra[0][0]")) == (0, True, True)


def test_skip_invalid_skips_a_row_that_is_not_strict_json_and_keeps_the_rest(tmp_path):
    text = row_text() + "\n" + row_text(id="r2")[:-1] + ', "w": NaN}\n'
    result = read_generation_file(write_text(tmp_path, "g.jsonl", text), skip_invalid=True)
    assert ([r.response_id for r in result.items], [p.line for p in result.skipped]) == (["r1"], [2])


def test_loads_names_the_path_of_what_it_refuses():
    with pytest.raises(StrictJSONError, match=r"^a\[1\]\.b: NaN is not a JSON number$"):
        loads('{"a": [1, {"b": NaN}]}')


# --- writers ----------------------------------------------------------------------------------


def test_strict_dumps_refuses_nan():
    with pytest.raises(ValueError):
        strict_dumps({"x": math.nan})


def test_strict_dumps_refuses_a_lone_surrogate():
    with pytest.raises(ValueError, match="lone surrogate"):
        strict_dumps(["\ud800"])


def test_a_records_export_that_fails_leaves_the_existing_file_untouched(tmp_path):
    out = write_text(tmp_path, "out.jsonl", "what was there\n")
    bad = EvaluationRecord("r\ud800", "gold", [Sentence("x")])
    with pytest.raises(ValueError, match="lone surrogate"):
        write_records_jsonl([EvaluationRecord("r1", "gold", [Sentence("x")]), bad], out)
    assert out.read_text() == "what was there\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_an_atomic_write_replaces_the_file_whole_and_keeps_its_permissions(tmp_path):
    out = write_text(tmp_path, "out.txt", "old")
    out.chmod(0o600)
    write_text_atomically(out, "new")
    assert (out.read_text(), out.stat().st_mode & 0o777) == ("new", 0o600)


def test_records_written_read_back_equal(tmp_path):
    record = EvaluationRecord("r1", "gold", [Sentence("A man waves \u2028 (visual, 0:01).", True)])
    out = tmp_path / "out.jsonl"
    write_records_jsonl([record], out)
    assert read_records_file(out).items == [record]


# --- property: every reader, any bytes, any JSON value: a result or an InputError ----------------

READERS = (load_rows, detect_format, read_generation_file, read_metric_file, read_records_file, read_any)
KEYS = ["id", "video", "model_generation", "question", "options", "answer", "evaluations"]
KEYS += ["sentences", "response_id", "source", "citations", "facts", "text", "entailment", "alone"]
KEYS += ["verification_worthy", "prediction", "atomic_facts", "fact", "scores", "citation_judgments"]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and infinities included: json.dumps writes them
    st.text(max_size=30),
    st.sampled_from(["visual, 0:01", "(visual, 0:01)", "human:ann", "gold", "clip", "../x", "\ud800"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), inner, max_size=6),
    ),
    max_leaves=40,
)


def reads_or_refuses(data: bytes, name: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        for read in READERS:
            try:
                read(path)
            except InputError as exc:
                assert exc.problems and all(p.path == str(path) for p in exc.problems)


@settings(max_examples=150)
@given(st.binary(max_size=300), st.sampled_from(["f.json", "f.jsonl"]))
def test_every_reader_takes_any_bytes_without_a_traceback(data, name):
    reads_or_refuses(data, name)


@settings(max_examples=150)
@given(st.lists(json_values, min_size=1, max_size=4), st.booleans())
def test_every_reader_takes_any_json_values_without_a_traceback(values, as_list):
    text = json.dumps(values) if as_list else "\n".join(json.dumps(v) for v in values)
    reads_or_refuses(text.encode("utf-8", "surrogatepass"), "f.json" if as_list else "f.jsonl")
