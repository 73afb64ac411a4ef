"""`agreement` and `gold` commands (annotation/agreement_cli.py), on files and on the demo."""

from __future__ import annotations

import argparse
import json

import pytest

from annotation.agreement.adjudication import adjudicate
from annotation.cli.agreement import add_agreement_parser, add_gold_parser
from annotation.formats.readers import read_records_file, write_records_jsonl
from annotation.protocol.citations import Citation
from annotation.protocol.records import EvaluationRecord, Sentence
from annotation.state import project_state
from annotation.store.project_store import ProjectStore

STAGE_KEYS = ["verifiable", "entailment_all", "entailment_alone", "entailment_without", "decomposition"]
VISUAL = Citation("visual", 1.0, 1.0)


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m annotation")
    sub = parser.add_subparsers(dest="command", required=True)
    add_agreement_parser(sub)
    add_gold_parser(sub)
    args = parser.parse_args(argv)
    return args.func(args)


def records_file(path, sources_and_labels):
    records = [
        EvaluationRecord("r1", source, [Sentence(f"S{i}.", v, [VISUAL]) for i, v in enumerate(labels)])
        for source, labels in sources_and_labels
    ]
    write_records_jsonl(records, path)
    return path


def test_json_prints_one_object_with_every_stage(tmp_path, capsys):
    path = records_file(
        tmp_path / "r.jsonl", [("human:alice", [True, False, True]), ("human:bob", [True, True, True])]
    )
    assert run(["agreement", str(path), "--json", "--resamples", "20"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == STAGE_KEYS
    assert {"alpha", "ci_low", "ci_high", "n_units", "n_annotators"} <= set(out["verifiable"])
    assert {"precision", "recall", "f1"} <= set(out["decomposition"])


def test_the_file_form_uses_only_human_sources(tmp_path, capsys):
    path = records_file(
        tmp_path / "r.jsonl",
        [("human:alice", [True, False]), ("human:bob", [True, True]), ("judge:x", [False, False])],
    )
    run(["agreement", str(path), "--json", "--resamples", "5"])
    assert json.loads(capsys.readouterr().out)["verifiable"]["n_annotators"] == 2


def test_an_invalid_file_exits_2_with_located_problems_and_nothing_on_stdout(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"response_id": "r1", "source": "human:a", "sentences": []}\n{"source": 3}\n')
    assert run(["agreement", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{path}, line 2, field 'response_id'" in captured.err


def test_a_missing_project_exits_2(tmp_path, capsys):
    assert run(["agreement", "--project", str(tmp_path / "none")]) == 2
    assert "no project here" in capsys.readouterr().err


def test_a_project_and_a_file_together_exit_2(tmp_path, capsys):
    assert run(["agreement", "--project", str(tmp_path), str(tmp_path / "r.jsonl")]) == 2
    assert "either --project DIR or a records FILE" in capsys.readouterr().err


def test_the_text_form_says_why_a_stage_is_undefined(tmp_path, capsys):
    path = records_file(tmp_path / "r.jsonl", [("human:alice", [True, False])])
    assert run(["agreement", str(path)]) == 0
    assert "undefined: fewer than two annotators (1)" in capsys.readouterr().out


# -- on the demo project ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo(module_demo):
    return ProjectStore.open(module_demo)


def test_agreement_on_the_demo_project_is_defined_for_every_stage(demo, capsys):
    assert run(["agreement", "--project", str(demo.directory), "--json", "--resamples", "50"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert all(out[stage]["n_annotators"] == 3 and out[stage]["alpha"] is not None for stage in STAGE_KEYS)


def test_an_adjudicated_dispute_appears_in_the_gold_export_with_its_provenance(demo, tmp_path, capsys):
    dispute = next(d for d in project_state(demo).gold.disputes(open_only=True) if d.question == "verifiable")
    ruled = not dispute.value if dispute.value is not None else True
    adjudicate(demo, "ada", dispute.response_id, dispute.unit, dispute.task, ruled, "annotator error")
    out, csv_out = tmp_path / "gold.jsonl", tmp_path / "gold.csv"
    assert run(["gold", "--project", str(demo.directory), "--out", str(out), "--csv", str(csv_out)]) == 0
    (exported,) = [r for r in read_records_file(out).items if r.response_id == dispute.response_id]
    sentence = exported.sentences[dispute.sentence]
    assert sentence.verifiable is ruled
    assert sentence.provenance["verifiable"] == "adjudicated:ada:annotator error"
    assert "adjudicated:ada:annotator error" in csv_out.read_text(encoding="utf-8")


def test_gold_and_export_leave_out_the_responses_awaiting_a_ruling_and_say_how_many(
    demo_copy, tmp_path, capsys
):
    from cli_support import run_in_process

    store = ProjectStore.open(demo_copy)
    store.set_setting("gold_rule", "unanimity")  # the demo's annotators disagree on some sentences
    gold = project_state(store).gold
    decided = sorted(r.response_id for r in gold.records)
    assert gold.awaiting and decided and not set(gold.awaiting) & set(decided)
    waiting = (
        f"{len(gold.awaiting)} labelled response(s) await a ruling or labels on stage 1 or 2 (Disputes): "
        "no gold record yet, left out"
    )
    out = tmp_path / "gold.jsonl"
    assert run(["gold", "--project", str(demo_copy), "--out", str(out)]) == 0
    assert sorted(r.response_id for r in read_records_file(out).items) == decided
    assert f"note: {waiting}" in capsys.readouterr().err
    exported = tmp_path / "export.jsonl"
    done = run_in_process(
        "annotation", "export", "--project", demo_copy, "--out", exported, "--source", "gold"
    )
    assert done.returncode == 0 and f"note: gold: {waiting}" in done.stderr
    assert sorted(r.response_id for r in read_records_file(exported).items) == decided
