"""calibration.stats.correlation: correlations, paired bootstrap, Williams, Holm, CV selection, agreement."""

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from calibration.stats import bootstrap, comparison, correlation, selection


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


# --- bootstrap -------------------------------------------------------------------------


def test_multiplicities_count_each_response_in_each_resample():
    W = bootstrap.multiplicities(np.array([[0, 0, 2], [1, 2, 2]]), 3)
    assert W.tolist() == [[2, 0, 1], [0, 1, 2]]


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


def test_a_resample_that_draws_one_response_only_is_undefined_not_an_error():
    W = bootstrap.multiplicities(np.array([[2, 2, 2, 2], [0, 1, 2, 3]]), 4)
    r = bootstrap.bootstrap_pearson([[1.0, 2.0, 3.0, 5.0]], [1.0, 3.0, 2.0, 4.0], W)
    assert np.isnan(r[0, 0]) and np.isfinite(r[1, 0])


def test_percentile_ci_ignores_undefined_resamples():
    samples = np.array([[np.nan], [0.1], [0.2], [0.3], [0.4], [0.5]])
    lo, hi = bootstrap.percentile_ci(samples, level=0.5)
    assert (lo[0], hi[0]) == pytest.approx((0.2, 0.4))


def test_bootstrap_ci_covers_the_true_correlation_about_95_percent_of_the_time():
    rng = np.random.default_rng(2024)
    rho, n, replications, resamples = 0.6, 60, 200, 500
    covered = 0
    for replication in range(replications):
        X, y = correlated(rng, n, rho)
        W = bootstrap.multiplicities(bootstrap.resample_indices(n, resamples, seed=replication), n)
        lo, hi = bootstrap.percentile_ci(bootstrap.bootstrap_pearson(X, y, W))
        covered += lo[0] <= rho <= hi[0]
    assert 0.88 <= covered / replications <= 0.99


def test_paired_bootstrap_p_is_one_for_identical_configurations():
    samples = np.array([0.2, 0.5, 0.7])
    assert bootstrap.bootstrap_p_not_greater(samples, samples) == 1.0


def test_paired_bootstrap_p_counts_resamples_where_best_is_not_ahead_plus_one():
    # best is behind in 1 of 4 resamples (one more is undefined): (1 + 1) / (1 + 4)
    assert (
        bootstrap.bootstrap_p_not_greater(
            np.array([0.5, 0.6, 0.7, 0.8, np.nan]), np.array([0.6, 0.5, 0.5, 0.5, 0.1])
        )
        == 0.4
    )


# --- Williams' test and Holm -------------------------------------------------------------


def test_williams_matches_the_graham_baldwin_worked_example():
    # r12 = .65 (human, metric A), r13 = .55 (human, metric B), r23 = .3, n = 50 →
    # one-sided p = 0.20928617286753592: the README example of github.com/inmoonlight/nlp-williams,
    # a port of Graham & Baldwin (2014)'s script github.com/ygraham/nlp-williams.
    result = comparison.williams_test(0.65, 0.55, 0.3, 50)
    assert result.df == 47
    assert result.p_one_sided == pytest.approx(0.20928617286753592, abs=1e-12)


def test_williams_matches_steiger_1980_table_1_example():
    # Steiger (1980), Psychological Bulletin 87(2), Table 1, n = 103: r(V1, M1) = .40,
    # r(V1, F1) = .50, r(M1, F1) = .10. psych::r.test(103, .4, .5, .1) (documented
    # "Steiger case A") reports t = -0.89 with a two-sided probability of 0.37.
    result = comparison.williams_test(0.40, 0.50, 0.10, 103)
    assert round(result.t, 2) == -0.89
    assert round(2 * min(result.p_one_sided, 1 - result.p_one_sided), 2) == 0.37


def test_williams_is_one_sided_so_a_lower_correlation_gives_p_above_half():
    assert comparison.williams_test(0.55, 0.65, 0.3, 50).p_one_sided == pytest.approx(1 - 0.20928617286753592)


def test_williams_of_a_judge_against_itself_is_t_zero_p_half():
    result = comparison.williams_test(0.7, 0.7, 1.0, 40)
    assert (result.t, result.p_one_sided) == (0.0, 0.5)


def test_williams_needs_more_than_three_responses():
    result = comparison.williams_test(0.9, 0.1, 0.2, 3)
    assert math.isnan(result.p_one_sided) and "more than 3" in result.reason


def test_holm_adjusts_sorted_p_values_and_keeps_nan_out_of_the_count():
    adjusted = comparison.holm_adjust([0.01, 0.04, math.nan, 0.03, 0.5])
    # m = 4: 0.01·4, max(0.03·3, 0.04), max(0.04·2, 0.09), 0.5·1
    assert adjusted[[0, 1, 3, 4]] == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert math.isnan(adjusted[2])


# --- cross-validated selection -----------------------------------------------------------


def test_kfold_holds_every_response_out_exactly_once():
    folds = selection.kfold_indices(23, 5, seed=1)
    assert sorted(np.concatenate(folds).tolist()) == list(range(23))
    assert sorted(len(f) for f in folds) == [4, 4, 5, 5, 5]


def test_kfold_rejects_one_fold():
    with pytest.raises(ValueError, match="folds must be between 2"):
        selection.kfold_indices(10, 1)


def test_cross_validated_selection_is_optimistic_on_pure_noise_on_average():
    rng = np.random.default_rng(5)
    optimism = []
    for trial in range(20):
        X, y = rng.normal(size=(40, 60)), rng.normal(size=60)
        result = selection.crossvalidated_selection(X, y, selection.kfold_indices(60, 5, seed=trial))
        optimism.append(result.optimism)
    assert np.mean(optimism) > 0


def test_cross_validated_selection_chooses_the_correlated_row_in_every_fold():
    rng = np.random.default_rng(6)
    y = rng.normal(size=60)
    X = rng.normal(size=(10, 60))
    X[7] = y + 0.3 * rng.normal(size=60)
    result = selection.crossvalidated_selection(X, y, selection.kfold_indices(60, 5, seed=0))
    assert result.chosen == [7] * 5
