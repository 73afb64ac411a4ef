"""`python -m calibration score` on files written in the test: by the same `main` in this process,
and as a real subprocess for its help and one exit code (tests/cli_support.py says why)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import ROOT, run_in_process, run_process


def json_lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def alice_record() -> dict:
    """Coverage 1/2; facts: one supported by its single citation, one by two redundant citations.

    R = 1. P: individual (1 + 1)/2 = 1; necessity (1 + 0)/2 = 1/2; alce (1 + 1)/2 = 1.
    MURGAT-S: individual 1/2, necessity 1/2 · (2/3) = 1/3, alce 1/2.
    """
    return {
        "response_id": "ws-1",
        "source": "human:alice",
        "sentences": [
            {
                "text": "The man speaks while waving (audio, 0:01; visual, 0:01).",
                "verifiable": True,
                "citations": [
                    {"modality": "audio", "start": 1.0, "end": 1.0},
                    {"modality": "visual", "start": 1.0, "end": 1.0},
                ],
                "facts": [
                    {
                        "text": "A man speaks.",
                        "citations": [0],
                        "entailment": {"all": True, "alone": [True], "without": [False]},
                    },
                    {
                        "text": "A man waves.",
                        "citations": [0, 1],
                        "entailment": {"all": True, "alone": [True, True], "without": [True, True]},
                    },
                ],
            },
            {"text": "A bell rings.", "verifiable": True, "citations": [], "facts": []},
            {"text": "So the answer is B.", "verifiable": False, "citations": [], "facts": []},
        ],
    }


def metric_row(evaluations: dict, **extra) -> dict:
    row = {
        "video": "clip.mp4",
        "question": "What happens?",
        "options": ["A. x", "B. y"],
        "answer": "B",
        "model_generation": "Reasoning.\nAnswer: B",
        "evaluations": evaluations,
    }
    row.update(extra)
    return row


def verifiable_sentence(fact: str, citation: str, precision, recall, judgment) -> dict:
    return {
        "verification_worthy": {"prediction": True, "prediction_raw": "yes"},
        "atomic_facts": [
            {
                "fact": f"- {fact} {citation}.",
                "scores": {
                    "precision": precision,
                    "recall": recall,
                    "citation_judgments": {citation: judgment},
                },
            }
        ],
    }


def metric_file(path: Path) -> Path:
    """Entry 0 (id ws-1): P = R = 1/2, coverage 1 → 0.5. Entry 1 (no id): 1.0, stored as 0.9."""
    first = metric_row(
        {
            "The man speaks (audio, 0:01-0:03).": verifiable_sentence(
                "A man speaks", "(audio, 0:01-0:03)", 1.0, 1.0, True
            ),
            "The man waves (visual, 0:04).": verifiable_sentence(
                "A man waves", "(visual, 0:04)", 0.0, 0.0, False
            ),
            "So B.": {"verification_worthy": {"prediction": False, "prediction_raw": "no"}},
        },
        id="ws-1",
    )
    second = metric_row(
        {"A dog barks (audio, 0:02).": verifiable_sentence("A dog barks", "(audio, 0:02)", 1.0, 1.0, True)},
        response_score={
            "coverage": 1.0,
            "attribution_precision": 1.0,
            "attribution_recall": 1.0,
            "citation_f1": 1.0,
            "final_score": 0.9,
        },
    )
    path.write_text(json.dumps([first, second]), encoding="utf-8")
    return path


def test_records_file_gives_one_json_line_per_response_and_mode(tmp_path):
    result = run_in_process(
        "calibration", "score", "--json", write_jsonl(tmp_path / "alice.jsonl", [alice_record()])
    )
    scores = {row["precision_mode"]: row["murgat_s"] for row in json_lines(result.stdout)}
    assert scores == pytest.approx({"individual": 0.5, "necessity": 1 / 3, "alce": 0.5})


def test_precision_option_keeps_one_mode(tmp_path):
    result = run_in_process(
        "calibration",
        "score",
        "--json",
        "--precision",
        "necessity",
        write_jsonl(tmp_path / "alice.jsonl", [alice_record()]),
    )
    assert [row["precision_mode"] for row in json_lines(result.stdout)] == ["necessity"]


def test_table_shows_mean_murgat_s_per_source_and_mode(tmp_path):
    result = run_in_process("calibration", "score", write_jsonl(tmp_path / "alice.jsonl", [alice_record()]))
    rows = [line.split() for line in result.stdout.splitlines()[1:]]
    assert [(row[0], row[1], row[3]) for row in rows] == [
        ("human:alice", "individual", "0.5000"),
        ("human:alice", "necessity", "0.3333"),
        ("human:alice", "alce", "0.5000"),
    ]


def unjudged_record() -> dict:
    """One cited verifiable sentence whose fact nobody judged: undetermined in every mode."""
    return {
        "response_id": "ws-2",
        "source": "human:alice",
        "sentences": [
            {
                "text": "A dog barks (audio, 0:02).",
                "verifiable": True,
                "citations": [{"modality": "audio", "start": 2.0, "end": 2.0}],
                "facts": [{"text": "A dog barks.", "citations": [0]}],
            }
        ],
    }


def test_an_undetermined_response_is_null_in_json_not_zero(tmp_path):
    result = run_in_process(
        "calibration",
        "score",
        "--json",
        "--precision",
        "alce",
        write_jsonl(tmp_path / "a.jsonl", [unjudged_record()]),
    )
    [row] = json_lines(result.stdout)
    assert (row["murgat_s"], row["f1"], row["precision"], row["recall"]) == (None, None, None, None)


def test_the_table_means_leave_undetermined_responses_out_and_count_them(tmp_path):
    path = write_jsonl(tmp_path / "a.jsonl", [alice_record(), unjudged_record()])
    result = run_in_process("calibration", "score", "--precision", "necessity", path)
    header, row = (line.split() for line in result.stdout.splitlines())
    assert (row[header.index("MURGAT-S")], row[-1]) == ("0.3333", "1")
    assert header[-2:] == ["undet.", "resp."]


def test_sentences_nobody_answered_stage_one_for_are_scored_as_not_verifiable_and_said_so(tmp_path):
    unfinished = alice_record()
    unfinished["sentences"][0]["verifiable"] = None  # alice has not labelled it yet
    unparsed = alice_record() | {"response_id": "ws-3", "source": "judge:flash"}
    unparsed["sentences"][2]["verifiable"] = None  # the verifier's reply did not parse
    path = write_jsonl(tmp_path / "a.jsonl", [unfinished, unparsed, alice_record() | {"response_id": "ws-4"}])
    result = run_in_process("calibration", "score", "--json", "--precision", "individual", path)
    scores = {(row["response_id"], row["source"]): row["murgat_s"] for row in json_lines(result.stdout)}
    assert scores == {
        ("ws-1", "human:alice"): 0.0,
        ("ws-3", "judge:flash"): 0.5,
        ("ws-4", "human:alice"): 0.5,
    }
    assert f"note: {path}: 2 response(s) hold sentences with no stage-1 answer" in result.stderr
    assert "(verifiable null; human:alice 1, judge:flash 1)" in result.stderr


def test_finished_records_get_no_note_on_stage_one(tmp_path):
    result = run_in_process("calibration", "score", write_jsonl(tmp_path / "a.jsonl", [alice_record()]))
    assert "stage-1" not in result.stderr


def test_metric_file_is_scored_per_entry_with_id_or_file_stem_and_index(tmp_path):
    result = run_in_process("calibration", "score", "--json", metric_file(tmp_path / "gemini_run.json"))
    rows = [(row["response_id"], row["source"], row["murgat_s"]) for row in json_lines(result.stdout)]
    assert rows == [("ws-1", "judge:gemini_run", 0.5), ("gemini_run-1", "judge:gemini_run", 1.0)]


def test_source_option_names_the_metric_file_judge(tmp_path):
    result = run_in_process(
        "calibration", "score", "--json", "--source", "judge:flash", metric_file(tmp_path / "run.json")
    )
    assert {row["source"] for row in json_lines(result.stdout)} == {"judge:flash"}


def test_metric_file_scored_in_all_modes_says_it_has_only_individual_judgements(tmp_path):
    result = run_in_process(
        "calibration", "score", "--json", "--precision", "all", metric_file(tmp_path / "run.json")
    )
    modes = {row["precision_mode"] for row in json_lines(result.stdout)}
    assert (modes, "only individual judgements" in result.stderr) == ({"individual"}, True)


def test_stored_response_score_that_disagrees_is_warned_about_by_entry(tmp_path):
    result = run_in_process("calibration", "score", metric_file(tmp_path / "run.json"))
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert (
        result.returncode,
        len(warnings),
        "item 2 of the list (id run-1)" in warnings[0],
        "final_score: stored 0.9, computed 1" in warnings[0],
    ) == (0, 1, True, True)


def test_bad_record_exits_2_naming_file_line_and_field_with_nothing_on_stdout(tmp_path):
    bad = alice_record()
    bad["sentences"][0]["verifiable"] = "yes"
    path = write_jsonl(tmp_path / "bad.jsonl", [alice_record() | {"source": "human:bob"}, bad])
    result = run_process("calibration", "score", path)
    assert (result.returncode, result.stdout) == (2, "")
    assert str(path) in result.stderr and "line 2" in result.stderr and "verifiable" in result.stderr


def test_problems_of_every_file_are_reported(tmp_path):
    first = tmp_path / "first.jsonl"
    first.write_text("{not json\n", encoding="utf-8")
    result = run_in_process("calibration", "score", first, tmp_path / "missing.jsonl")
    assert (result.returncode, "first.jsonl" in result.stderr, "missing.jsonl" in result.stderr) == (
        2,
        True,
        True,
    )


def test_a_response_of_one_source_in_two_files_is_refused_naming_both_places(tmp_path):
    # scored twice, it counted twice in its source's mean (responses 6 for 3 in the CLI walk)
    first = write_jsonl(tmp_path / "humans.jsonl", [alice_record()])
    redo = write_jsonl(tmp_path / "redo.jsonl", [alice_record() | {"source": "human:bob"}, alice_record()])
    result = run_in_process("calibration", "score", first, redo)
    assert (result.returncode, result.stdout) == (2, "")
    assert f"{redo}, line 2" in result.stderr and f"also in {first}, line 1" in result.stderr


def test_a_reader_that_stops_reading_ends_the_command_quietly(tmp_path):
    # `score --json | head -1`: it said "error: a file: Broken pipe" and exit 2
    rows = [alice_record() | {"response_id": f"ws-{i}"} for i in range(2000)]  # more than a pipe holds
    command = [
        sys.executable,
        "-m",
        "calibration",
        "score",
        "--json",
        str(write_jsonl(tmp_path / "a.jsonl", rows)),
    ]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert json.loads(proc.stdout.readline())["response_id"] == "ws-0"
    proc.stdout.close()  # as `head -1` does once it has its line
    assert (proc.wait(timeout=120), proc.stderr.read()) == (141, "")
    proc.stderr.close()


def test_generation_file_cannot_be_scored(tmp_path):
    path = tmp_path / "gen.json"
    path.write_text(
        json.dumps(
            [
                {
                    "id": "a",
                    "video": "v.mp4",
                    "question": "q",
                    "options": [],
                    "answer": "A",
                    "model_generation": "It rains.\nAnswer: A",
                }
            ]
        )
    )
    result = run_in_process("calibration", "score", path)
    assert (result.returncode, "carries no judgements" in result.stderr) == (2, True)


@pytest.mark.parametrize("args", [["--help"], ["score", "--help"]])
def test_help_is_available(args):
    result = run_process("calibration", *args)
    assert (result.returncode, "usage:" in result.stdout) == (0, True)
