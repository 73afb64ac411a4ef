"""Planning more gold (calibration/estimates/planning.py): the projected half-width, the count
each model needs, and the stratified sample stored as an annotation queue."""

import math

import numpy as np
import pytest
from estimate_support import model_rows
from scipy import stats as scipy_stats

from annotation.protocol.records import Response
from annotation.store.project_store import ProjectStore
from annotation.work.sample_queues import create_sample_queue, sample_queue
from calibration.estimates.models import model_samples
from calibration.estimates.planning import (
    ASSURANCE,
    PlanRow,
    create_plan_queue,
    more_gold_needed,
    plan_more_gold,
    projected_half_widths,
    queue_counts,
    queue_sample,
    reach_probabilities,
)
from calibration.estimates.ppi import ppi_mean, z_value


def sample_of(model: str, n: int, N: int, seed: int = 0, noise: float = 0.1):
    rng = np.random.default_rng(seed)
    truth = rng.beta(2, 2, n + N)
    judge = np.clip(truth + rng.normal(0, noise, n + N), 0, 1)
    gold = [float(t) for t in truth[:n]] + [None] * N
    return model_samples(model_rows(model, gold, list(judge)), "murgat_s")[model]


def test_todays_projected_half_width_is_todays_ppi_half_width():
    sample = sample_of("m", 30, 400)
    today = ppi_mean(sample.gold, sample.judge_labelled, sample.judge_unlabelled, 0.05)
    assert projected_half_widths(sample, 0.05)[0] == pytest.approx(today.half_width, abs=1e-12)


def test_labelling_everything_projects_the_human_only_half_width_over_all_of_them():
    sample = sample_of("m", 30, 400)
    spread = float(np.sum((sample.gold - sample.gold.mean()) ** 2)) / 28  # today's, over n − 2
    assert projected_half_widths(sample, 0.05)[-1] == pytest.approx(
        scipy_stats.t.ppf(0.975, 428) * math.sqrt(spread / 430), abs=1e-12
    )


def test_a_target_already_met_with_the_assurance_needs_no_more_gold():
    sample = sample_of("m", 30, 400)
    # today's half-width reaches h with probability F(28, 28).cdf((h / today)²)
    target = projected_half_widths(sample, 0.05)[0] * math.sqrt(scipy_stats.f.ppf(ASSURANCE, 28, 28)) + 1e-9
    assert more_gold_needed(sample, target, 0.05) == 0


def test_more_gold_needed_is_the_smallest_count_that_reaches_the_target_with_the_assurance():
    sample = sample_of("m", 10, 400, noise=0.3)
    target = float(projected_half_widths(sample, 0.05)[0]) * 0.7
    chances = reach_probabilities(sample, target, 0.05)
    needed = more_gold_needed(sample, target, 0.05)
    assert needed > 0 and chances[needed] >= ASSURANCE and all(chances[:needed] < ASSURANCE)


def test_the_plan_asks_more_than_the_point_projection_and_says_how_likely_it_reaches_the_target():
    sample = sample_of("m", 8, 400, noise=0.3)
    target = float(projected_half_widths(sample, 0.05)[0]) * 0.6
    point = int(np.flatnonzero(projected_half_widths(sample, 0.05) <= target)[0])
    (row,) = plan_more_gold([sample], target, 0.05)
    assert row.more_gold_needed > point
    assert row.assurance == pytest.approx(reach_probabilities(sample, target, 0.05)[row.more_gold_needed])
    assert reach_probabilities(sample, target, 0.05)[point] < 0.6  # the point projection: a coin flip


def test_a_target_out_of_reach_needs_none():
    assert more_gold_needed(sample_of("m", 10, 40), 1e-4, 0.05) is None


def test_a_model_without_gold_is_planned_as_if_the_judge_helped_nothing():
    judge = [0.0, 1.0] * 50  # var (ddof 1) = 25/99
    sample = model_samples(model_rows("m", [None] * 100, judge), "murgat_s")["m"]
    target = 0.15
    m = np.arange(3, 101)  # human-only with the judge's spread, known on 99 degrees of freedom
    reach = scipy_stats.f.cdf(
        (target / (scipy_stats.t.ppf(0.975, m - 2) * np.sqrt(25 / 99 / m))) ** 2, m - 2, 99
    )
    expected = int(m[np.flatnonzero(reach >= ASSURANCE)[0]])
    assert more_gold_needed(sample, target, 0.05) == expected
    assert expected > math.ceil((z_value(0.05) / target) ** 2 * 25 / 99)  # 44: the point projection


def test_a_target_that_is_not_positive_is_refused():
    with pytest.raises(ValueError, match="positive"):
        more_gold_needed(sample_of("m", 10, 40), 0.0, 0.05)


def test_the_queue_sample_draws_each_models_need_from_its_unlabelled_responses():
    a, b = sample_of("a", 5, 50, seed=1), sample_of("b", 5, 20, seed=2)
    plan = [PlanRow("a", 7, 50), PlanRow("b", None, 20)]  # b cannot reach it: all of its 20
    drawn = queue_sample([a, b], plan, set(), seed=3)
    assert sorted(m for _, m in drawn) == ["a"] * 7 + ["b"] * 20
    assert {rid for rid, m in drawn if m == "a"} <= set(a.unlabelled_ids)


def test_responses_already_waiting_in_a_queue_count_against_the_need():
    a = sample_of("a", 5, 50, seed=1)
    waiting = set(a.unlabelled_ids[:3])
    drawn = queue_sample([a], [PlanRow("a", 7, 50)], waiting, seed=3)
    assert len(drawn) == 4 and not waiting & {rid for rid, _ in drawn}


def test_queue_counts_say_how_much_of_each_models_need_waits_in_queues_already():
    a, b = sample_of("a", 5, 50, seed=1), sample_of("b", 5, 20, seed=2)
    waiting = set(a.unlabelled_ids[:3]) | set(b.unlabelled_ids[:12])
    plan = [PlanRow("a", 7, 50), PlanRow("b", 10, 20)]
    assert queue_counts([a, b], plan, waiting) == {"a": (7, 3), "b": (10, 10)}  # b's 12: 10 count


def test_the_planned_queue_is_stored_in_the_project_and_asked_of_annotators(tmp_path):
    a = sample_of("a", 5, 30, seed=1)
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response(rid, rid, model="a"), []) for rid in a.labelled_ids + a.unlabelled_ids])
    create_sample_queue(store, "earlier", [(a.unlabelled_ids[0], "a")])
    summary = create_plan_queue(store, "next", [a], [PlanRow("a", 6, 30)], seed=0)
    assert (summary.name, summary.size, summary.strata) == ("next", 5, {"a": 5})
    # the draw is reproducible: the same plan, waiting responses and seed give the same queue
    assert [rid for rid, _ in sample_queue(store, "next")] == [
        rid for rid, _ in queue_sample([a], [PlanRow("a", 6, 30)], {a.unlabelled_ids[0]}, seed=0)
    ]


def test_nothing_to_queue_is_refused(tmp_path):
    a = sample_of("a", 5, 10, seed=1)
    store = ProjectStore.open(tmp_path / "p", create=True)
    with pytest.raises(ValueError, match="nothing to queue"):
        create_plan_queue(store, "next", [a], [PlanRow("a", 0, 10)], seed=0)


def test_plan_rows_keep_the_models_order_and_json_keys():
    a, b = sample_of("a", 20, 100, seed=1), sample_of("b", 20, 100, seed=2)
    rows = plan_more_gold([b, a], 0.05, 0.05)
    assert [r.model for r in rows] == ["b", "a"]
    assert list(rows[0].to_dict()) == ["model", "more_gold_needed", "assurance"]
