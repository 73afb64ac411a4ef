"""A project's sweep inputs (calibration/sweep/inputs.py) on the demo: annotators from the event log,
adjudicators' rulings that are not annotators' labels, and partial work that changes nobody else's
human parity."""

from __future__ import annotations

import json
import math
import shutil

import pytest

from annotation.agreement.adjudication import adjudicate
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


def _sweep(inputs, judge_forms):
    return run_sweep(
        inputs.gold,
        inputs.judges,
        humans=inputs.humans,
        n_boot=50,
        judged=inputs.judged,
        judge_forms=judge_forms,
    )


def test_judge_records_scored_from_their_stored_forms_score_as_the_records_themselves(demo_dir):
    store = ProjectStore.open(demo_dir)
    try:
        inputs = inputs_from_project(store)
    finally:
        store.close()
    assert set(inputs.judge_forms) == {(r.source, r.response_id) for r in inputs.judges}
    from_forms, from_records = _sweep(inputs, inputs.judge_forms), _sweep(inputs, None)
    assert from_forms.scores == from_records.scores
    assert json.dumps(from_forms.to_dict()) == json.dumps(from_records.to_dict())


def _a_gold_responses_judge_record(store):
    """Found without reading the sweep's inputs (they are kept per revision: a form edited in
    the file is read only by a revision not read before)."""
    gold_ids = {r.response_id for r in project_state(store).gold.records}
    return next(r for r in store.list_records("judge") if r.response_id in gold_ids)


def _inputs_with_a_stored_form(demo_dir, tmp_path, form: str):
    """(a gold response's judge record, the sweep's inputs of a demo copy whose stored score form
    of that record is `form`)."""
    copy = tmp_path / "demo"
    shutil.copytree(demo_dir, copy)
    store = ProjectStore.open(copy)
    try:
        record = _a_gold_responses_judge_record(store)
        (record_id,) = store.latest_record_ids(record.source, [record.response_id]).values()
        store.database.write(
            lambda c: c.execute("UPDATE record_forms SET form = ? WHERE record_id = ?", [form, record_id])
        )
        return record, inputs_from_project(store)
    finally:
        store.close()


def test_a_project_sweep_reads_a_judge_records_score_from_the_form_stored_beside_it(demo_dir, tmp_path):
    # one verifiable sentence, one fact with its one valid citation, entailed: P = R = coverage = 1
    record, inputs = _inputs_with_a_stored_form(demo_dir, tmp_path, '[1,["t|t||"]]')
    scores = _sweep(inputs, inputs.judge_forms).scores[(record.source, "individual")]
    unformed = _sweep(inputs, None).scores[(record.source, "individual")]
    assert scores[record.response_id] == 1.0 != unformed[record.response_id]
    assert {rid: s for rid, s in scores.items() if rid != record.response_id} == {
        rid: s for rid, s in unformed.items() if rid != record.response_id
    }


def test_a_stored_form_that_does_not_read_as_one_leaves_the_record_to_be_scored(demo_dir, tmp_path):
    record, inputs = _inputs_with_a_stored_form(demo_dir, tmp_path, "not a form")
    assert (record.source, record.response_id) not in inputs.judge_forms
    assert _sweep(inputs, inputs.judge_forms).scores == _sweep(inputs, None).scores
