"""`python -m calibration estimate` on the demo project (real SQLite, real media) and on projects
built in the test: the JSON contract from a real subprocess, the other runs in this process (the
same `main` that `python -m calibration` calls, without ≈ 2 CPU s of imports per run)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_support import run_in_process, run_process
from estimate_support import MODEL_KEYS

from annotation.demo.labellers import JUDGE_CONFIGS, judge_source
from annotation.demo.models import MODELS
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from annotation.work.sample_queues import annotation_response_ids, sample_queue
from calibration.cli.main import main as calibration_main
from calibration.estimates.inputs import scored_responses
from calibration.estimates.models import estimate_models


def run_subprocess(*args: str | Path) -> subprocess.CompletedProcess:
    return run_process("calibration", "estimate", *args)


def run_cli(*args: str | Path) -> subprocess.CompletedProcess:
    """As `run_subprocess`, in this process: exit code, stdout and stderr of `main`."""
    return run_in_process("calibration", "estimate", *args)


@pytest.fixture(scope="module")
def demo_dir(module_demo):
    return module_demo


@pytest.fixture(scope="module")
def demo_json(demo_dir):
    result = run_subprocess("--project", demo_dir, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_estimate_on_the_demo_gives_a_ppi_ci_narrower_than_the_human_only_ci_from_8_gold_on(demo_json):
    models = demo_json["models"]
    assert sorted(m["model"] for m in models) == sorted(MODELS)
    assert sorted(m["n_human"] for m in models) == [6, 8, 10]  # the demo's gold per model
    for m in models:
        assert m["ess_gain"] > 1 and 0 < m["lambda"] <= 1
        assert m["correction"] == pytest.approx(m["ppi_mean"] - m["judge_mean"])
        if m["n_human"] >= 8:
            assert m["ppi_ci"][1] - m["ppi_ci"][0] < m["human_ci"][1] - m["human_ci"][0], m["model"]
            assert m["no_ci_reason"] is None
        else:  # six gold responses: a mean, no interval, and why
            assert m["ppi_ci"] is None and m["human_ci"] is None
            assert "6 gold responses: an interval needs at least 8" in m["no_ci_reason"]


def test_estimate_json_has_exactly_the_contract_keys(demo_json):
    assert list(demo_json) == ["judge", "precision", "metric", "alpha", "models", "differences"]
    # what the numbers are: the judge with the most responses, its precision mode, the metric and level
    assert [demo_json[k] for k in ("precision", "metric", "alpha")] == ["individual", "murgat_s", 0.05]
    assert demo_json["judge"].startswith("judge:")
    assert all(list(m) == MODEL_KEYS for m in demo_json["models"])
    assert all(list(d) == ["a", "b", "paired", "ppi_diff", "ppi_ci"] for d in demo_json["differences"])
    assert len(demo_json["differences"]) == 3


def test_estimate_json_equals_the_estimates_of_the_strong_judge(demo_dir, demo_json):
    store = ProjectStore.open(demo_dir)
    source = judge_source(JUDGE_CONFIGS[0])
    expected = estimate_models(
        scored_responses(store, source, "individual"), judge=source, precision="individual"
    )
    assert demo_json == json.loads(json.dumps(expected.to_dict()))


def test_the_table_says_the_judge_only_mean_claims_no_ci_and_names_the_judge(demo_dir):
    result = run_cli("--project", demo_dir, "--alpha", "0.1")
    assert result.returncode == 0, result.stderr
    assert "PPI++ [90 % CI]" in result.stdout and "no CI is claimed" in result.stdout
    assert judge_source(JUDGE_CONFIGS[0]) in result.stderr


def test_a_part_of_murgat_s_is_estimated_with_metric(demo_dir, demo_json):
    result = run_cli("--project", demo_dir, "--json", "--metric", "coverage")
    coverage = json.loads(result.stdout)["models"]
    assert result.returncode == 0 and [m["model"] for m in coverage]
    assert {m["model"]: m["judge_mean"] for m in coverage} != {
        m["model"]: m["judge_mean"] for m in demo_json["models"]
    }


def test_plan_adds_each_models_more_gold_needed(demo_dir):
    result = run_cli("--project", demo_dir, "--json", "--plan", "0.05")
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)["plan"]
    assert [list(row) for row in plan] == [["model", "more_gold_needed", "assurance"]] * 3
    for row in plan:  # a count reached with probability ≥ .8, or out of reach with its probability
        needed = row["more_gold_needed"]
        assert (isinstance(needed, int) and needed > 0 and row["assurance"] >= 0.8) or (
            needed is None and row["assurance"] < 0.8
        )


def test_plan_with_queue_creates_the_queue_annotators_are_asked(demo_copy):
    result = run_cli("--project", demo_copy, "--json", "--plan", "0.05", "--queue", "next gold")
    assert result.returncode == 0, result.stderr
    store = ProjectStore.open(demo_copy)
    unlabelled = {
        m: sum(
            1
            for r in scored_responses(store, judge_source(JUDGE_CONFIGS[0]), "individual")
            if r.model == m and r.gold is None
        )
        for m in MODELS
    }
    plan = {  # out of reach: every unlabelled response of the model
        row["model"]: row["more_gold_needed"] or unlabelled[row["model"]]
        for row in json.loads(result.stdout)["plan"]
    }
    queued = sample_queue(store, "next gold")
    assert {m: sum(1 for _, s in queued if s == m) for m in plan} == plan
    assert set(annotation_response_ids(store)) >= {rid for rid, _ in queued}
    assert "queue 'next gold' created" in result.stderr


def test_the_same_queue_name_twice_is_refused(demo_copy):
    assert run_cli("--project", demo_copy, "--plan", "0.05", "--queue", "q").returncode == 0
    again = run_cli("--project", demo_copy, "--plan", "0.05", "--queue", "q")
    assert again.returncode == 2 and again.stdout == "" and "exists already" in again.stderr


@pytest.mark.parametrize(
    ("flags", "field"),
    [
        (["--alpha", "1.5"], "--alpha"),
        (["--plan", "-0.1"], "--plan"),
        (["--queue", "next"], "--queue"),
        (["--source", "judge:nobody"], "--source"),
    ],
)
def test_bad_arguments_exit_2_naming_the_flag(demo_dir, flags, field):
    result = run_cli("--project", demo_dir, *flags)
    assert result.returncode == 2 and result.stdout == "" and f"'{field}'" in result.stderr


def test_a_missing_project_exits_2(tmp_path):
    result = run_cli("--project", tmp_path / "nothing")
    assert result.returncode == 2 and "no project here" in result.stderr


def test_a_project_without_judge_records_exits_2(tmp_path):
    ProjectStore.open(tmp_path / "p", create=True).close()
    result = run_cli("--project", tmp_path / "p")
    assert result.returncode == 2 and "no judge records" in result.stderr


@pytest.fixture(scope="module")
def demo_calibrated(demo_dir, tmp_path_factory) -> Path:
    """The demo's calibrated configuration as `export` writes it: chosen on all 24 gold responses."""
    folder = tmp_path_factory.mktemp("calibrated")
    judges = folder / "judges.toml"
    judges.write_text(
        "".join(
            f'[judges.{name}]\nadapter = "openai"\nmodel = "{name}"\nbase_url = "http://127.0.0.1:9/v1"\n\n'
            for name in ("sim-strong", "sim-good", "sim-weak", "sim-random")
        )
    )
    calibrated = folder / "calibrated.json"
    argv = ["export", "--project", str(demo_dir), "--judges", str(judges), "--bootstrap", "200"]
    assert calibration_main([*argv, "--allow-undecided", "--out", str(calibrated)]) == 0
    return calibrated


def test_an_estimate_with_a_configuration_chosen_on_its_gold_is_cross_fitted_and_says_so(
    demo_dir, demo_calibrated
):
    result = run_cli("--project", demo_dir, "--calibrated", demo_calibrated, "--json")
    assert result.returncode == 0, result.stderr
    assert "judge:sim-strong+sim-strong+sim-strong [alce]" in result.stderr  # the calibrated judge and mode
    plain = run_cli(
        "--project", demo_dir, "--source", judge_source(JUDGE_CONFIGS[0]), "--precision", "alce", "--json"
    )
    cross_fitted = {m["model"]: m["ppi_mean"] for m in json.loads(result.stdout)["models"]}
    same_gold = {m["model"]: m["ppi_mean"] for m in json.loads(plain.stdout)["models"]}
    assert cross_fitted.keys() == same_gold.keys() and cross_fitted != same_gold


def test_each_models_cross_fit_note_counts_its_own_gold_the_configuration_was_chosen_on(
    demo_dir, demo_calibrated
):
    result = run_cli("--project", demo_dir, "--calibrated", demo_calibrated)
    assert result.returncode == 0, result.stderr
    # the demo's gold per model, every one of them among the 24 the export chose on
    for model, gold in (("sim-omni-large", 10), ("sim-omni-small", 8), ("sim-omni-tiny", 6)):
        assert (
            f"note: {model}: {gold} of its {gold} gold responses are among the 24 the configuration was "
            "chosen on — PPI++ cross-fitted" in result.stderr
        )


def test_a_configuration_chosen_on_part_of_the_gold_counts_each_models_part(
    demo_dir, demo_calibrated, tmp_path
):
    store = ProjectStore.open(demo_dir)
    rows = scored_responses(store, judge_source(JUDGE_CONFIGS[0]), "alce")
    store.close()
    labelled = {
        model: [r.response_id for r in rows if r.model == model and r.gold is not None] for model in MODELS
    }
    config = json.loads(demo_calibrated.read_text())
    # chosen on 3 of sim-omni-large's gold and 2 of sim-omni-small's: the rest was labelled after
    config["evidence"]["gold"]["response_ids"] = (
        labelled["sim-omni-large"][:3] + labelled["sim-omni-small"][:2]
    )
    part = tmp_path / "calibrated.json"
    part.write_text(json.dumps(config))
    result = run_cli("--project", demo_dir, "--calibrated", part)
    assert result.returncode == 0, result.stderr
    among = "gold responses are among the 5 the configuration was chosen on"
    assert f"note: sim-omni-large: 3 of its 10 {among} — PPI++ cross-fitted" in result.stderr
    assert f"note: sim-omni-small: 2 of its 8 {among} — PPI++ cross-fitted" in result.stderr
    assert f"note: sim-omni-tiny: 0 of its 6 {among} — PPI++ as usual: gold used once" in result.stderr


@pytest.mark.parametrize(
    ("flags", "field"),
    [
        (["--source", "judge:sim-weak+sim-good+sim-good"], "--source"),
        (["--precision", "necessity"], "--precision"),
    ],
)
def test_an_option_the_calibrated_configuration_names_is_refused_with_it(
    demo_dir, demo_calibrated, flags, field
):
    result = run_cli("--project", demo_dir, "--calibrated", demo_calibrated, *flags)
    assert result.returncode == 2 and result.stdout == ""
    assert f"field '{field}': not with --calibrated" in result.stderr


def test_responses_whose_gold_awaits_a_ruling_count_as_not_labelled_and_are_named_in_a_note(demo_copy):
    store = ProjectStore.open(demo_copy)
    store.set_setting("gold_rule", "unanimity")  # the demo's annotators disagree on some sentences
    gold = project_state(store).gold
    assert gold.awaiting
    source = judge_source(JUDGE_CONFIGS[0])
    rows = {r.response_id: r for r in scored_responses(store, source, "individual")}
    assert all(rows[rid].gold is None for rid in gold.awaiting)
    store.close()
    done = run_cli("--project", demo_copy, "--source", source, "--precision", "individual")
    assert done.returncode == 0, done.stderr
    assert f"note: gold: {gold.awaiting_note()} (here they count as not labelled)" in done.stderr
