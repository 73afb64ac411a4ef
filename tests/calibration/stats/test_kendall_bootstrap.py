"""Kendall's τ-b of each resample from counted inversions (O(n log n) per resample) is the
quadratic form wᵀ(S∘T)w / √((wᵀ|S|w)(wᵀ|T|w)) the sweep computed before, to the last bit, for the
same seed: ties in x, in y and in both, missing scores, resamples too small to say."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from calibration.stats import bootstrap
from calibration.stats.correlation import MIN_PAIRS, paired_rows


def quadratic_kendall(X, Y, W):
    """τ-b of every row in every resample from the full n × n sign matrices."""
    X, Y = paired_rows(X, Y)
    out = np.full((W.shape[0], X.shape[0]), np.nan)
    for i in range(X.shape[0]):
        both = np.isfinite(X[i]) & np.isfinite(Y[i])
        x, y, Wi = X[i, both], Y[i, both], W[:, both]
        sx, sy = np.sign(x[:, None] - x[None, :]), np.sign(y[:, None] - y[None, :])
        concordance = ((Wi @ (sx * sy)) * Wi).sum(1)
        untied_x, untied_y = ((Wi @ np.abs(sx)) * Wi).sum(1), ((Wi @ np.abs(sy)) * Wi).sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = concordance / np.sqrt(untied_x * untied_y)
        tau[(Wi.sum(1) < MIN_PAIRS) | (untied_x == 0) | (untied_y == 0)] = np.nan
        out[:, i] = np.clip(tau, -1.0, 1.0)
    return out


scores = st.one_of(st.none(), st.integers(0, 5).map(float), st.floats(0, 1, allow_nan=False))


@settings(max_examples=150)
@given(
    st.integers(1, 40).flatmap(
        lambda n: st.tuples(
            st.lists(st.lists(scores, min_size=n, max_size=n), min_size=1, max_size=3),
            st.lists(scores, min_size=n, max_size=n),
            st.integers(0, 2**31),
        )
    )
)
def test_counted_inversions_give_the_quadratic_forms_tau_for_the_same_seed(case):
    rows, gold, seed = case
    n = len(gold)
    X = np.array([[np.nan if v is None else v for v in row] for row in rows])
    y = np.array([np.nan if v is None else v for v in gold])
    W = bootstrap.multiplicities(bootstrap.resample_indices(n, 30, seed), n)
    np.testing.assert_array_equal(bootstrap.bootstrap_kendall(X, y, W, block=7), quadratic_kendall(X, y, W))


def test_a_sweep_sized_row_equals_the_quadratic_form():
    rng = np.random.default_rng(3)
    x = np.round(rng.random(600), 2)  # ties, like MURGAT-S fractions
    y = np.round(0.6 * x + 0.4 * rng.random(600), 1)
    W = bootstrap.multiplicities(bootstrap.resample_indices(600, 50, 11), 600)
    np.testing.assert_array_equal(bootstrap.bootstrap_kendall(x, y, W), quadratic_kendall(x, y, W))


def test_responses_with_the_same_pair_of_scores_count_as_one_weighed_item_like_scipy():
    # 300 responses on a 4 × 3 grid of scores: most pairs repeat, and each resample's τ-b is
    # scipy's on the drawn vectors (ties in x, in y and in both)
    rng = np.random.default_rng(5)
    x = rng.integers(0, 4, 300).astype(float)
    y = np.where(rng.random(300) < 0.7, np.minimum(x, 2), rng.integers(0, 3, 300)).astype(float)
    indices = bootstrap.resample_indices(300, 40, 2)
    found = bootstrap.bootstrap_kendall(x, y, bootstrap.multiplicities(indices, 300), block=16)
    expected = [scipy_stats.kendalltau(x[drawn], y[drawn]).statistic for drawn in indices]
    np.testing.assert_allclose(found[:, 0], expected, rtol=0, atol=1e-12)


def test_weighted_ranks_are_scipys_average_ranks_of_each_resample():
    rng = np.random.default_rng(8)
    values = np.round(rng.random(200), 1)  # ties
    indices = bootstrap.resample_indices(200, 25, 4)
    ranks = bootstrap._weighted_ranks(values, bootstrap.multiplicities(indices, 200))
    for b, drawn in enumerate(indices):
        np.testing.assert_array_equal(ranks[b, drawn], scipy_stats.rankdata(values[drawn]))
