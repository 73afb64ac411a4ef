"""Per-model estimates and pairwise differences (calibration/estimates/models.py), with
expectations computed by hand or with ppi_py on the same arrays."""

import numpy as np
import pytest
from estimate_support import MODEL_KEYS, model_rows, response_score, scored

from calibration.estimates.inputs import metric_value
from calibration.estimates.models import estimate_models, model_samples
from calibration.estimates.ppi import human_only, ppi_mean


def test_labelled_unlabelled_and_left_out_responses_are_told_apart():
    rows = [
        scored("labelled", "m", 0.5, 0.6),
        scored("unlabelled", "m", None, 0.4),
        scored("judge undetermined", "m", 0.5, None),
        scored("gold undetermined", "m", None, 0.3, gold_undetermined=True),
    ]
    sample = model_samples(rows, "murgat_s")["m"]
    assert (sample.labelled_ids, sample.unlabelled_ids, sample.n_left_out) == (
        ("labelled",),
        ("unlabelled",),
        2,
    )


def test_an_undetermined_response_is_left_out_of_every_part_too():
    score = response_score("r", "gold", None, coverage=0.5)
    assert [metric_value(score, m) for m in ("murgat_s", "coverage", "precision", "recall")] == [None] * 4


def test_each_model_gets_the_judge_only_mean_of_everything_it_judged():
    rows = model_rows("m", [0.2, 0.4, None, None], [0.3, 0.5, 0.7, 0.9])
    (estimate,) = estimate_models(rows).models
    assert (estimate.n_judged, estimate.n_human) == (4, 2)
    assert estimate.judge_mean == pytest.approx(0.6)


def test_each_model_gets_the_human_only_and_ppi_estimates_of_its_own_responses():
    gold = [0.1, 0.5, 0.4, 0.9, None, None, None]
    judge = [0.2, 0.4, 0.5, 0.8, 0.3, 0.6, 0.7]
    rows = model_rows("a", gold, judge) + model_rows("b", [0.9, 0.8, None], [0.7, 0.6, 0.5])
    report = estimate_models(rows, alpha=0.1)
    a = next(m for m in report.models if m.model == "a")
    assert a.human == human_only(gold[:4], 0.1)
    assert a.ppi == ppi_mean(gold[:4], judge[:4], judge[4:], 0.1)
    assert a.ess_gain == pytest.approx((a.human.se / a.ppi.se) ** 2)


def test_models_are_ranked_by_their_ppi_mean():
    rows = (
        model_rows("low", [0.1, 0.2, None], [0.1, 0.2, 0.1])
        + model_rows("high", [0.8, 0.9, None], [0.8, 0.9, 0.9])
        + model_rows("no gold", [None, None], [0.5, 0.5])
    )
    assert [m.model for m in estimate_models(rows).models] == ["high", "low", "no gold"]


def test_the_json_form_has_exactly_the_contract_keys():
    rows = model_rows("a", [0.1, 0.5, 0.4, None], [0.2, 0.4, 0.5, 0.3]) + model_rows(
        "b", [0.6, 0.2, None, None], [0.5, 0.3, 0.6, 0.2], prefix="b-"
    )
    out = estimate_models(rows, judge="judge:j", precision="alce").to_dict()
    assert list(out) == ["judge", "precision", "metric", "alpha", "models", "differences"]
    assert [out[k] for k in ("judge", "precision", "metric", "alpha")] == [
        "judge:j",
        "alce",
        "murgat_s",
        0.05,
    ]
    assert all(list(m) == MODEL_KEYS for m in out["models"])
    assert list(out["differences"][0]) == ["a", "b", "paired", "ppi_diff", "ppi_ci"]
    # two and three gold responses: means, no interval, and why
    assert out["models"][0]["ppi_ci"] is None and "at least" in out["models"][0]["no_ci_reason"]


def test_a_model_without_two_labelled_responses_has_no_interval():
    (estimate,) = estimate_models(model_rows("m", [0.4, None], [0.5, 0.6])).models
    assert (estimate.human, estimate.ppi, estimate.ess_gain) == (None, None, None)
    assert estimate.to_dict()["ppi_ci"] is None and estimate.to_dict()["lambda"] is None


def test_models_that_answered_the_same_questions_get_a_paired_ppi_difference(ppi_py):
    gold_a, judge_a = [0.2, 0.6, 0.5, None, None, None], [0.3, 0.5, 0.6, 0.4, 0.8, 0.1]
    gold_b, judge_b = [0.1, 0.3, 0.5, None, None, None], [0.2, 0.2, 0.4, 0.5, 0.3, 0.3]
    report = estimate_models(model_rows("a", gold_a, judge_a) + model_rows("b", gold_b, judge_b))
    (difference,) = report.differences
    first, second = (difference.a, difference.b)
    sign = 1 if first == "a" else -1
    y = sign * (np.array(gold_a[:3]) - np.array(gold_b[:3]))
    f = sign * (np.array(judge_a[:3]) - np.array(judge_b[:3]))
    u = sign * (np.array(judge_a[3:]) - np.array(judge_b[3:]))
    expected = ppi_py.ppi_mean_pointestimate(y, f, u)
    assert difference.paired and {first, second} == {"a", "b"}
    assert difference.estimate.mean == pytest.approx(float(np.ravel(expected)[0]), abs=1e-9)
    assert difference.estimate == ppi_mean(y, f, u, 0.05, bounds=(-1.0, 1.0))


def test_a_question_labelled_for_one_model_only_counts_as_unlabelled_for_the_pair():
    rows = model_rows("a", [0.2, 0.6, 0.5, 0.3], [0.3, 0.5, 0.6, 0.4]) + model_rows(
        "b", [0.1, 0.3, None, None], [0.2, 0.2, 0.4, 0.5]
    )
    (difference,) = estimate_models(rows).differences
    assert difference.paired and (difference.estimate.n, difference.estimate.N) == (2, 2)


def test_models_that_answered_different_questions_get_an_independent_difference():
    rows = model_rows("a", [0.2, 0.6, 0.5, None], [0.3, 0.5, 0.6, 0.4]) + [
        scored(f"b-{i}", "b", g, j, question=f"other-{i}")
        for i, (g, j) in enumerate([(0.1, 0.2), (0.3, 0.2), (None, 0.4)])
    ]
    report = estimate_models(rows)
    (difference,) = report.differences
    a, b = (next(m for m in report.models if m.model == name) for name in (difference.a, difference.b))
    assert not difference.paired
    assert difference.estimate.mean == pytest.approx(a.ppi.mean - b.ppi.mean)
    assert difference.estimate.se == pytest.approx((a.ppi.se**2 + b.ppi.se**2) ** 0.5)


def test_the_same_questions_with_too_few_labelled_for_both_fall_back_to_independent():
    rows = model_rows("a", [0.2, 0.6, None, None], [0.3, 0.5, 0.6, 0.4]) + model_rows(
        "b", [None, None, 0.5, 0.3], [0.2, 0.2, 0.4, 0.5]
    )
    (difference,) = estimate_models(rows).differences
    assert not difference.paired


def test_three_models_give_three_differences_the_higher_ranked_first():
    rows = (
        model_rows("a", [0.8, 0.9, None], [0.8, 0.9, 0.9])
        + model_rows("b", [0.4, 0.6, None], [0.4, 0.5, 0.5])
        + model_rows("c", [0.1, 0.2, None], [0.1, 0.2, 0.1])
    )
    report = estimate_models(rows)
    assert [(d.a, d.b) for d in report.differences] == [("a", "b"), ("a", "c"), ("b", "c")]
