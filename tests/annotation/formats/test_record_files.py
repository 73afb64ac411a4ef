"""Evaluation-record files: validation with located errors, and a written file reads back."""

from __future__ import annotations

import io
import json

import pytest
from reader_support import (
    DATA,
    problems_raised,
    record_dict,
    write_jsonl,
)

from annotation.formats.readers import read_records_file, write_records_jsonl
from annotation.formats.record_schema import validate_record
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence

# --- evaluation records ----------------------------------------------------------------------------


def test_protocol_example_record_has_no_problems():
    assert validate_record(record_dict()) == []


def test_record_fact_citation_index_out_of_range_is_named_by_its_path():
    record = record_dict()
    record["sentences"][0]["facts"][0]["citations"] = [0, 2]
    record["sentences"][0]["facts"][0]["entailment"] = {
        "all": True,
        "alone": [True, None],
        "without": [None, None],
    }
    assert validate_record(record) == [
        ("sentences[0].facts[0].citations[1]", "index 2 is out of range: the sentence has 2 citations")
    ]


def test_record_alone_length_must_match_the_fact_citations():
    record = record_dict()
    record["sentences"][0]["facts"][0]["entailment"]["alone"] = [True]
    assert validate_record(record) == [
        ("sentences[0].facts[0].entailment.alone", "has 1 values but the fact has 2 citations")
    ]


def test_record_entailment_without_a_without_list_is_a_problem():
    record = record_dict()
    del record["sentences"][0]["facts"][0]["entailment"]["without"]
    [(path, message)] = validate_record(record)
    assert path == "sentences[0].facts[0].entailment.without" and message.startswith("missing")


def test_record_valid_citation_with_an_unknown_modality_is_a_problem():
    record = record_dict()
    record["sentences"][0]["citations"][1]["modality"] = "speech"
    assert validate_record(record) == [
        ("sentences[0].citations[1].modality", "unknown modality 'speech' (expected 'visual' or 'audio')")
    ]


def test_record_citation_starting_after_it_ends_is_a_problem():
    record = record_dict()
    record["sentences"][0]["citations"][1].update(start=15.0, end=14.0)
    assert validate_record(record) == [("sentences[0].citations[1]", "start 15.0 is after end 14.0")]


def test_record_citation_time_written_as_text_is_a_problem():
    record = record_dict()
    record["sentences"][0]["citations"][0]["start"] = "0:12"
    assert validate_record(record) == [
        ("sentences[0].citations[0].start", "must be a number of seconds >= 0, got '0:12'")
    ]


def test_record_invalid_citation_may_have_no_times_and_any_modality():
    assert validate_record(json.loads((DATA / "records_small.jsonl").read_text().splitlines()[1])) == []


def test_record_source_must_be_gold_human_or_judge():
    assert validate_record(record_dict(source="alice")) == [
        ("source", "'alice' is not 'gold', 'human:<name>' or 'judge:<name>'")
    ]


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
    assert validate_record(record) == [
        ("sentences[0].verifiable", "must be true, false or null, got a string")
    ]


def test_records_file_reads_into_evaluation_records():
    records = read_records_file(DATA / "records_small.jsonl").items
    assert [(r.response_id, r.source) for r in records] == [
        ("ws-0042", "human:alice"),
        ("ws-0042", "judge:gemini"),
    ]
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
    with pytest.raises(
        ValueError, match=r"record 1 \(r2, gold\): sentences\[0\]\.facts\[0\]\.citations\[0\]"
    ):
        write_records_jsonl([EvaluationRecord("r1", "gold", []), bad], tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()
