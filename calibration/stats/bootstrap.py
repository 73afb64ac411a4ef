"""The paired bootstrap: one resampling of the responses shared by every configuration, so each
statistic is a matrix product over the multiplicity matrix, and percentile intervals from it."""

from __future__ import annotations

import warnings

import numpy as np

from calibration.stats.correlation import DEGENERATE_VARIANCE, MIN_PAIRS, paired_rows


def resample_indices(n: int, n_boot: int = 2000, seed: int = 0) -> np.ndarray:
    """(n_boot × n) response indices drawn with replacement; one matrix for a whole sweep."""
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def multiplicities(indices: np.ndarray, n: int) -> np.ndarray:
    """(B × n) float matrix W: W[b, i] = how often response i is in resample b.

    With W, every bootstrap sum is one matrix product (Σ_b x = W @ x)."""
    B = indices.shape[0]
    flat = (indices + n * np.arange(B)[:, None]).ravel()
    return np.bincount(flat, minlength=B * n).reshape(B, n).astype(float)


def bootstrap_pearson(X, Y, weights: np.ndarray, chunk_size: int = 256) -> np.ndarray:
    """Pearson r of every row in every resample: (B × k).

    `weights` is the multiplicity matrix of `multiplicities`. A resample in which a row
    has fewer than 3 responses or one side constant gives NaN for that row. One shared
    y without NaN takes the fast path (three matrix products per chunk of resamples).
    """
    X = np.atleast_2d(np.asarray(X, float))
    Y = np.asarray(Y, float)
    W = np.asarray(weights, float)
    k = X.shape[0]
    shared = Y.ndim == 1 and np.isfinite(Y).all() and np.isfinite(X).all()
    X, Y = paired_rows(X, Y)
    both = np.isfinite(X) & np.isfinite(Y)
    # Centre on constants first: r is unchanged and the one-pass sums keep their digits.
    Xc = np.where(both, X - np.nanmean(np.where(both, X, np.nan), axis=1, keepdims=True), 0.0)
    Yc = np.where(both, Y - np.nanmean(np.where(both, Y, np.nan), axis=1, keepdims=True), 0.0)
    tol_x = DEGENERATE_VARIANCE * (Xc**2).max(axis=1, initial=0.0)
    tol_y = DEGENERATE_VARIANCE * (Yc**2).max(axis=1, initial=0.0)
    if shared:
        yc = Yc[0]
        blocks = np.vstack([Xc, Xc**2, Xc * yc]).T
    else:
        M = both.astype(float)
        blocks = np.vstack([Xc, Xc**2, Xc * Yc, M, Yc, Yc**2]).T
    out = np.empty((W.shape[0], k))
    for start in range(0, W.shape[0], chunk_size):
        Wc = W[start : start + chunk_size]
        S = Wc @ blocks
        sx, sxx, sxy = S[:, :k], S[:, k : 2 * k], S[:, 2 * k : 3 * k]
        if shared:
            count = np.broadcast_to(Wc.sum(1)[:, None], sx.shape)
            sy = np.broadcast_to((Wc @ yc)[:, None], sx.shape)
            syy = np.broadcast_to((Wc @ yc**2)[:, None], sx.shape)
        else:
            count, sy, syy = S[:, 3 * k : 4 * k], S[:, 4 * k : 5 * k], S[:, 5 * k :]
        with np.errstate(invalid="ignore", divide="ignore"):
            vx = sxx - sx * sx / count
            vy = syy - sy * sy / count
            r = (sxy - sx * sy / count) / np.sqrt(vx * vy)
        bad = (count < MIN_PAIRS) | (vx <= tol_x * count) | (vy <= tol_y * count)
        r[bad] = np.nan
        out[start : start + chunk_size] = np.clip(r, -1.0, 1.0)
    return out


def _weighted_ranks(values: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Average ranks every item would get in each resample (B × n); ties share the mean rank."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    group_of = np.cumsum(np.r_[True, ordered[1:] != ordered[:-1]]) - 1
    counts = np.add.reduceat(W[:, order], starts, axis=1)
    below = np.cumsum(counts, axis=1) - counts
    ranks = np.empty_like(W)
    ranks[:, order] = (below + (counts + 1.0) / 2.0)[:, group_of]
    return ranks


def _weighted_pearson(A, C, W):
    count = W.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ma = (W * A).sum(1) / count
        mc = (W * C).sum(1) / count
        da, dc = A - ma[:, None], C - mc[:, None]
        vx, vy = (W * da * da).sum(1), (W * dc * dc).sum(1)
        r = (W * da * dc).sum(1) / np.sqrt(vx * vy)
    # Ranks are on a scale of n, so "constant" is a spread far below one rank step.
    r[(count < MIN_PAIRS) | (vx < 1e-9) | (vy < 1e-9)] = np.nan
    return np.clip(r, -1.0, 1.0)


def bootstrap_spearman(X, Y, weights: np.ndarray, chunk_size: int = 256) -> np.ndarray:
    """Spearman ρ of every row in every resample (B × k), ranks recomputed per resample."""
    X, Y = paired_rows(X, Y)
    W = np.asarray(weights, float)
    out = np.full((W.shape[0], X.shape[0]), np.nan)
    for i in range(X.shape[0]):
        both = np.isfinite(X[i]) & np.isfinite(Y[i])
        x, y, Wi = X[i, both], Y[i, both], W[:, both]
        for start in range(0, W.shape[0], chunk_size):
            Wc = Wi[start : start + chunk_size]
            out[start : start + chunk_size, i] = _weighted_pearson(
                _weighted_ranks(x, Wc), _weighted_ranks(y, Wc), Wc
            )
    return out


def bootstrap_kendall(X, Y, weights: np.ndarray, block: int = 512) -> np.ndarray:
    """Kendall τ-b of every row in every resample (B × k).

    With multiplicities w, τ-b = wᵀ(S∘T)w / √((wᵀ|S|w)(wᵀ|T|w)) where S[i,j] = sign(x_i − x_j)
    and T likewise for y: copies of one response tie in both and drop out, exactly as in
    `scipy.stats.kendalltau` of the resampled vectors. Cost O(B·n²) per row, in blocks.
    """
    X, Y = paired_rows(X, Y)
    W = np.asarray(weights, float)
    out = np.full((W.shape[0], X.shape[0]), np.nan)
    untied_y_cache: dict[bytes, np.ndarray] = {}  # rows of one sweep share their gold vector
    for i in range(X.shape[0]):
        both = np.isfinite(X[i]) & np.isfinite(Y[i])
        x, y, Wi = X[i, both], Y[i, both], W[:, both]
        key = y.tobytes() + both.tobytes()
        concordance = np.zeros(W.shape[0])
        untied_x = np.zeros(W.shape[0])
        untied_y = untied_y_cache.get(key)
        if untied_y is None:
            untied_y = np.zeros(W.shape[0])
        for start in range(0, x.size, block):
            sx = np.sign(x[start : start + block, None] - x[None, :])
            sy = np.sign(y[start : start + block, None] - y[None, :])
            Wb = Wi[:, start : start + block]
            concordance += ((Wi @ (sx * sy).T) * Wb).sum(1)
            untied_x += ((Wi @ np.abs(sx).T) * Wb).sum(1)
            if key not in untied_y_cache:
                untied_y += ((Wi @ np.abs(sy).T) * Wb).sum(1)
        untied_y_cache[key] = untied_y
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = concordance / np.sqrt(untied_x * untied_y)
        tau[(Wi.sum(1) < MIN_PAIRS) | (untied_x == 0) | (untied_y == 0)] = np.nan
        out[:, i] = np.clip(tau, -1.0, 1.0)
    return out


def percentile_ci(samples: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval per column of a (B × k) sample matrix, ignoring NaN resamples.

    Columns with no finite resample give (NaN, NaN)."""
    samples = np.atleast_2d(np.asarray(samples, float).T).T
    tail = 100.0 * (1.0 - level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns → NaN, on purpose
        lo, hi = np.nanpercentile(samples, [tail, 100.0 - tail], axis=0)
    return lo, hi
