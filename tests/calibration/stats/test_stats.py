"""calibration.stats: correlations, paired bootstrap, jackknife interval, confidence set of the best,
Benjamini–Yekutieli, the expected r of the selection rule."""

import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from calibration.stats import (
    bootstrap,
    comparison,
    confidence_set,
    correlation,
    distributions,
    jackknife,
    selection,
)


def correlated(rng, n, rho, k=1):
    y = rng.normal(size=n)
    X = rho * y + math.sqrt(1 - rho**2) * rng.normal(size=(k, n))
    return X, y


# --- point correlations ---------------------------------------------------------------


def test_pearson_rows_equals_scipy_pearsonr_to_1e9():
    X, y = correlated(np.random.default_rng(1), 80, 0.5, k=6)
    expected = [scipy_stats.pearsonr(x, y).statistic for x in X]
    assert np.max(np.abs(correlation.pearson_rows(X, y) - expected)) < 1e-9


def test_pearson_rows_leaves_out_missing_responses_of_that_row_only():
    X = np.array([[1.0, 2.0, 3.0, 5.0, np.nan], [1.0, 2.0, 3.0, 5.0, 4.0]])
    y = np.array([2.0, 1.0, 4.0, 3.0, 9.0])
    r = correlation.pearson_rows(X, y)
    assert r[0] == pytest.approx(scipy_stats.pearsonr(X[0, :4], y[:4]).statistic, abs=1e-12)
    assert r[1] == pytest.approx(scipy_stats.pearsonr(X[1], y).statistic, abs=1e-12)


def test_constant_judge_scores_give_nan_and_a_reason_not_an_error():
    x, y = np.full(5, 0.4), np.arange(5.0)
    assert np.isnan(correlation.pearson_rows(x, y)[0])
    assert (
        correlation.correlation_undefined_reason(x, y)
        == "the judge scores are constant over the shared responses"
    )


def test_two_shared_responses_are_too_few_for_a_correlation():
    x, y = np.array([0.1, 0.5, np.nan]), np.array([0.2, 0.9, 0.3])
    assert np.isnan(correlation.pearson_rows(x, y)[0])
    assert correlation.correlation_undefined_reason(x, y).startswith("fewer than 3 shared responses")


def test_spearman_rows_equals_scipy_with_ties():
    X = np.array([[1, 2, 2, 3, 5, 5, 0], [0, 0, 1, 1, 2, 2, 3]], dtype=float)
    y = np.array([1, 1, 2, 4, 3, 3, 0], dtype=float)
    expected = [scipy_stats.spearmanr(x, y).statistic for x in X]
    assert np.max(np.abs(correlation.spearman_rows(X, y) - expected)) < 1e-12


def test_kendall_rows_is_scipy_tau_b_with_ties():
    X = np.array([[1, 2, 2, 3, 5, 5, 0], [0, 0, 1, 1, 2, 2, 3]], dtype=float)
    y = np.array([1, 1, 2, 4, 3, 3, 0], dtype=float)
    expected = [scipy_stats.kendalltau(x, y).statistic for x in X]
    assert np.max(np.abs(correlation.kendall_rows(X, y) - expected)) < 1e-12


def test_average_ranks_give_tied_values_the_mean_of_their_ranks():
    ranks = correlation.average_ranks(np.array([30.0, 10.0, 20.0, 20.0, 20.0, 5.0]))
    assert ranks.tolist() == [6.0, 2.0, 4.0, 4.0, 4.0, 1.0]


def test_kendall_tau_b_counts_pairs_with_ties_in_either_side_left_out_of_its_side():
    # x = 1 2 2 3, y = 2 3 1 4: of the 6 pairs, 4 concordant, 1 discordant (1st, 3rd), 1 tied in x only
    # τ-b = (4 − 1) / √((6 − 1)(6 − 0)) = 3 / √30
    tau = correlation.kendall_tau_b(np.array([1.0, 2.0, 2.0, 3.0]), np.array([2.0, 3.0, 1.0, 4.0]))
    assert tau == pytest.approx(3 / math.sqrt(30), abs=1e-15)
    assert math.isnan(correlation.kendall_tau_b(np.array([1.0, 1.0, 1.0]), np.array([1.0, 2.0, 3.0])))


def test_ranks_and_tau_b_are_scipys_numbers_to_the_last_bit():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(3, 300))
        x = rng.integers(0, int(rng.integers(1, 12)), n) / 7
        y = x * rng.random() + rng.integers(0, int(rng.integers(1, 12)), n) / 5
        if not (np.ptp(x) and np.ptp(y)):
            continue
        assert correlation.kendall_tau_b(x, y) == scipy_stats.kendalltau(x, y).statistic
        assert np.array_equal(correlation.average_ranks(x), scipy_stats.rankdata(x))


def test_t_f_and_normal_functions_are_scipy_stats_numbers():
    q, df = np.array([0.5, 0.9, 0.975, 0.999]), np.array([1, 4, 29, 300])
    x = np.array([-2.0, 0.0, 1.5, np.inf])
    assert distributions.t_quantile(0.975, 1) == pytest.approx(math.tan(math.pi * 0.475), rel=1e-13)
    assert distributions.t_survival(0.0, 7) == 0.5
    assert distributions.normal_quantile(0.975) == pytest.approx(1.959963984540054, rel=1e-15)
    assert np.array_equal(distributions.t_quantile(q, df), scipy_stats.t.ppf(q, df))
    assert np.array_equal(distributions.t_survival(x, df), scipy_stats.t.sf(x, df))
    assert np.array_equal(
        distributions.f_cdf(x[1:], df[1:], df[:-1]), scipy_stats.f.cdf(x[1:], df[1:], df[:-1])
    )
    assert np.array_equal(distributions.normal_quantile(q), scipy_stats.norm.ppf(q))


def test_the_sweep_and_estimate_commands_leave_scipy_stats_unimported():
    # ≈ 0.45 CPU s of every such command's start: what they use of it comes from scipy.special
    modules = "calibration.cli.sweep, calibration.cli.estimate, calibration.cli.export"
    found = subprocess.run(
        [sys.executable, "-c", f"import sys; import {modules}; print('scipy.stats' in sys.modules)"],
        cwd=Path(__file__).resolve().parents[3],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (found.returncode, found.stdout.strip()) == (0, "False"), found.stderr


# --- bootstrap -------------------------------------------------------------------------


def test_multiplicities_count_each_response_in_each_resample():
    W = bootstrap.multiplicities(np.array([[0, 0, 2], [1, 2, 2]]), 3)
    assert W.tolist() == [[2, 0, 1], [0, 1, 2]]


def test_multiplicities_are_kept_in_the_narrowest_unsigned_type_that_holds_every_count():
    assert bootstrap.multiplicities(np.zeros((2, 255), int), 255).dtype == np.uint8
    W = bootstrap.multiplicities(np.zeros((2, 256), int), 256)  # all 256 draws are response 0
    assert W.dtype == np.uint16 and W[:, 0].tolist() == [256, 256]


@pytest.mark.parametrize(("n", "n_boot"), [(1, 3), (7, 5), (300, 3501), (4000, 600)])
def test_multiplicities_drawn_a_block_at_a_time_are_those_of_the_whole_index_matrix(n, n_boot):
    whole = bootstrap.multiplicities(bootstrap.resample_indices(n, n_boot, seed=9), n)
    np.testing.assert_array_equal(bootstrap.resample_multiplicities(n, n_boot, seed=9), whole)


def test_every_bootstrap_gives_the_same_numbers_from_narrow_counts_as_from_float_counts():
    X, y, idx = tied_data()
    W = bootstrap.multiplicities(idx, 30)
    for draws in (bootstrap.bootstrap_pearson, bootstrap.bootstrap_spearman, bootstrap.bootstrap_kendall):
        np.testing.assert_array_equal(draws(X, y, W), draws(X, y, W.astype(float)))


def explicit(statistic, X, Y, indices):
    """The naive reference: the statistic of each resampled pair of vectors."""
    out = np.full((len(indices), len(X)), np.nan)
    for b, idx in enumerate(indices):
        for c in range(len(X)):
            x, y = X[c][idx], Y[c][idx]
            ok = np.isfinite(x) & np.isfinite(y)
            out[b, c] = statistic(x[ok], y[ok]).statistic
    return out


def tied_data():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 5, 30).astype(float)
    X = np.vstack([y + rng.integers(-1, 2, 30), rng.integers(0, 4, 30)]).astype(float)
    return X, y, bootstrap.resample_indices(30, 40, seed=3)


def test_bootstrap_pearson_equals_pearsonr_of_each_resample():
    X, y, idx = tied_data()
    fast = bootstrap.bootstrap_pearson(X, y, bootstrap.multiplicities(idx, 30))
    assert np.max(np.abs(fast - explicit(scipy_stats.pearsonr, X, [y, y], idx))) < 1e-9


def test_bootstrap_pearson_with_missing_scores_and_one_target_per_row_equals_pearsonr():
    X, y, idx = tied_data()
    X[0, :4] = np.nan
    Y = np.vstack([y, y[::-1]])
    Y[1, 10] = np.nan
    fast = bootstrap.bootstrap_pearson(X, Y, bootstrap.multiplicities(idx, 30))
    assert np.max(np.abs(fast - explicit(scipy_stats.pearsonr, X, Y, idx))) < 1e-9


def test_bootstrap_spearman_reranks_each_resample_like_scipy():
    X, y, idx = tied_data()
    fast = bootstrap.bootstrap_spearman(X, y, bootstrap.multiplicities(idx, 30))
    assert np.max(np.abs(fast - explicit(scipy_stats.spearmanr, X, [y, y], idx))) < 1e-9


def test_bootstrap_kendall_is_tau_b_of_each_resample_like_scipy():
    X, y, idx = tied_data()
    fast = bootstrap.bootstrap_kendall(X, y, bootstrap.multiplicities(idx, 30), block=7)
    assert np.max(np.abs(fast - explicit(scipy_stats.kendalltau, X, [y, y], idx))) < 1e-9


@pytest.mark.parametrize("rank_bootstrap", [bootstrap.bootstrap_spearman, bootstrap.bootstrap_kendall])
def test_rank_bootstraps_give_each_resample_the_same_number_in_any_block(rank_bootstrap):
    rng = np.random.default_rng(4)
    X = rng.integers(0, 6, size=(3, 90)) / 5.0
    y = rng.integers(0, 4, size=90) / 3.0
    X[1, 7] = np.nan
    W = bootstrap.resample_multiplicities(90, 150, seed=2)
    one_at_a_time = rank_bootstrap(X, y, W, 1)
    for block in (bootstrap.RANK_BLOCK, 23, 150):
        np.testing.assert_array_equal(rank_bootstrap(X, y, W, block), one_at_a_time)


def test_a_resample_that_draws_one_response_only_is_undefined_not_an_error():
    W = bootstrap.multiplicities(np.array([[2, 2, 2, 2], [0, 1, 2, 3]]), 4)
    r = bootstrap.bootstrap_pearson([[1.0, 2.0, 3.0, 5.0]], [1.0, 3.0, 2.0, 4.0], W)
    assert np.isnan(r[0, 0]) and np.isfinite(r[1, 0])


def test_percentile_ci_ignores_undefined_resamples():
    samples = np.array([[np.nan], [0.1], [0.2], [0.3], [0.4], [0.5]])
    lo, hi = bootstrap.percentile_ci(samples, level=0.5)
    assert (lo[0], hi[0]) == pytest.approx((0.2, 0.4))


# --- jackknife: leave-one-out r and the interval for r -------------------------------------


def test_leave_one_out_r_equals_pearsonr_without_that_response():
    X, y = correlated(np.random.default_rng(3), 9, 0.5, k=2)
    X[1, 4] = np.nan
    left_out = jackknife.leave_one_out_pearson(X, y)
    for i in range(2):
        for j in range(9):
            keep = np.isfinite(X[i]) & (np.arange(9) != j)
            expected = scipy_stats.pearsonr(X[i, keep], y[keep]).statistic if np.isfinite(X[i, j]) else np.nan
            assert left_out[i, j] == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_jackknife_se_is_the_textbook_formula():
    # θ₋ⱼ = 1, 2, 3, 6 over m = 4: mean 3, Σ(θ₋ⱼ − 3)² = 4 + 1 + 0 + 9 = 14, SE = √(3/4 · 14)
    se = jackknife.jackknife_se(
        np.array([2.0]), np.array([[1.0, 2.0, 3.0, 6.0, 99.0]]), np.array([[1, 1, 1, 1, 0]], bool)
    )
    assert se[0] == pytest.approx(math.sqrt(0.75 * 14))


def test_fisher_jackknife_interval_is_tanh_of_z_plus_minus_t_times_the_jackknife_se():
    x = np.array([0.1, 0.4, 0.35, 0.8, 0.7, 0.2])
    y = np.array([0.0, 0.5, 0.2, 0.9, 0.6, 0.4])
    z_out = [math.atanh(scipy_stats.pearsonr(np.delete(x, j), np.delete(y, j)).statistic) for j in range(6)]
    se = math.sqrt(5 / 6 * sum((v - np.mean(z_out)) ** 2 for v in z_out))
    z = math.atanh(scipy_stats.pearsonr(x, y).statistic)
    half = scipy_stats.t.ppf(0.975, 5) * se
    low, high = jackknife.fisher_jackknife_ci(x, y)
    assert (low[0], high[0]) == pytest.approx((math.tanh(z - half), math.tanh(z + half)), abs=1e-12)


def test_no_interval_when_one_response_carries_all_the_variation():
    low, high = jackknife.fisher_jackknife_ci(np.array([0.0, 0.0, 0.0, 0.0, 1.0]), np.arange(5.0))
    assert math.isnan(low[0]) and math.isnan(high[0])


def test_no_interval_from_three_responses():
    low, _ = jackknife.fisher_jackknife_ci(np.array([0.1, 0.5, 0.3]), np.array([0.2, 0.9, 0.1]))
    assert math.isnan(low[0])


# --- the confidence set of the best and P(best) ----------------------------------------------

# r = (.5, .4); centred resamples c = (.01, −.01), (−.01, .01), (.02, 0), (−.02, 0): c₁ − c₀ = ∓.02,
# so se₀₁ = .02, |t| = .1 / .02 = 5 and every T* = .02 / .02 = 1 < 5: p = (1 + 0) / (1 + 4) = .2.
TWO_R = np.array([0.5, 0.4])
TWO_BOOT = TWO_R + np.array([[0.01, -0.01], [-0.01, 0.01], [0.02, 0.0], [-0.02, 0.0]])


def test_the_set_keeps_both_when_the_test_of_equality_does_not_reject():
    found = confidence_set.model_confidence_set(TWO_R, TWO_BOOT, alpha=0.05)
    assert found.in_set.tolist() == [True, True] and found.p_value.tolist() == pytest.approx([0.2, 0.2])


def test_the_set_drops_the_trailing_one_when_the_test_rejects():
    found = confidence_set.model_confidence_set(TWO_R, TWO_BOOT, alpha=0.25)
    assert found.in_set.tolist() == [True, False] and found.p_value.tolist() == pytest.approx([1.0, 0.2])


def test_identical_configurations_are_all_in_the_set():
    boot = np.tile(np.array([[0.5], [0.6], [0.55]]), (1, 3))
    found = confidence_set.model_confidence_set(np.full(3, 0.55), boot)
    assert found.in_set.all() and (found.p_value == 1.0).all()


def test_a_configuration_with_undefined_r_is_not_a_candidate():
    found = confidence_set.model_confidence_set(
        np.array([0.5, np.nan]), np.array([[0.5, np.nan], [0.6, 0.2]])
    )
    assert found.in_set.tolist() == [True, False] and math.isnan(found.p_value[1])


def test_probability_best_counts_wins_and_splits_ties():
    boot = np.array([[0.9, 0.1, 0.2], [0.3, 0.3, 0.1], [np.nan, 0.5, 0.4], [0.2, 0.1, 0.8]])
    assert confidence_set.probability_best(boot).tolist() == pytest.approx([1.5 / 4, 1.5 / 4, 1 / 4])


# --- Benjamini–Yekutieli -----------------------------------------------------------------


def test_benjamini_yekutieli_adjusts_sorted_p_values_and_keeps_nan_out_of_the_count():
    # m = 3, c(3) = 11/6: .01·3c/1 = .055, .03·3c/2 = .0825, .04·3c/3 = .0733…; monotone from the top
    adjusted = comparison.benjamini_yekutieli([0.01, 0.04, math.nan, 0.03])
    assert adjusted[[0, 1, 3]] == pytest.approx([0.055, 0.04 * 11 / 6, 0.04 * 11 / 6])
    assert math.isnan(adjusted[2])


# --- the expected r of the selection rule ----------------------------------------------------


def test_kfold_holds_every_response_out_exactly_once():
    folds = selection.kfold_indices(23, 5, seed=1)
    assert sorted(np.concatenate(folds).tolist()) == list(range(23))
    assert sorted(len(f) for f in folds) == [4, 4, 5, 5, 5]


def test_kfold_rejects_one_fold():
    with pytest.raises(ValueError, match="folds must be between 2"):
        selection.kfold_indices(10, 1)


def test_a_configuration_equal_to_gold_is_chosen_in_every_fold_and_reaches_r_one():
    rng = np.random.default_rng(6)
    y = rng.normal(size=30)
    X = rng.normal(size=(4, 30))
    X[2] = 3 * y + 1  # a linear copy: the training line maps it back onto gold exactly
    found = selection.expected_selected_r(X, y, folds=5, repeats=2)
    assert found.chosen == [0, 0, 10, 0] and found.expected_r == pytest.approx(1.0)
    assert found.optimism == pytest.approx(0.0, abs=1e-12)


def test_held_out_deviations_are_pooled_into_one_correlation():
    rng = np.random.default_rng(7)
    y = rng.normal(size=12)
    X = np.vstack([y + rng.normal(size=12), rng.normal(size=12)])
    found = selection.expected_selected_r(X, y, folds=3, repeats=1, seed=4)
    sxy = sxx = syy = 0.0
    for held_out in selection.kfold_indices(12, 3, seed=4):
        train = np.setdiff1d(np.arange(12), held_out)
        pick = int(np.argmax([scipy_stats.pearsonr(x[train], y[train]).statistic for x in X]))
        dx = (X[pick, held_out] - X[pick, held_out].mean()) / X[pick, train].std()
        dy = (y[held_out] - y[held_out].mean()) / y[train].std()
        sxy, sxx, syy = sxy + dx @ dy, sxx + dx @ dx, syy + dy @ dy
    assert found.expected_r == pytest.approx(sxy / math.sqrt(sxx * syy), abs=1e-12)


def test_too_few_responses_for_two_folds_give_no_expected_r():
    found = selection.expected_selected_r(
        np.array([[0.1, 0.5, 0.3, 0.9, 0.4]]), np.array([0.2, 0.6, 0.1, 1.0, 0.3])
    )
    assert math.isnan(found.expected_r) and found.folds == 1


def expected_r_se_choosing_with_pearson_rows(X, Y, folds: int, resamples: int, seed: int) -> float:
    """The reference: `expected_r_se` with every fold's row chosen by `pearson_rows` on its
    resampled training responses (the one rule), as it was before the sums chose it."""
    X, Y = correlation.paired_rows(X, Y)
    n = X.shape[1]
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(resamples):
        drawn = rng.integers(0, n, n)
        fold_of_response = rng.permutation(n) % folds
        parts = [np.flatnonzero(fold_of_response[drawn] == f) for f in range(folds)]
        if any(part.size < 3 for part in parts):
            continue
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            r = selection._pooled_r(X[:, drawn], Y[:, drawn], parts, np.zeros(X.shape[0], int))
        if math.isfinite(r):
            found.append(r)
    return float(np.std(found, ddof=1))


def rows_with_gaps_and_a_nearly_constant_row(seed: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 6, 40).astype(float)
    X = np.vstack([y + rng.normal(0, s, 40) for s in (1.0, 1.2, 2.0)] + [np.full(40, 3.0)])
    X[2, :5] = np.nan
    X[3, :2] = 0.0, 5.0  # constant on a training set that leaves out both
    return X, y


@pytest.mark.parametrize("seed", range(4))
def test_the_se_of_the_expected_r_chooses_each_fold_exactly_as_pearson_rows_would(seed, monkeypatch):
    X, y = rows_with_gaps_and_a_nearly_constant_row(seed)
    X[1, 30:] = X[0, 30:]  # close to row 0 on some training sets
    expected = expected_r_se_choosing_with_pearson_rows(X, y, folds=3, resamples=60, seed=seed)
    told = []
    by_sums = selection._picks_by_sums
    monkeypatch.setattr(selection, "_picks_by_sums", lambda *a: told.extend(by_sums(*a)) or by_sums(*a))
    assert selection.expected_r_se(X, y, folds=3, resamples=60, seed=seed) == expected
    assert told.count(selection._UNSURE) < len(told)  # the sums chose most folds


def test_picks_from_sums_are_the_rows_pearson_rows_picks_or_unsure_on_a_tie_or_a_flat_side():
    X, y = rows_with_gaps_and_a_nearly_constant_row(0)
    X[1] = X[0]
    X[3, :2] = 3.0
    X, Y = correlation.paired_rows(X, y)
    blocks, k = selection._centred_blocks(X, Y)
    training = np.array([[1.0] * 20 + [0.0] * 20, [0.0] * 20 + [2.0] * 20])
    picks = selection._picks_by_sums(blocks, k, training)
    # rows 0 and 1 are equal, so their r tie: the sums leave it to `_pick`
    assert picks == [selection._UNSURE, selection._UNSURE]
    X[1] = X[2] + 0.5  # no tie now; row 3 is constant on the second set only
    X[3, :2] = 0.0, 5.0
    blocks, k = selection._centred_blocks(X, Y)
    picks = selection._picks_by_sums(blocks, k, training)
    assert picks[0] == selection._pick(X, Y, np.arange(20)) == 0
    assert picks[1] is selection._UNSURE


def test_rows_are_centred_on_their_pairs_mean_as_nanmean_gives_it_and_a_row_without_pairs_is_zero():
    X = np.array([[1.0, 2.0, np.nan, 6.0], [np.nan, np.nan, 3.0, np.nan], [0.1, 0.2, 0.7, np.inf]])
    Y = np.array([[1.0, np.nan, 1.0, 1.0], [2.0, 2.0, np.nan, 2.0], [0.3, 0.3, 0.3, 0.3]])
    both = np.isfinite(X) & np.isfinite(Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the pair-less middle row must not warn
        centred = correlation.centred_on_pairs(X, both)
    assert centred[0].tolist() == [1.0 - 3.5, 0.0, 0.0, 6.0 - 3.5]  # mean of 1 and 6 (hand)
    assert centred[1].tolist() == [0.0, 0.0, 0.0, 0.0]
    expected = X[2] - np.nanmean(np.where(both[2], X[2], np.nan))
    assert centred[2].tolist() == [*expected[:3].tolist(), 0.0]  # nanmean's numbers, bit for bit
