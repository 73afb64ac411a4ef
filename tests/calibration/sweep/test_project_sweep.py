"""A project's sweep runs once per (revision, settings) and keeps the per-response scores the
Calibrate scatter draws (calibration/sweep/project_sweep.py)."""

from __future__ import annotations

import pytest

from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from calibration.scoring.murgat_s import score_records
from calibration.sweep.project_sweep import (
    background_sweep,
    latest_project_sweep,
    project_sweep,
    start_background_sweep,
)

SETTINGS = {"modes": ["individual"], "n_boot": 100, "folds": 3, "seed": 0, "epsilon": 0.1}


@pytest.fixture(scope="module")
def demo(module_demo):
    store = ProjectStore.open(module_demo)
    yield store
    store.close()


def test_the_same_revision_and_settings_give_the_same_report_and_a_label_a_new_one(demo):
    first = project_sweep(demo, SETTINGS)
    assert project_sweep(demo, SETTINGS) is first
    assert project_sweep(demo, {**SETTINGS, "seed": 1}) is not first
    demo.events.append("alice", demo.response_ids()[0], "s0", "verifiable", False)
    assert project_sweep(demo, SETTINGS) is not first


def test_the_report_keeps_each_responses_score_as_the_scorer_gives_it(demo):
    report = project_sweep(demo, SETTINGS)
    state = project_state(demo)
    gold = {s.response_id: s.murgat_s for s in score_records(state.gold.records, ["individual"])}
    assert report.scores[("gold", "individual")] == gold
    source = report.configs[0].source
    judged = [r for r in state.judges if r.source == source and r.response_id in gold]
    expected = {s.response_id: s.murgat_s for s in score_records(judged, ["individual"])}
    assert report.scores[(source, "individual")] == expected


def test_after_a_label_the_last_report_shows_at_once_and_the_new_one_comes_from_the_background(demo):
    settings = {**SETTINGS, "seed": 7}
    first = latest_project_sweep(demo, settings)
    assert first.fresh and first.as_of == project_state(demo).revision
    assert latest_project_sweep(demo, settings).report is first.report
    demo.events.append("alice", demo.response_ids()[1], "s0", "verifiable", False)
    stale = latest_project_sweep(demo, settings)
    assert stale.report is first.report and not stale.fresh and stale.as_of == first.as_of
    background_sweep(demo, settings).result()
    fresh = latest_project_sweep(demo, settings)
    assert fresh.fresh and fresh.report is not first.report
    assert fresh.as_of == project_state(demo).revision != first.as_of
    assert fresh.report is project_sweep(demo, settings)


def test_a_page_that_starts_the_new_sweep_itself_gets_the_last_report_and_nothing_running_until_it_does(demo):
    settings = {**SETTINGS, "seed": 11}
    first = latest_project_sweep(demo, settings)
    demo.events.append("alice", demo.response_ids()[2], "s0", "verifiable", False)
    stale = latest_project_sweep(demo, settings, start=False)
    assert stale.report is first.report and not stale.fresh
    assert background_sweep(demo, settings) is None
    start_background_sweep(demo, settings)
    background_sweep(demo, settings).result()
    fresh = latest_project_sweep(demo, settings, start=False)
    assert fresh.fresh and fresh.report is project_sweep(demo, settings) is not first.report


def test_responses_whose_gold_awaits_a_ruling_are_left_out_of_the_sweep_and_counted(demo_copy):
    store = ProjectStore.open(demo_copy)
    store.set_setting("gold_rule", "unanimity")  # the demo's annotators disagree on some sentences
    state = project_state(store)
    waiting = sorted(state.gold.awaiting)
    assert waiting and state.gold.records
    report = project_sweep(store, SETTINGS)
    assert report.gold["awaiting"] == waiting
    assert report.gold["n_responses"] == len(state.gold.records)
    assert not set(waiting) & set(report.scores[("gold", "individual")])  # never scored, not even 0
    assert (
        f"gold: {len(waiting)} labelled response(s) await a ruling or labels on stage 1 or 2 (Disputes): "
        "no gold record yet, left out"
    ) in report.notes
    store.close()
