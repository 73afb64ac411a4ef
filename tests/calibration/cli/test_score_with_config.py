"""`python -m calibration score --config`: a calibrated configuration scores new responses
through the judge runner, against the scripted judge server on 127.0.0.1 (tests/judge_server.py).

By the server's rules (see test_judges_run.py) r1's two facts are each entailed by their one
citation → MURGAT-S 1; r2's three facts each have one of two citations supporting them alone
(individual P = 1/2, R = 1) → F1 = 2/3, coverage 1 → MURGAT-S 2/3.
"""

from __future__ import annotations

import json

import pytest
from judge_server import RESPONSES, JudgeServer, make_project, make_video

from calibration.cli.main import main
from calibration.config.calibrated import CalibratedConfig, StageJudge, write_calibrated_config
from calibration.config.schema import SCHEMA_VERSION, STAGES
from calibration.judges.judges_file import load_judges, parse_configuration
from calibration.judges.runner import run_configurations
from calibration.scoring.murgat_s import score_records

EVIDENCE = {
    "pearson": 0.9,
    "pearson_ci": [0.8, 0.95],
    "n": 40,
    "best_set": [{"source": "judge:j+j+j", "precision_mode": "individual"}],
    "selection": {
        "method": "nested cross-validation, pooled within-fold correlation",
        "expected_r": 0.85,
        "optimism": 0.05,
    },
    "parity": {"advantage": None, "advantage_ci": [None, None], "winning_rate": None, "annotators": []},
    "runner_up": None,
    "gold": {"sha256": "0" * 64},
    "date": "2026-01-01",
    "tool_version": "0.1.0",
}


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    directory = tmp_path_factory.mktemp("media")
    make_video(directory / "clip.mp4")
    return directory


@pytest.fixture
def server():
    with JudgeServer() as running:
        yield running


@pytest.fixture
def files(tmp_path, media, server):
    """(generation file, judges file, calibrated file) for judge j at the server, individual mode."""
    generation = tmp_path / "generation.json"
    generation.write_text(
        json.dumps(
            [
                {
                    "id": rid,
                    "video": "clip.mp4",
                    "question": "What happens?",
                    "options": ["A. x", "B. y", "C. z"],
                    "answer": "B",
                    "model_generation": text,
                }
                for rid, text in RESPONSES.items()
            ]
        )
    )
    judges = write_judges(tmp_path / "judges.toml", server.base_url)
    judge = load_judges(judges)["j"]
    calibrated = tmp_path / "calibrated.json"
    write_calibrated_config(
        CalibratedConfig(
            SCHEMA_VERSION,
            "j+j+j",
            "individual",
            *(StageJudge.from_judge(s, judge) for s in STAGES),
            evidence=EVIDENCE,
            created_at="2026-01-01T00:00:00+00:00",
            tool_version="0.1.0",
        ),
        calibrated,
    )
    return generation, judges, calibrated


def write_judges(path, base_url, model="test-model", extra=""):
    path.write_text(
        f'[judges.j]\nadapter = "openai"\nmodel = "{model}"\nbase_urls = ["{base_url}"]\n'
        f"backoff_base_s = 0.001\n{extra}"
    )
    return path


def score_cli(tmp_path, media, generation, judges, calibrated, capsys, *extra):
    code = main(
        [
            "score",
            "--config",
            str(calibrated),
            "--project",
            str(tmp_path / "project"),
            "--judges",
            str(judges),
            "--media-root",
            str(media),
            *extra,
            str(generation),
        ]
    )
    out, err = capsys.readouterr()
    return code, out, err


def test_scores_equal_those_of_the_runners_own_records(tmp_path, media, files, server, capsys):
    code, out, _ = score_cli(tmp_path, media, *files, capsys, "--json")
    printed = {row["response_id"]: row for row in map(json.loads, out.splitlines())}
    judges = load_judges(files[1])
    store = make_project(tmp_path / "direct", media / "clip.mp4")
    records = run_configurations(
        store, judges, [parse_configuration("j+j+j", judges)], responses="all"
    ).records
    direct = {s.response_id: s.to_dict() for s in score_records(records, ["individual"])}
    assert code == 0 and printed == direct
    assert (printed["r1"]["murgat_s"], printed["r2"]["murgat_s"]) == (1.0, pytest.approx(2 / 3))
    assert {row["source"] for row in printed.values()} == {"judge:j+j+j"}


def test_scoring_the_same_file_again_makes_no_new_request(tmp_path, media, files, server, capsys):
    score_cli(tmp_path, media, *files, capsys)
    asked = len(server.log)
    code, out, err = score_cli(tmp_path, media, *files, capsys)
    assert (code, len(server.log)) == (0, asked)
    assert "calls made 0, cache hits 19" in err and "judge:j+j+j  individual          2    0.8333" in out
    # CLI walk: the records of a first scoring (or imported ones) were replaced without a word
    assert "note: 2 of these 2 responses already had a record of judge:j+j+j: this run's records" in err


def test_responses_whose_calls_fail_get_no_score_and_exit_1(tmp_path, media, files, server, capsys):
    generation, _, calibrated = files
    failing = write_judges(tmp_path / "failing.toml", server.base_url, extra="max_retries = 0\n")
    server.fail_next("500", n=1000)
    code, out, err = score_cli(tmp_path, media, generation, failing, calibrated, capsys, "--json")
    assert (code, out) == (1, "")
    assert "warning: r1: no record" in err and "warning: r2: no record" in err


def test_a_judges_file_with_another_model_is_refused_before_any_call(tmp_path, media, files, server, capsys):
    generation, _, calibrated = files
    other = write_judges(tmp_path / "other.toml", server.base_url, model="other-model")
    code, out, err = score_cli(tmp_path, media, generation, other, calibrated, capsys)
    assert (code, out, server.log) == (2, "", [])
    assert (
        f"{other}, line 3, field 'judges.j.model': is 'other-model' but the calibrated configuration "
        "used 'test-model'"
    ) in err
    assert not (tmp_path / "project").exists()


def test_a_judges_file_with_another_temperature_is_refused(tmp_path, media, files, server, capsys):
    generation, _, calibrated = files
    warmer = write_judges(tmp_path / "warmer.toml", server.base_url, extra="temperature = 0.7\n")
    code, _, err = score_cli(tmp_path, media, generation, warmer, calibrated, capsys)
    assert code == 2 and f"{warmer}, line 6, field 'judges.j.temperature': is 0.7" in err


def test_a_changed_prompt_is_refused(tmp_path, media, files, server, capsys):
    generation, judges, calibrated = files
    data = json.loads(calibrated.read_text())
    data["entailer"]["prompt_hash"] = "f" * 64
    calibrated.write_text(json.dumps(data))
    code, _, err = score_cli(tmp_path, media, generation, judges, calibrated, capsys)
    assert (code, server.log) == (2, [])
    assert "assets/prompts/entailment.md, field 'entailer.prompt_hash': the entailment prompt changed" in err


def test_a_records_file_is_refused_with_its_path(tmp_path, media, files, server, capsys):
    _, judges, calibrated = files
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"response_id": "r1", "source": "judge:x", "sentences": []}) + "\n")
    code, _, err = score_cli(tmp_path, media, records, judges, calibrated, capsys)
    assert code == 2 and f"{records}: a records file already carries judgements" in err


def test_config_without_project_or_judges_is_a_located_usage_error(tmp_path, files, capsys):
    generation, _, calibrated = files
    code = main(["score", "--config", str(calibrated), str(generation)])
    _, err = capsys.readouterr()
    assert code == 2
    assert "<arguments>, field '--project': --config needs it" in err
    assert "<arguments>, field '--judges': --config needs it" in err


def test_a_broken_calibrated_file_is_refused_with_its_field(tmp_path, media, files, capsys):
    generation, judges, calibrated = files
    data = json.loads(calibrated.read_text())
    data["precision_mode"] = "best"
    calibrated.write_text(json.dumps(data, indent=2))
    code, _, err = score_cli(tmp_path, media, generation, judges, calibrated, capsys)
    assert code == 2 and f"{calibrated}, line 4, field 'precision_mode': must be one of" in err


def test_project_option_without_config_is_refused(tmp_path, files, capsys):
    assert main(["score", "--project", str(tmp_path), str(files[0])]) == 2
    assert "field '--project': goes with --config" in capsys.readouterr().err
