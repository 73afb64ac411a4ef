"""calibration.config.calibrated and `python -m calibration export`: the calibrated-configuration file."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest
from judge_server import JudgeServer, make_project, make_video

from annotation.formats.readers import write_records_jsonl
from annotation.protocol.citations import Citation
from annotation.protocol.errors import InputError
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence
from calibration.cli.export import add_export_parser
from calibration.config.calibrated import (
    CalibratedConfig,
    build_calibrated_config,
    gold_sha256,
    read_calibrated_config,
    write_calibrated_config,
)
from calibration.config.costs import cheapest_choice, configuration_costs
from calibration.config.schema import SCHEMA_VERSION
from calibration.judges.judges_file import JudgeConfig, parse_configuration
from calibration.judges.runner import run_configurations
from calibration.sweep.run import run_sweep

VISUAL = Citation("visual", 1.0, 1.0)
URL = ("http://127.0.0.1:9/v1",)
JUDGES = {"a": JudgeConfig("a", "openai", "model-a", URL), "b": JudgeConfig("b", "openai", "model-b", URL)}


def sentence(index: int, supported: bool) -> Sentence:
    return Sentence(
        f"Thing {index} happens (visual, 0:01).",
        True,
        [VISUAL],
        [Fact(f"thing {index} happens", [0], Entailment(supported, [supported], [False]))],
    )


def dataset(n: int = 30, facts: int = 5, seed: int = 0) -> tuple[list, list]:
    """Gold, a good judge a+a+a (5 % of facts flipped), a fair b+b+b (35 %), and a+gold+gold
    (gold's own labels: perfect, but not exportable)."""
    rng = np.random.default_rng(seed)
    gold, judges = [], []
    for i in range(n):
        truth = [bool(t) for t in rng.random(facts) < rng.random()]
        rid = f"r{i:02d}"
        gold.append(EvaluationRecord(rid, "gold", [sentence(j, t) for j, t in enumerate(truth)]))
        for source, share in (("judge:a+a+a", 0.05), ("judge:b+b+b", 0.35), ("judge:a+gold+gold", 0.0)):
            flags = [t != bool(rng.random() < share) for t in truth]
            judges.append(EvaluationRecord(rid, source, [sentence(j, f) for j, f in enumerate(flags)]))
    return gold, judges


def exportable(judges):
    return [r for r in judges if "gold" not in r.source]


@pytest.fixture(scope="module")
def swept():
    gold, judges = dataset()
    return gold, judges, run_sweep(gold, exportable(judges), modes=("individual", "alce"), n_boot=300)


@pytest.fixture
def written(tmp_path, swept):
    gold, _, report = swept
    path = tmp_path / "calibrated.json"
    write_calibrated_config(build_calibrated_config(report, None, JUDGES, gold), path)
    return path


def rewrite(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))
    return path.read_text().splitlines()


# --- build -----------------------------------------------------------------------------------


def test_written_configuration_reads_back_equal(tmp_path, swept):
    gold, _, report = swept
    cfg = build_calibrated_config(report, None, JUDGES, gold)
    write_calibrated_config(cfg, tmp_path / "c.json")
    assert read_calibrated_config(tmp_path / "c.json") == cfg


def test_default_choice_is_the_best_with_each_stage_judge_described(swept):
    gold, _, report = swept
    cfg = build_calibrated_config(report, None, JUDGES, gold)
    assert (cfg.schema_version, cfg.configuration, cfg.source) == (SCHEMA_VERSION, "a+a+a", "judge:a+a+a")
    assert cfg.precision_mode == report.best.precision_mode
    assert [(s.stage, s.name, s.model) for s in cfg.stages] == [
        ("verifier", "a", "model-a"),
        ("decomposer", "a", "model-a"),
        ("entailer", "a", "model-a"),
    ]
    assert cfg.entailer.prompt_file == "assets/prompts/entailment.md"


def test_evidence_numbers_are_the_sweeps_own(swept):
    gold, _, report = swept
    evidence = build_calibrated_config(report, None, JUDGES, gold).evidence
    best = report.best
    assert (evidence["pearson"], evidence["pearson_ci"], evidence["n"], evidence["p_best"]) == (
        best.pearson,
        list(best.pearson_ci),
        best.n,
        best.p_best,
    )
    others = sorted((c for c in report.configs if c is not best), key=lambda c: -c.pearson)
    assert evidence["runner_up"]["source"] == others[0].source
    assert evidence["runner_up"]["in_best_set"] == others[0].in_best_set
    other_judges = next(c for c in others if c.source != best.source)
    assert (evidence["runner_up_other_judges"]["source"], evidence["runner_up_other_judges"]["pearson"]) == (
        "judge:b+b+b",
        other_judges.pearson,
    )
    assert evidence["gold"] == {
        "sha256": gold_sha256(gold),
        "n_responses": 30,
        "source": "gold",
        "n_undetermined": 0,
        "response_ids": sorted(r.response_id for r in gold),
    }


def annotated(n: int = 20):
    """dataset(n) plus three annotators who flip 10 % of the gold facts; bob did not finish r00–r02."""
    gold, judges = dataset(n=n)
    rng = np.random.default_rng(5)
    humans = []
    for name in ("ann", "bob", "cy"):
        for g in gold:
            flips = [s.facts[0].entailment.all != bool(rng.random() < 0.1) for s in g.sentences]
            sentences = [sentence(j, f) for j, f in enumerate(flips)]
            if name == "bob" and g.response_id < "r03":
                sentences[0] = Sentence(sentences[0].text, None, sentences[0].citations)  # unfinished
            humans.append(EvaluationRecord(g.response_id, f"human:{name}", sentences))
    return gold, judges, humans


def test_exported_evidence_holds_parity_the_best_set_and_the_expected_r():
    gold, judges, humans = annotated()
    report = run_sweep(gold, exportable(judges), modes=("individual",), humans=humans, n_boot=200)
    evidence = build_calibrated_config(report, None, JUDGES, gold).evidence
    assert evidence["parity"] == report.best.to_dict()["parity"]
    assert [a["source"] for a in evidence["parity"]["annotators"]] == ["human:ann", "human:bob", "human:cy"]
    assert [(m["source"], m["precision_mode"]) for m in evidence["best_set"]] == [
        (m["source"], m["precision_mode"]) for m in report.best_set
    ]
    assert evidence["selection"]["expected_r"] == report.selection["expected_r"]
    assert evidence["selection"]["method"] == "nested cross-validation, pooled within-fold correlation"
    assert [(a["source"], a["n_finished"]) for a in evidence["annotators"]] == [
        ("human:ann", 20),
        ("human:bob", 17),
        ("human:cy", 20),
    ]


def test_a_version_1_file_is_still_read(written):
    def to_version_1(data):
        data["schema_version"] = 1
        data["evidence"].update(heldout_pearson=0.8, human_ceiling=None)
        data["evidence"]["runner_up"]["p_vs_best"] = 0.01

    rewrite(written, to_version_1)
    assert read_calibrated_config(written).schema_version == 1


def test_a_configuration_with_a_gold_stage_is_refused():
    gold, judges = dataset(n=12)
    report = run_sweep(gold, judges, modes=("individual",), n_boot=50)
    with_gold = next(c for c in report.configs if c.source == "judge:a+gold+gold")
    with pytest.raises(ValueError, match="gold labels as its decomposer and entailer"):
        build_calibrated_config(report, with_gold, JUDGES, gold)


def test_a_configuration_naming_a_judge_missing_from_the_judges_file_is_refused(swept):
    gold, _, report = swept
    with pytest.raises(ValueError, match="unknown judge"):
        build_calibrated_config(report, None, {"b": JUDGES["b"]}, gold)


def test_gold_hash_does_not_depend_on_record_order():
    gold, _ = dataset(n=8)
    assert gold_sha256(gold) == gold_sha256(list(reversed(gold)))


def test_gold_hash_changes_when_one_gold_label_changes():
    gold, _ = dataset(n=8)
    changed = (
        gold[:3]
        + [
            EvaluationRecord(
                gold[3].response_id,
                "gold",
                [sentence(0, not gold[3].sentences[0].facts[0].entailment.all), *gold[3].sentences[1:]],
            )
        ]
        + gold[4:]
    )
    assert gold_sha256(changed) != gold_sha256(gold)


# --- read and validate -----------------------------------------------------------------------


def test_every_problem_of_a_bad_file_is_located(written):
    def spoil(data):
        data["precision_mode"] = "best"
        data["entailer"]["prompt_hash"] = "abc"
        del data["evidence"]["n"]
        data["colour"] = "red"

    lines = rewrite(written, spoil)
    with pytest.raises(InputError) as caught:
        read_calibrated_config(written)
    found = {p.field: p for p in caught.value.problems}
    assert set(found) == {"precision_mode", "entailer.prompt_hash", "evidence.n", "colour"}
    assert all(p.path == str(written) for p in found.values())
    assert lines[found["precision_mode"].line - 1].strip().startswith('"precision_mode": "best"')
    assert lines[found["entailer.prompt_hash"].line - 1].strip() == '"prompt_hash": "abc"'
    assert "must be one of individual, necessity, alce" in found["precision_mode"].message


def test_a_file_naming_gold_as_a_stage_judge_is_refused(written):
    def to_gold(data):
        data["decomposer"]["name"] = "gold"
        data["configuration"] = "a+gold+a"

    rewrite(written, to_gold)
    with pytest.raises(InputError, match=r"field 'decomposer.name': is 'gold' \(human labels\)"):
        read_calibrated_config(written)


@pytest.mark.parametrize(
    "named", ["../../etc/passwd", "assets/prompts/decompose.md", "/tmp/verifiability.md"]
)
def test_a_stage_naming_another_prompt_file_than_its_own_is_refused_where_it_says_so(written, named):
    lines = rewrite(written, lambda data: data["verifier"].update(prompt_file=named))
    with pytest.raises(InputError) as refused:
        read_calibrated_config(written)
    (problem,) = refused.value.problems
    assert problem.field == "verifier.prompt_file" and lines[problem.line - 1].strip().startswith(
        '"prompt_file"'
    )
    assert "must be 'assets/prompts/verifiability.md'" in problem.message and named in problem.message


def test_each_stage_is_written_with_its_own_prompt_file(written):
    data = json.loads(written.read_text())
    assert [data[stage]["prompt_file"] for stage in ("verifier", "decomposer", "entailer")] == [
        "assets/prompts/verifiability.md",
        "assets/prompts/decompose.md",
        "assets/prompts/entailment.md",
    ]


def test_a_configuration_that_disagrees_with_its_stages_is_refused(written):
    rewrite(written, lambda data: data.update(configuration="b+a+a"))
    with pytest.raises(
        InputError, match="field 'configuration': is 'b\\+a\\+a' but its stages say 'a\\+a\\+a'"
    ):
        read_calibrated_config(written)


def test_a_newer_schema_version_is_refused(written):
    rewrite(written, lambda data: data.update(schema_version=SCHEMA_VERSION + 1))
    with pytest.raises(InputError, match="written by a newer version of this tool"):
        read_calibrated_config(written)


def test_invalid_json_reports_its_line(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{\n  "schema_version": 1,\n  "configuration": oops\n}\n')
    with pytest.raises(InputError) as caught:
        read_calibrated_config(path)
    assert (caught.value.problems[0].path, caught.value.problems[0].line) == (str(path), 3)


def test_writing_an_invalid_configuration_is_refused(tmp_path, swept):
    gold, _, report = swept
    cfg = build_calibrated_config(report, None, JUDGES, gold)
    broken = CalibratedConfig(**{**cfg.__dict__, "precision_mode": "best"})
    with pytest.raises(ValueError, match="precision_mode"):
        write_calibrated_config(broken, tmp_path / "c.json")
    assert not (tmp_path / "c.json").exists()


# --- the export command ----------------------------------------------------------------------


def judges_toml(path, models=(("a", "model-a"), ("b", "model-b")), prices=None, base_url=URL[0]):
    prices = prices or {}
    path.write_text(
        "".join(
            f'[judges.{name}]\nadapter = "openai"\nmodel = "{model}"\nbase_urls = ["{base_url}"]\n'
            + (
                f"price_in_per_1k = {prices[name][0]}\nprice_out_per_1k = {prices[name][1]}\n"
                if name in prices
                else ""
            )
            for name, model in models
        )
    )
    return path


def export(argv) -> int:
    parser = argparse.ArgumentParser()
    add_export_parser(parser.add_subparsers())
    args = parser.parse_args(["export", *argv])
    return args.func(args)


def test_export_refuses_an_unknown_precision_mode_before_any_sweep(tmp_path, capsys):
    # it was refused only after the whole sweep had run (CLI walk: --mode ALCE)
    with pytest.raises(SystemExit) as refused:
        export(["--project", str(tmp_path / "nowhere"), "--choose", "hand", "--mode", "ALCE"])
    assert refused.value.code == 2 and "invalid choice: 'ALCE'" in capsys.readouterr().err


def test_export_from_files_leaves_gold_stages_out_and_writes_the_best(tmp_path, capsys):
    gold, judges = dataset()
    write_records_jsonl(gold, tmp_path / "gold.jsonl")
    write_records_jsonl(judges, tmp_path / "judges.jsonl")
    code = export(
        [
            "--gold",
            str(tmp_path / "gold.jsonl"),
            "--judges-records",
            str(tmp_path / "judges.jsonl"),
            "--judges",
            str(judges_toml(tmp_path / "judges.toml")),
            "--bootstrap",
            "200",
            "--out",
            str(tmp_path / "calibrated.json"),
        ]
    )
    out, err = capsys.readouterr()
    cfg = read_calibrated_config(tmp_path / "calibrated.json")
    assert code == 0 and cfg.configuration == "a+a+a" and cfg.evidence["n_configurations"] == 6
    assert "note: judge:a+gold+gold left out: configuration 'a+gold+gold' uses the gold labels" in err
    assert out.startswith(f"exported judge:a+a+a [{cfg.precision_mode}] to {tmp_path / 'calibrated.json'}")


def test_export_cheapest_without_a_project_is_refused_and_writes_nothing(tmp_path, capsys):
    gold, judges = dataset(n=6)
    write_records_jsonl(gold, tmp_path / "gold.jsonl")
    write_records_jsonl(judges, tmp_path / "judges.jsonl")
    code = export(
        [
            "--gold",
            str(tmp_path / "gold.jsonl"),
            "--judges-records",
            str(tmp_path / "judges.jsonl"),
            "--judges",
            str(judges_toml(tmp_path / "judges.toml")),
            "--choose",
            "cheapest",
            "--out",
            str(tmp_path / "calibrated.json"),
        ]
    )
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert "<arguments>, field '--choose': 'cheapest' needs --project" in err
    assert not (tmp_path / "calibrated.json").exists()


# --- cheapest: prices × recorded tokens, on a real project and a real judge server ---------------

CHEAP_RESPONSES = {  # scripted judge scores (individual): 1, 2/3, 0, 1/2, 1, 0
    "r1": "The man waves his hand (visual, 0:01-0:02). He says hello (audio, 0:01-0:03).\nAnswer: B",
    "r2": (
        "A red ball rolls and a bell rings (visual, 0:02; audio, 0:02-0:04). "
        "The ball stops (visual, 0:05; visual, 0:75).\nAnswer: C"
    ),
    "r3": "The woman says yes (visual, 0:01). Hence A.\nAnswer: A",
    "r4": "A dog barks (audio, 0:01-0:02). The cat sleeps (visual, 0:03).\nAnswer: A",
    "r5": "A light blinks (visual, 0:02).\nAnswer: B",
    "r6": "The crowd cheers (audio, 0:01-0:02).\nAnswer: C",
}


@pytest.fixture(scope="module")
def priced_project(tmp_path_factory):
    """Judges a (dear) and b (cheap) serve the same model, so a+a+a and b+b+b answer alike;
    gold is their record with r4's dog barking supported."""
    directory = tmp_path_factory.mktemp("priced")
    store = make_project(directory / "project", make_video(directory / "clip.mp4"), CHEAP_RESPONSES)
    with JudgeServer() as server:
        prices = {"a": (0.010, 0.020), "b": (0.001, 0.002)}
        judges_toml(
            directory / "judges.toml", (("a", "test-model"), ("b", "test-model")), prices, server.base_url
        )
        from calibration.judges.judges_file import load_judges

        judges = load_judges(directory / "judges.toml")
        run_configurations(
            store, judges, [parse_configuration(c, judges) for c in ("a+a+a", "b+b+b")], responses="all"
        )
    gold = []
    for record in store.list_records(source="judge:a+a+a"):
        if record.response_id == "r4":
            record.sentences[0].facts[0].entailment = Entailment(True, [True], [False])
        gold.append(EvaluationRecord(record.response_id, "gold", record.sentences))
    store.add_records(gold)
    yield store, judges, gold
    store.close()


def test_cheapest_choice_takes_the_cheaper_of_two_judges_that_answer_alike(priced_project):
    store, judges, gold = priced_project
    report = run_sweep(gold, store.list_records("judge"), modes=("individual",), n_boot=200, folds=2)
    assert report.best.source == "judge:a+a+a"
    assert cheapest_choice(report, judges, store).source == "judge:b+b+b"


def test_cost_per_response_is_recorded_tokens_times_prices(priced_project):
    store, judges, gold = priced_project
    report = run_sweep(gold, store.list_records("judge"), modes=("individual",), n_boot=50, folds=2)
    rows = list(
        store.database.query(
            "SELECT COUNT(*) AS calls, SUM(tokens_in) AS t_in, SUM(tokens_out) AS t_out "
            "FROM judge_calls WHERE response IS NOT NULL"
        )
    )[0]
    costs = configuration_costs(report, judges, store)
    cheap = costs["judge:b+b+b"]
    assert (cheap.calls, cheap.n_responses, cheap.calls_not_recorded) == (rows["calls"], 6, 0)
    assert cheap.cost_per_response == pytest.approx((rows["t_in"] * 0.001 + rows["t_out"] * 0.002) / 1000 / 6)
    assert costs["judge:a+a+a"].cost_per_response == pytest.approx(10 * cheap.cost_per_response)


def test_export_cheapest_from_a_project_writes_the_cheaper_judges(priced_project, tmp_path, capsys):
    store, _, _ = priced_project
    out_path = tmp_path / "calibrated.json"
    code = export(
        [
            "--project",
            str(store.directory),
            "--judges",
            str(store.directory.parent / "judges.toml"),
            "--choose",
            "cheapest",
            "--precision",
            "individual",
            "--bootstrap",
            "200",
            "--folds",
            "2",
            "--allow-undecided",  # two configurations, both in the set: the gold cannot decide
            "--out",
            str(out_path),
        ]
    )
    capsys.readouterr()
    cfg = read_calibrated_config(out_path)
    assert cfg.evidence["decision"]["undecided"] and cfg.evidence["decision"]["acknowledged"]
    assert code == 0 and (cfg.configuration, cfg.evidence["chosen_by"], cfg.evidence["is_best"]) == (
        "b+b+b",
        "cheapest",
        False,
    )
    assert cfg.evidence["best"]["source"] == "judge:a+a+a"


def export_args(store, out_path, *extra) -> list[str]:
    return [
        "--project",
        str(store.directory),
        "--judges",
        str(store.directory.parent / "judges.toml"),
        "--precision",
        "individual",
        "--bootstrap",
        "200",
        "--folds",
        "2",
        *extra,
        "--out",
        str(out_path),
    ]


def test_export_of_a_choice_the_gold_cannot_decide_is_refused_without_the_acknowledgement(
    priced_project, tmp_path, capsys
):
    store, _, _ = priced_project
    out_path = tmp_path / "calibrated.json"
    assert export(export_args(store, out_path)) == 2
    err = capsys.readouterr().err
    assert "field '--allow-undecided'" in err and "gold responses cannot separate the configurations" in err
    assert "needs an explicit acknowledgement (--allow-undecided" in err and not out_path.exists()


def test_a_choice_by_hand_is_exported_with_its_reason_and_the_acknowledgement(
    priced_project, tmp_path, capsys
):
    store, _, _ = priced_project
    out_path = tmp_path / "calibrated.json"
    hand = ["--choose", "hand", "--configuration", "judge:b+b+b", "--mode", "individual"]
    assert export(export_args(store, out_path, *hand, "--allow-undecided")) == 2  # no reason given
    assert "field '--reason': --choose hand needs it" in capsys.readouterr().err
    code = export(export_args(store, out_path, *hand, "--reason", "the cheap judge", "--allow-undecided"))
    capsys.readouterr()
    evidence = read_calibrated_config(out_path).evidence
    assert code == 0 and evidence["chosen_by"] == "hand"
    assert evidence["decision"]["reason"] == "the cheap judge" and evidence["decision"]["acknowledged"]
