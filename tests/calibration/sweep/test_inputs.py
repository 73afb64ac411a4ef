"""A project's sweep inputs (calibration/sweep/inputs.py) on the demo: annotators from the event log,
adjudicators' rulings that are not annotators' labels, and partial work that changes nobody else's
human parity."""

from __future__ import annotations

import json
import math
import shutil

import pytest

from annotation.agreement.gold import adjudicate
from annotation.protocol.ids import Unit
from annotation.protocol.records import EvaluationRecord
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from calibration.sweep.inputs import inputs_from_project
from calibration.sweep.run import run_sweep

ANNOTATORS = ["human:alice", "human:bob", "human:carol"]


@pytest.fixture(scope="module")
def demo_dir(module_demo):
    return module_demo


def sweep_of(directory):
    store = ProjectStore.open(directory)
    try:
        inputs = inputs_from_project(store)
        return run_sweep(inputs.gold, inputs.judges, humans=inputs.humans, n_boot=200, judged=inputs.judged)
    finally:
        store.close()


def test_annotators_come_from_the_event_log_and_rulings_are_not_an_annotators_labels(demo_dir):
    store = ProjectStore.open(demo_dir)
    try:
        humans = inputs_from_project(store).humans
    finally:
        store.close()
    assert sorted({r.source for r in humans}) == ANNOTATORS  # ada rules, dana labelled nothing


def test_partial_work_and_a_new_ruling_leave_everyone_elses_parity_defined_and_unchanged(demo_dir, tmp_path):
    before = sweep_of(demo_dir)
    copy = tmp_path / "demo"
    shutil.copytree(demo_dir, copy)
    store = ProjectStore.open(copy)
    try:
        for rid in store.response_ids()[:3]:  # dana starts three responses and finishes none
            store.events.append("dana", rid, Unit.of_sentence(0), "verifiable", True, spent_ms=4000)
        disputed = next(v for v in project_state(store).gold.values if str(v.task) == "verifiable")
        adjudicate(store, "ada", disputed.response_id, disputed.unit, disputed.task, not disputed.value, None)
    finally:
        store.close()
    after = sweep_of(copy)
    assert [row["source"] for row in after.annotators if row["precision_mode"] == "individual"] == ANNOTATORS
    assert after.annotators == before.annotators
    for old, new in zip(before.configs, after.configs, strict=True):
        assert new.parity == old.parity and math.isfinite(new.parity["advantage"])
        assert [a["source"] for a in new.parity["annotators"]] == ANNOTATORS


def test_a_project_sweep_decodes_only_gold_responses_judge_records_and_reports_what_all_of_them_give(
    demo_dir, tmp_path
):
    copy = tmp_path / "demo"
    shutil.copytree(demo_dir, copy)
    store = ProjectStore.open(copy)
    try:
        gold_ids = {r.response_id for r in project_state(store).gold.records}
        outside = [rid for rid in store.response_ids() if rid not in gold_ids][:2]
        some_judge = store.record_sources()[-1]
        store.add_records(  # records of responses without gold: one source has nothing else
            [EvaluationRecord(outside[0], "judge:zz-outside-only", store.response_sentences(outside[0]))]
            + [EvaluationRecord(rid, some_judge, store.response_sentences(rid)) for rid in outside]
        )
        state = project_state(store)
        inputs = inputs_from_project(store)
        every = run_sweep(state.gold.records, state.judges, humans=state.annotators, n_boot=200)
        read = run_sweep(inputs.gold, inputs.judges, humans=inputs.humans, n_boot=200, judged=inputs.judged)
    finally:
        store.close()
    assert {r.response_id for r in inputs.judges} <= gold_ids < {r.response_id for r in state.judges}
    assert inputs.judged["judge:zz-outside-only"] == outside[:1]
    assert json.dumps(read.to_dict()) == json.dumps(every.to_dict())
    assert read.scores == every.scores
    zz = next(s for s in read.sources if s["source"] == "judge:zz-outside-only")
    assert zz["n_records"] == 1 and zz["not_in_gold"] == outside[:1] and len(zz["missing"]) == len(gold_ids)
