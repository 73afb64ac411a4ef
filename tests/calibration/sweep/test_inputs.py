"""A project's sweep inputs (calibration/sweep/inputs.py) on the demo: annotators from the event log,
adjudicators' rulings that are not annotators' labels, and partial work that changes nobody else's
human parity."""

from __future__ import annotations

import math
import shutil

import pytest

from annotation.agreement.gold import adjudicate
from annotation.protocol.ids import sentence_unit
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
        gold, humans, judges = inputs_from_project(store)
        return run_sweep(gold, judges, humans=humans, n_boot=200)
    finally:
        store.close()


def test_annotators_come_from_the_event_log_and_rulings_are_not_an_annotators_labels(demo_dir):
    store = ProjectStore.open(demo_dir)
    try:
        _, humans, _ = inputs_from_project(store)
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
            store.events.append("dana", rid, sentence_unit(0), "verifiable", True, spent_ms=4000)
        disputed = next(v for v in project_state(store).gold.values if v.task == "verifiable")
        adjudicate(store, "ada", disputed.response_id, disputed.unit, disputed.task, not disputed.value, None)
    finally:
        store.close()
    after = sweep_of(copy)
    assert [row["source"] for row in after.annotators if row["precision_mode"] == "individual"] == ANNOTATORS
    assert after.annotators == before.annotators
    for old, new in zip(before.configs, after.configs, strict=True):
        assert new.parity == old.parity and math.isfinite(new.parity["advantage"])
        assert [a["source"] for a in new.parity["annotators"]] == ANNOTATORS
