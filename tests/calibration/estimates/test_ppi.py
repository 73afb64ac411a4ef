"""The PPI++ mean estimator (calibration/estimates/ppi.py) against ppi_py on the same arrays, and
the properties the method promises."""

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from calibration.estimates.differences import independent_difference, paired_difference
from calibration.estimates.ppi import (
    MIN_LABELLED,
    MeanEstimate,
    all_equal_interval,
    ess_gain,
    human_only,
    ppi_mean,
    t_estimate,
    tuned_lambda,
    z_value,
)

TOLERANCE = 1e-9


def scores(seed: int, n: int, N: int, noise: float, bias: float = 0.0):
    """Gold in [0, 1] and a judge that tracks it with noise and bias: (y, f, f_unlabelled)."""
    rng = np.random.default_rng(seed)
    truth = rng.beta(2, 2, n + N)
    judge = np.clip(truth + bias + rng.normal(0, noise, n + N), 0, 1)
    return truth[:n], judge[:n], judge[n:]


CASES = [(0, 40, 2000, 0.1, 0.0), (1, 12, 300, 0.3, 0.1), (2, 200, 5000, 0.05, -0.05), (3, 8, 30, 0.6, 0.2)]


def as_pair(ci) -> tuple[float, float]:
    return float(np.ravel(ci[0])[0]), float(np.ravel(ci[1])[0])


def ppi_py_formula(y, f, f_unlabelled, lam: float, ddof: int) -> float:
    """ppi_py's standard error of the PPI mean, its variances taken over len − ddof (0: ppi_py's)."""
    n, N = len(y), len(f_unlabelled)
    return math.sqrt(np.var(lam * f_unlabelled, ddof=min(ddof, 1)) / N + np.var(y - lam * f, ddof=ddof) / n)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("alpha", [0.05, 0.1])
@pytest.mark.parametrize("given", [1.0, None])
def test_the_mean_and_lambda_are_ppi_pys_and_the_interval_its_formula_with_t_on_n_minus_k_df(
    ppi_py, case, alpha, given
):
    y, f, f_unlabelled = scores(*case)
    mine = ppi_mean(y, f, f_unlabelled, alpha, lam=given)
    lam_theirs = 1 if given is not None else None
    point = float(np.ravel(ppi_py.ppi_mean_pointestimate(y, f, f_unlabelled, lam=lam_theirs))[0])
    theirs = as_pair(ppi_py.ppi_mean_ci(y, f, f_unlabelled, alpha=alpha, lam=lam_theirs))
    assert mine.mean == pytest.approx(point, abs=TOLERANCE)
    # ppi_py's interval is z × its formula (variances over n) ...
    assert (theirs[1] - theirs[0]) / 2 == pytest.approx(
        z_value(alpha) * ppi_py_formula(y, f, f_unlabelled, mine.lam, 0), abs=TOLERANCE
    )
    # ... ours the same formula with variances over n − k and t on n − k df (k = 2 when λ is tuned)
    k = 1 if given is not None else 2
    half = scipy_stats.t.ppf(1 - alpha / 2, len(y) - k) * ppi_py_formula(y, f, f_unlabelled, mine.lam, k)
    assert mine.ci == pytest.approx((mine.mean - half, mine.mean + half), abs=TOLERANCE)
    assert mine.df == len(y) - k and mine.method == "t"


@pytest.mark.parametrize("case", CASES)
def test_the_tuned_lambda_is_the_one_ppi_py_uses(ppi_py, case):
    y, f, f_unlabelled = scores(*case)
    point = ppi_py.ppi_mean_pointestimate(y, f, f_unlabelled, lam=tuned_lambda(y, f, f_unlabelled))
    assert float(np.ravel(point)[0]) == pytest.approx(
        float(np.ravel(ppi_py.ppi_mean_pointestimate(y, f, f_unlabelled))[0]), abs=TOLERANCE
    )


def test_the_tuned_lambda_by_hand():
    # cov(Y, f) = 0.125 (ddof 0); var of f ∪ f̃ = 15/56 (ddof 1); 1 + n/N = 2 → λ = 7/30
    assert tuned_lambda([0, 1, 1, 0], [0, 1, 0, 0], [1, 0, 1, 0]) == pytest.approx(7 / 30, abs=1e-12)


def test_a_judge_that_disagrees_with_the_people_gets_lambda_zero():
    assert tuned_lambda([0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 1, 0]) == 0.0


def test_a_judge_that_never_varies_gets_lambda_zero():
    assert tuned_lambda([0, 1, 0, 1], [0.5] * 4, [0.5] * 10) == 0.0


@pytest.mark.parametrize("case", CASES)
def test_human_only_is_the_mean_with_a_t_interval_on_n_minus_1_df(case):
    y, _, _ = scores(*case)
    mine = human_only(y, 0.05)
    half = scipy_stats.t.ppf(0.975, len(y) - 1) * y.std(ddof=1) / math.sqrt(len(y))
    assert mine.mean == pytest.approx(float(y.mean()), abs=TOLERANCE)
    assert mine.ci == pytest.approx((y.mean() - half, y.mean() + half), abs=TOLERANCE)


@pytest.mark.parametrize("case", CASES)
def test_lambda_zero_gives_the_human_only_estimate(case):
    y, f, f_unlabelled = scores(*case)
    at_zero, human = ppi_mean(y, f, f_unlabelled, 0.05, lam=0.0), human_only(y, 0.05)
    assert at_zero.mean == pytest.approx(human.mean, abs=1e-12)
    assert at_zero.ci == pytest.approx(human.ci, abs=1e-12)


def test_a_judge_identical_to_gold_gives_a_ci_no_wider_than_the_judge_only_standard_error_allows():
    # a labelled sample as spread as the rest: 25 zeros and 25 ones, 2,500 of each unlabelled
    gold, unlabelled = np.array([0.0, 1.0] * 25), np.array([0.0, 1.0] * 2500)
    everything = np.concatenate([gold, unlabelled])
    judge_only_se = everything.std(ddof=1) / math.sqrt(len(everything))  # 0.5 / √5049
    ppi = ppi_mean(gold, gold, unlabelled, 0.05)
    assert ppi.lam == pytest.approx(0.25 / (1.01 * 0.25 * 5050 / 5049), abs=1e-12)
    # within the small-sample corrections (variances over n − 2 and N − 1, t on 48 df) of it
    assert ppi.se <= judge_only_se * 1.001
    assert ppi.half_width <= scipy_stats.t.ppf(0.975, 48) * judge_only_se * 1.001


@pytest.mark.parametrize("seed", range(3))
def test_plain_ppi_with_a_judge_identical_to_gold_is_the_judges_mean_with_its_standard_error(seed):
    gold, _, unlabelled = scores(seed, 50, 5000, 0.0)
    ppi = ppi_mean(gold, gold, unlabelled, 0.05, lam=1.0)
    assert ppi.mean == pytest.approx(unlabelled.mean(), abs=1e-12)
    assert ppi.se == pytest.approx(unlabelled.std(ddof=1) / math.sqrt(len(unlabelled)), abs=1e-12)


def test_a_useful_judge_narrows_the_interval_and_the_gain_says_by_how_much():
    y, f, f_unlabelled = scores(0, 40, 2000, 0.1)
    human, ppi = human_only(y, 0.05), ppi_mean(y, f, f_unlabelled, 0.05)
    assert ppi.half_width < human.half_width
    assert ess_gain(human, ppi) == pytest.approx((human.se / ppi.se) ** 2, rel=1e-12)


def test_the_gain_by_hand():
    human, ppi = t_estimate(0.5, 0.1, 0.05, 19, 20), t_estimate(0.5, 0.05, 0.05, 18, 20, 500, 0.8)
    assert ess_gain(human, ppi) == pytest.approx(4.0)


def test_fewer_than_two_labelled_values_give_no_estimate():
    assert human_only([0.4], 0.05) is None
    assert ppi_mean([0.4], [0.5], [0.1, 0.2], 0.05) is None


def test_with_nothing_unlabelled_ppi_is_the_human_only_mean():
    assert ppi_mean([0.2, 0.6, 0.7], [0.3, 0.5, 0.9], [], 0.05) == human_only([0.2, 0.6, 0.7], 0.05)


def test_gold_and_judge_values_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="3 gold values but 2"):
        ppi_mean([0.1, 0.2, 0.3], [0.1, 0.2], [0.5], 0.05)


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5])
def test_an_alpha_outside_zero_one_is_refused(alpha):
    with pytest.raises(ValueError, match="alpha"):
        z_value(alpha)


def test_a_paired_difference_is_ppi_on_the_per_question_differences(ppi_py):
    ya, fa, ua = scores(4, 30, 1000, 0.1)
    yb, fb, ub = scores(5, 30, 1000, 0.2, bias=0.1)
    mine = paired_difference(ya, yb, fa, fb, ua, ub, 0.05)
    assert mine == ppi_mean(ya - yb, fa - fb, ua - ub, 0.05, bounds=(-1.0, 1.0))
    point = ppi_py.ppi_mean_pointestimate(ya - yb, fa - fb, ua - ub)
    assert mine.mean == pytest.approx(float(np.ravel(point)[0]), abs=TOLERANCE)


def test_an_independent_difference_adds_the_variances():
    a = MeanEstimate(0.6, 0.03, (0.0, 1.0), 10, 100, 0.5)
    b = MeanEstimate(0.4, 0.04, (0.0, 1.0), 12, 90, 0.7)
    difference = independent_difference(a, b, 0.05)
    assert difference.mean == pytest.approx(0.2)
    assert difference.se == pytest.approx(0.05)
    assert difference.ci == pytest.approx((0.2 - 1.959963984540054 * 0.05, 0.2 + 1.959963984540054 * 0.05))


def test_gold_values_all_equal_get_the_exact_interval_never_a_point():
    # ten zeros: the means under which ten zeros have probability ≥ .05 are [0, 1 − .05^(1/10)]
    ppi = ppi_mean([0.0] * 10, [0, 0.1, 0, 0.2, 0, 0.05, 0, 0, 0, 0], [0.1, 0.2, 0.3], 0.05)
    assert (ppi.mean, ppi.lam, ppi.method) == (0.0, 0.0, "exact")
    assert ppi.ci == pytest.approx((0.0, 0.25886555), abs=1e-8)
    assert human_only([1.0] * 10, 0.05).ci == pytest.approx((0.74113445, 1.0), abs=1e-8)


def test_the_exact_interval_of_an_inner_value_reaches_towards_both_bounds():
    low, high = all_equal_interval(0.5, 10, 0.05)
    assert (low, high) == pytest.approx((0.5 - 0.5 * 0.25886555, 0.5 + 0.5 * 0.25886555), abs=1e-8)
    assert all_equal_interval(0.0, 10, 0.05, (-1.0, 1.0)) == pytest.approx(
        (-0.25886555, 0.25886555), abs=1e-8
    )


def test_a_constant_judge_gets_lambda_exactly_zero_despite_float_noise():
    judge = np.array([0.3] * 5 + [0.1 * 3] * 5)  # 0.1 × 3 is 0.30000000000000004: variance ~1e-33
    assert np.var(judge) > 0
    assert tuned_lambda(np.linspace(0, 1, 10), judge, [0.3] * 20) == 0.0


def test_below_the_minimum_gold_there_is_a_mean_but_no_interval_and_the_reason():
    y, f, f_unlabelled = scores(0, MIN_LABELLED - 1, 100, 0.1)
    ppi = ppi_mean(y, f, f_unlabelled, 0.05)
    assert (
        ppi.ci is None
        and math.isnan(ppi.half_width)
        and ppi.mean == pytest.approx(ppi_mean(y, f, f_unlabelled, 0.05, lam=ppi.lam).mean)
    )
    assert f"at least {MIN_LABELLED}" in ppi.no_ci_reason
    assert human_only(y, 0.05).ci is None


def test_an_independent_difference_without_an_interval_on_either_side_has_none():
    a = ppi_mean(*scores(0, MIN_LABELLED - 1, 100, 0.1), 0.05)
    b = ppi_mean(*scores(1, 30, 100, 0.1), 0.05)
    difference = independent_difference(a, b, 0.05)
    assert difference.ci is None and difference.no_ci_reason == a.no_ci_reason
