"""A generation or metric row may name the model that wrote it (`model`): the response carries it
and its id becomes `{model}/{id}`, so models answering the same dataset rows do not clash."""

import pytest
from reader_support import generation_row, metric_row, problems_raised, worthy, write_jsonl

from annotation.formats.readers import read_any, read_generation_file


def test_a_row_naming_its_model_gives_the_response_that_model_and_a_model_scoped_id(tmp_path):
    path = write_jsonl(tmp_path, "g.jsonl", [generation_row(id="q1", model="omni-7b")])
    (response,) = read_generation_file(path).items
    assert (response.response_id, response.model) == ("omni-7b/q1", "omni-7b")
    assert "model" not in response.extra


def test_two_models_answering_the_same_row_are_two_responses(tmp_path):
    rows = [generation_row(id="q1", model="a"), generation_row(id="q1", model="b")]
    items = read_generation_file(write_jsonl(tmp_path, "g.jsonl", rows)).items
    assert [r.response_id for r in items] == ["a/q1", "b/q1"]


def test_the_same_model_answering_a_row_twice_is_still_a_duplicate(tmp_path):
    rows = [generation_row(id="q1", model="a"), generation_row(id="q1", model="a")]
    (problem,) = problems_raised(read_generation_file, write_jsonl(tmp_path, "g.jsonl", rows))
    assert (problem.line, problem.field) == (2, "id") and "a/q1" in problem.message


@pytest.mark.parametrize("model", ["", "  ", 3, ["a"]])
def test_a_model_that_is_not_a_name_is_a_located_problem(tmp_path, model):
    path = write_jsonl(tmp_path, "g.jsonl", [generation_row(model=model)])
    (problem,) = problems_raised(read_generation_file, path)
    assert (problem.line, problem.field) == (1, "model")


def test_a_metric_rows_record_follows_its_model_scoped_response_id(tmp_path):
    sentence = "A man waves (visual, 0:03)."
    path = write_jsonl(tmp_path, "m.jsonl", [metric_row({sentence: worthy(False)}, id="q1", model="a")])
    _, result = read_any(path)
    (entry,) = result.items
    assert entry.response.response_id == entry.record.response_id == "a/q1"
