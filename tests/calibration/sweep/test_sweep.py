"""calibration.sweep.run and its CLI: configurations × responses against gold, with the evidence."""

import argparse
import gc
import json
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from annotation.formats.readers import write_records_jsonl
from annotation.protocol.citations import Citation
from annotation.protocol.errors import InputError
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Response, Sentence
from calibration.cli.sweep import add_sweep_parser
from calibration.scoring.murgat_s import score_records
from calibration.sweep.run import run_sweep
from calibration.sweep.verdict import cheapest_in_best_set

VISUAL, AUDIO = Citation("visual", 1.0, 1.0), Citation("audio", 1.0, 2.0)


def fact_sentence(index, kind):
    """'yes'/'no': one citation, supported or not (every mode scores it 1 or 0);
    'both': two citations each enough alone — individual and alce give 1, necessity 0."""
    if kind == "both":
        return Sentence(
            f"Thing {index} happens (visual, 0:01; audio, 0:01-0:02).",
            True,
            [VISUAL, AUDIO],
            [Fact(f"thing {index} happens", [0, 1], Entailment(True, [True, True], [True, True]))],
        )
    ok = kind == "yes"
    return Sentence(
        f"Thing {index} happens (visual, 0:01).",
        True,
        [VISUAL],
        [Fact(f"thing {index} happens", [0], Entailment(ok, [ok], [False]))],
    )


def response(rid, source, kinds):
    return EvaluationRecord(rid, source, [fact_sentence(i, k) for i, k in enumerate(kinds)])


def flipped(kinds, share, rng):
    return [{"yes": "no", "no": "yes"}.get(k, k) if rng.random() < share else k for k in kinds]


def dataset(n=40, facts=6, seed=0, redundant=0.0):
    """Gold plus judges built to be good (5 % of facts flipped), fair (30 %) and noise;
    a `redundant` share of supported gold facts is of kind 'both'."""
    rng = np.random.default_rng(seed)
    gold, judges = [], []
    for i in range(n):
        p = rng.random()
        truth = [
            ("both" if rng.random() < redundant else "yes") if rng.random() < p else "no"
            for _ in range(facts)
        ]
        rid = f"r{i:02d}"
        gold.append(response(rid, "gold", truth))
        judges.append(response(rid, "judge:good", flipped(truth, 0.05, rng)))
        judges.append(response(rid, "judge:fair", flipped(truth, 0.30, rng)))
        judges.append(response(rid, "judge:noise", list(rng.choice(["yes", "no"], facts))))
    return gold, judges


def config(report, source, mode="individual"):
    return next(c for c in report.configs if c.source == source and c.precision_mode == mode)


def sweep(gold, judges, **kwargs):
    kwargs.setdefault("modes", ("individual",))
    kwargs.setdefault("n_boot", 200)
    return run_sweep(gold, judges, **kwargs)


def test_sweep_picks_the_configuration_constructed_to_be_best():
    report = sweep(*dataset())
    assert report.best.source == "judge:good"
    assert config(report, "judge:noise").in_best_set is False


def test_every_pearson_equals_scipy_pearsonr_with_a_ci_around_it():
    gold, judges = dataset()
    report = sweep(gold, judges)
    gold_s = [s.murgat_s for s in score_records(gold, ["individual"])]
    for c in report.configs:
        judge_s = [
            s.murgat_s for s in score_records([j for j in judges if j.source == c.source], ["individual"])
        ]
        assert abs(c.pearson - scipy_stats.pearsonr(judge_s, gold_s).statistic) < 1e-9
        assert c.pearson_ci[0] <= c.pearson <= c.pearson_ci[1]


def test_missing_responses_are_reported_with_their_ids_and_n():
    gold, judges = dataset()
    judges = [j for j in judges if not (j.source == "judge:fair" and j.response_id in ("r03", "r17"))]
    report = sweep(gold, judges)
    fair = config(report, "judge:fair")
    assert (fair.n, fair.missing_ids) == (38, ["r03", "r17"])
    assert next(s for s in report.sources if s["source"] == "judge:fair")["missing"] == ["r03", "r17"]


def test_judge_responses_without_gold_are_listed_and_not_used():
    gold, judges = dataset()
    judges.append(response("r99", "judge:good", ["yes"]))
    report = sweep(gold, judges)
    assert next(s for s in report.sources if s["source"] == "judge:good")["not_in_gold"] == ["r99"]
    assert config(report, "judge:good").n == 40


def test_a_constant_judge_gets_an_undefined_r_with_a_reason():
    gold, judges = dataset()
    judges += [response(g.response_id, "judge:yes-man", ["yes"] * 6) for g in gold]
    c = config(sweep(gold, judges), "judge:yes-man")
    assert (
        math.isnan(c.pearson)
        and c.undefined_reason == "the judge scores are constant over the shared responses"
    )
    assert (c.in_best_set, c.p_best) == (False, 0.0)


def unjudged(record: EvaluationRecord, source: str) -> EvaluationRecord:
    """The record with every entailment answer null: its MURGAT-S is undetermined in every mode."""
    return EvaluationRecord(
        record.response_id,
        source,
        [
            Sentence(
                s.text,
                s.verifiable,
                s.citations,
                [
                    Fact(
                        f.text,
                        f.citations,
                        Entailment(None, [None] * len(f.citations), [None] * len(f.citations)),
                    )
                    for f in s.facts
                ],
            )
            for s in record.sentences
        ],
    )


def test_all_null_responses_are_left_out_and_counted_not_scored_zero():
    gold, judges = dataset()
    good = [j for j in judges if j.source == "judge:good"]
    lazy = [
        unjudged(j, "judge:lazy")
        if j.response_id < "r05"
        else EvaluationRecord(j.response_id, "judge:lazy", j.sentences)
        for j in good
    ]
    c = config(sweep(gold, judges + lazy), "judge:lazy")
    assert (c.n, c.n_undetermined, c.undetermined_ids, c.missing_ids) == (
        35,
        5,
        ["r00", "r01", "r02", "r03", "r04"],
        [],
    )
    judge_s = [s.murgat_s for s in score_records(good[5:], ["individual"])]
    gold_s = [s.murgat_s for s in score_records(gold[5:], ["individual"])]
    assert c.pearson == pytest.approx(scipy_stats.pearsonr(judge_s, gold_s).statistic, abs=1e-12)


def test_undetermined_gold_responses_are_listed_per_mode():
    gold, judges = dataset()
    gold[3] = unjudged(gold[3], "gold")
    report = sweep(gold, judges)
    assert report.gold["undetermined"] == {"individual": ["r03"]}
    assert config(report, "judge:good").n == 39


def tied(index: int, verifiable: int, facts: int, source: str) -> EvaluationRecord:
    """`verifiable` sentences, one cited, whose `facts` facts hold one supported: MURGAT-S =
    (1/verifiable) · (1/facts)."""
    kinds = ["yes"] + ["no"] * (facts - 1)
    cited = Sentence(
        "Things happen (visual, 0:01).",
        True,
        [VISUAL],
        [fact_sentence(i, k).facts[0] for i, k in enumerate(kinds)],
    )
    plain = [Sentence(f"Plain {k}.", True, []) for k in range(verifiable - 1)]
    return EvaluationRecord(f"r{index:02d}", source, [cited, *plain])


def test_mathematically_constant_gold_gives_an_undefined_r():
    # 1/5 · 1/6 and 1/6 · 1/5 differ in the last bit of a float; exact scores make them one value
    gold = [tied(i, 5, 6, "gold") if i % 2 else tied(i, 6, 5, "gold") for i in range(12)]
    judges = [tied(i, 2 + i % 3, 1 + i % 4, "judge:j") for i in range(12)]
    c = config(sweep(gold, judges), "judge:j")
    assert (
        math.isnan(c.pearson)
        and c.undefined_reason == "the human scores are constant over the shared responses"
    )


def test_an_identical_copy_of_the_best_shares_the_set_and_the_probability_of_being_best():
    gold, judges = dataset()
    judges += [
        EvaluationRecord(j.response_id, "judge:twin", j.sentences) for j in judges if j.source == "judge:good"
    ]
    report = sweep(gold, judges)
    good, twin = config(report, "judge:good"), config(report, "judge:twin")
    assert report.best is good  # ties go to the earlier source name
    assert twin.in_best_set and twin.p_best == good.p_best == pytest.approx(0.5)


def test_the_best_set_lists_every_configuration_flagged_in_it():
    report = sweep(*dataset(redundant=0.5), modes=("individual", "necessity"))
    assert report.best_set == [
        {"source": c.source, "precision_mode": c.precision_mode} for c in report.configs if c.in_best_set
    ]
    assert report.best.in_best_set and sum(c.p_best for c in report.configs) == pytest.approx(1.0)


def test_selection_reports_the_expected_r_of_choosing_and_its_optimism():
    report = sweep(*dataset())
    s = report.selection
    assert s["method"] == "nested cross-validation, pooled within-fold correlation"
    assert s["optimism"] == pytest.approx(s["in_sample_r"] - s["expected_r"])
    assert s["in_sample_r"] == report.best.pearson and s["chosen"] == {"judge:good [individual]": 50}


def test_report_is_plain_json_without_nan_with_the_cli_contract_keys():
    gold, judges = dataset()
    judges += [response(g.response_id, "judge:yes-man", ["yes"] * 6) for g in gold]
    data = json.loads(json.dumps(sweep(gold, judges).to_dict(), allow_nan=False))
    assert {
        "source",
        "precision_mode",
        "pearson",
        "pearson_ci",
        "spearman",
        "kendall",
        "n",
        "n_undetermined",
        "in_best_set",
        "p_best",
        "parity",
    } <= set(data["best"])
    assert {"advantage", "advantage_ci", "winning_rate", "annotators"} <= set(data["best"]["parity"])
    assert {"best", "best_set", "selection", "annotators"} <= set(data)
    assert {"method", "expected_r", "optimism"} <= set(data["selection"])
    assert data["configs"][-1]["pearson"] is None


def test_the_same_seed_gives_the_same_report():
    gold, judges = dataset()
    assert sweep(gold, judges, seed=3).to_dict() == sweep(gold, judges, seed=3).to_dict()


def test_a_configurations_rank_intervals_asked_alone_are_those_of_every_row_worked_out_at_once():
    gold, judges = dataset(redundant=0.3)
    modes = ("individual", "necessity")
    alone = sweep(gold, judges, seed=5, modes=modes)
    together = sweep(gold, judges, seed=5, modes=modes).to_dict()["configs"]
    asked = config(alone, "judge:fair", "necessity")  # the only row worked out in its report
    expected = next(c for c in together if (c["source"], c["precision_mode"]) == ("judge:fair", "necessity"))
    assert [list(asked.spearman_ci), list(asked.kendall_ci)] == [
        expected["spearman_ci"],
        expected["kendall_ci"],
    ]
    assert [c.to_dict() for c in alone.configs] == together
    worked_out_with_the_sweep = sweep(gold, judges, seed=5, modes=modes, rank_intervals_now=True)
    assert worked_out_with_the_sweep.to_dict()["configs"] == together


def test_rank_intervals_are_the_percentile_intervals_of_the_paired_bootstrap():
    from calibration.stats import bootstrap

    gold, judges = dataset()
    report = sweep(gold, judges, seed=2)
    c = config(report, "judge:good")
    X = np.array([[report.scores[("judge:good", "individual")][r.response_id] for r in gold]])
    y = np.array([report.scores[("gold", "individual")][r.response_id] for r in gold])
    W = bootstrap.multiplicities(bootstrap.resample_indices(len(gold), 200, 2), len(gold))
    for found, draws in (
        (c.spearman_ci, bootstrap.bootstrap_spearman),
        (c.kendall_ci, bootstrap.bootstrap_kendall),
    ):
        low, high = bootstrap.percentile_ci(draws(X, y, W))
        assert found == (float(low[0]), float(high[0]))


def test_a_repeated_record_is_a_located_input_error():
    gold, judges = dataset()
    with pytest.raises(InputError, match="response 'r00' appears twice for source 'judge:good'"):
        sweep(gold, judges + [judges[0]])


def test_gold_records_among_the_judges_are_refused():
    gold, judges = dataset()
    with pytest.raises(InputError, match="gold records among the judges"):
        sweep(gold, judges + gold[:1])


def test_cheapest_in_the_best_set_takes_the_cheaper_of_two_equal_judges():
    gold, judges = dataset()
    judges += [
        EvaluationRecord(j.response_id, "judge:copy", j.sentences) for j in judges if j.source == "judge:good"
    ]
    report = sweep(gold, judges)
    chosen = cheapest_in_best_set(report, {"judge:good": 10.0, "judge:copy": 1.0, "judge:noise": 0.01})
    assert chosen.source == "judge:copy"


def run_cli(argv, capsys):
    parser = argparse.ArgumentParser()
    add_sweep_parser(parser.add_subparsers())
    args = parser.parse_args(["sweep", *argv])
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err


def write_files(tmp_path, gold, judges):
    write_records_jsonl(gold, tmp_path / "gold.jsonl")
    write_records_jsonl(judges, tmp_path / "judges.jsonl")
    return str(tmp_path / "gold.jsonl"), str(tmp_path / "judges.jsonl")


def test_cli_json_prints_one_object_with_configs_and_best(tmp_path, capsys):
    gold_file, judge_file = write_files(tmp_path, *dataset())
    code, out, _ = run_cli(
        [
            "--gold",
            gold_file,
            "--judges",
            judge_file,
            "--precision",
            "individual",
            "--bootstrap",
            "100",
            "--json",
        ],
        capsys,
    )
    data = json.loads(out)
    assert code == 0 and len(data["configs"]) == 3 and data["best"]["source"] == "judge:good"
    assert len(data["best"]["pearson_ci"]) == 2


def test_cli_runs_and_ends_without_a_collection_and_leaves_the_collector_on(tmp_path, capsys):
    # made with the collector off, the command's objects would all be young when it is back on: its
    # first pass would walk them all, in a process that is about to end
    gold_file, judge_file = write_files(tmp_path, *dataset())
    parser = argparse.ArgumentParser()
    add_sweep_parser(parser.add_subparsers())
    args = parser.parse_args(
        ["sweep", "--gold", gold_file, "--judges", judge_file, "--bootstrap", "50", "--json"]
    )
    collections = []
    note = lambda phase, info: collections.append(info["generation"]) if phase == "start" else None  # noqa: E731
    gc.callbacks.append(note)
    try:
        code = args.func(args)
        [[] for _ in range(300)]  # what comes next allocates: a pending collection would run now
    finally:
        gc.callbacks.remove(note)
    assert code == 0 and gc.isenabled() and collections == []
    capsys.readouterr()


def test_cli_json_gives_every_configurations_rank_intervals_only_when_asked(tmp_path, capsys):
    gold, judges = dataset()
    gold_file, judge_file = write_files(tmp_path, gold, judges)
    argv = ["--gold", gold_file, "--judges", judge_file, "--precision", "individual", "--bootstrap", "100"]
    _, plain, _ = run_cli([*argv, "--json"], capsys)
    _, asked, _ = run_cli([*argv, "--json", "--rank-intervals"], capsys)
    in_memory = sweep(gold, judges, modes=("individual",), n_boot=100).to_dict()
    assert json.loads(asked) == json.loads(json.dumps(in_memory))
    without = json.loads(plain)
    for config_, full in zip(
        [*without["configs"], without["best"]], [*in_memory["configs"], in_memory["best"]], strict=True
    ):
        assert "spearman_ci" not in config_ and "kendall_ci" not in config_
        assert config_ == {k: v for k, v in full.items() if k not in ("spearman_ci", "kendall_ci")}
    assert {k: v for k, v in without.items() if k not in ("configs", "best")} == {
        k: v for k, v in json.loads(asked).items() if k not in ("configs", "best")
    }


def test_cli_table_is_sorted_by_r(tmp_path, capsys):
    gold_file, judge_file = write_files(tmp_path, *dataset())
    code, out, _ = run_cli(
        ["--gold", gold_file, "--judges", judge_file, "--precision", "individual", "--bootstrap", "100"],
        capsys,
    )
    rows = [line.split()[0] for line in out.splitlines()[3:6]]  # after the decision and the header
    assert code == 0 and rows == ["judge:good", "judge:fair", "judge:noise"]


def test_cli_bad_input_exits_2_with_located_errors_and_nothing_on_stdout(tmp_path, capsys):
    gold, judges = dataset(n=5)
    gold_file, judge_file = write_files(tmp_path, gold, gold[:1] + judges)
    code, out, err = run_cli(["--gold", gold_file, "--judges", judge_file], capsys)
    assert (code, out) == (2, "")
    assert f"{judge_file}, line 1, field 'response_id': response 'r00' of 'gold' was already read" in err


def test_cli_routes_records_by_their_own_source_so_one_export_serves_both_options(tmp_path, capsys):
    gold, judges = dataset(n=12)
    everything = tmp_path / "all.jsonl"
    everything.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in gold + judges))
    code, out, _ = run_cli(
        [
            "--gold",
            str(everything),
            "--judges",
            str(everything),
            "--json",
            "--precision",
            "individual",
            "--bootstrap",
            "50",
        ],
        capsys,
    )
    assert code == 0
    assert {c["source"] for c in json.loads(out)["configs"]} == {r.source for r in judges}


def test_cli_reads_gold_annotators_and_judges_from_a_project(tmp_path, capsys):
    from annotation.store.project_store import ProjectStore

    gold, judges = dataset()
    store = ProjectStore.open(tmp_path / "project", create=True)
    store.add_responses((Response(g.response_id, f"text of {g.response_id}"), g.sentences) for g in gold)
    store.add_records(gold + judges)
    store.close()
    code, out, _ = run_cli(
        ["--project", str(tmp_path / "project"), "--precision", "individual", "--bootstrap", "100", "--json"],
        capsys,
    )
    assert code == 0 and json.loads(out)["best"]["source"] == "judge:good"


def test_cli_missing_project_exits_2(tmp_path, capsys):
    code, out, err = run_cli(["--project", str(tmp_path / "nowhere")], capsys)
    assert (code, out) == (2, "") and "no project here" in err


def test_cli_names_the_setting_a_project_holds_a_bad_value_of(tmp_path, capsys):
    from annotation.store.project_store import ProjectStore

    store = ProjectStore.open(tmp_path / "project", create=True)
    store.set_setting("overlap", 0)  # written by hand: the admin page and CLI refuse it
    store.close()
    code, out, err = run_cli(["--project", str(tmp_path / "project")], capsys)
    assert (code, out) == (2, "") and "field 'overlap': project setting overlap = 0 is refused" in err
    assert "gold_rule" not in err
