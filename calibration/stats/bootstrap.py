"""The paired bootstrap: one resampling of the responses shared by every configuration, so each
statistic is a matrix product over the multiplicity matrix, and percentile intervals from it."""

from __future__ import annotations

import warnings

import numpy as np

from calibration.stats.correlation import DEGENERATE_VARIANCE, MIN_PAIRS, centred_on_pairs, paired_rows
from calibration.stats.inversions import InversionCount, cumulative, run_starts


def resample_indices(n: int, n_boot: int = 2000, seed: int = 0) -> np.ndarray:
    """(n_boot × n) response indices drawn with replacement; one matrix for a whole sweep."""
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def multiplicities(indices: np.ndarray, n: int) -> np.ndarray:
    """(B × n) matrix W of whole numbers: W[b, i] = how often response i is in resample b.

    With W, every bootstrap sum is one matrix product (Σ_b x = W @ x). Its type is the narrowest
    unsigned integer that holds n (a count is at most n): at 2,000 resamples of 4,000 responses,
    16 MB against 64 MB of floats. The bootstraps turn a block of rows at a time into floats
    (`float_rows`), the same numbers."""
    B = indices.shape[0]
    out = np.empty((B, n), dtype=np.min_scalar_type(n))
    step = _block_rows(n)
    for start in range(0, B, step):
        _count_into(out[start : start + step], indices[start : start + step], n)
    return out


def resample_multiplicities(n: int, n_boot: int = 2000, seed: int = 0) -> np.ndarray:
    """`multiplicities(resample_indices(n, n_boot, seed), n)` without the (n_boot × n) index matrix
    (64 MB at 2,000 × 4,000): the indices are drawn a block of resamples at a time from the one
    generator, whose draws go on from block to block as in one call, so the matrix is the same."""
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, n), dtype=np.min_scalar_type(n))
    step = _block_rows(n)
    for start in range(0, n_boot, step):
        rows = out[start : start + step]
        _count_into(rows, rng.integers(0, n, size=rows.shape), n)
    return out


def _block_rows(n: int) -> int:
    """Resamples per block: about a million indices at a time, no full-size integer copies."""
    return max(1, 2**20 // max(n, 1))


def _count_into(out: np.ndarray, block: np.ndarray, n: int) -> None:
    flat = (block + n * np.arange(block.shape[0])[:, None]).ravel()
    out[:] = np.bincount(flat, minlength=block.shape[0] * n).reshape(-1, n)


def float_rows(W: np.ndarray, start: int, stop: int, columns=None) -> np.ndarray:
    """Rows [start, stop) of the multiplicity matrix (and only `columns` of them, when given) as
    floats: what a block of one bootstrap multiplies, without a float copy of the whole matrix."""
    block = W[start:stop] if columns is None else W[start:stop, columns]
    return np.asarray(block, dtype=float)


def bootstrap_pearson(X, Y, weights: np.ndarray, chunk_size: int = 256) -> np.ndarray:
    """Pearson r of every row in every resample: (B × k).

    `weights` is the multiplicity matrix of `multiplicities`. A resample in which a row
    has fewer than 3 responses or one side constant gives NaN for that row. One shared
    y without NaN takes the fast path (three matrix products per chunk of resamples).
    """
    X = np.atleast_2d(np.asarray(X, float))
    Y = np.asarray(Y, float)
    W = np.asarray(weights)
    k = X.shape[0]
    shared = Y.ndim == 1 and np.isfinite(Y).all() and np.isfinite(X).all()
    X, Y = paired_rows(X, Y)
    both = np.isfinite(X) & np.isfinite(Y)
    # Centre on constants first: r is unchanged and the one-pass sums keep their digits.
    Xc, Yc = centred_on_pairs(X, both), centred_on_pairs(Y, both)
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
        Wc = float_rows(W, start, start + chunk_size)
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


def _distinct_ranks(values: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(R, G, inverse): R[b, v] the average rank of distinct value v in resample b (ties share the
    mean rank), G[b, v] its weight there, and each item's distinct value (`values[j]` is distinct
    value `inverse[j]`).

    A value's rank is the weight below it plus (its weight + 1) / 2, both from one running sum
    over the items ordered by value; the weights are whole numbers, so every sum is exact."""
    distinct, inverse = np.unique(values, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(distinct.size + 1))
    C = cumulative(W[:, order])
    below = C[:, bounds[:-1]]
    weight = C[:, bounds[1:]] - below
    return below + (weight + 1.0) / 2.0, weight, inverse


def _weighted_ranks(values: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Average ranks every item would get in each resample (B × n); ties share the mean rank."""
    R, _, inverse = _distinct_ranks(values, W)
    return R[:, inverse]


def _centred_ranks(values: np.ndarray, W: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Every item's rank in each resample less the resample's weighted mean rank (B × n). The mean
    is summed over the distinct values, not the items: each term (a whole weight times a half-
    integer rank) and each partial sum is exact, so it is the items' sum to the last bit, and the
    subtraction is done before the ranks are spread over the items (one full-size pass, not three)."""
    R, weight, inverse = _distinct_ranks(values, W)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (R - ((weight * R).sum(1) / count)[:, None])[:, inverse]


def _weighted_centred(values, W) -> tuple:
    """(Σw per resample, the values' ranks centred on their weighted mean, their weighted sum of
    squares): the half of a weighted r that one side decides, computed once for every row compared
    with it."""
    count = W.sum(1)
    dc = _centred_ranks(values, W, count)
    return count, dc, (W * dc * dc).sum(1)


def _weighted_pearson_against(values, centred: tuple, W):
    """Weighted Pearson r of the ranks of `values` against the side `centred` (`_weighted_centred`)."""
    count, dc, vy = centred
    da = _centred_ranks(values, W, count)
    with np.errstate(invalid="ignore", divide="ignore"):
        weighted = W * da
        vx = np.multiply(weighted, da, out=da).sum(1)  # da's room reused: the same products
        r = np.multiply(weighted, dc, out=weighted).sum(1) / np.sqrt(vx * vy)
    # Ranks are on a scale of n, so "constant" is a spread far below one rank step.
    r[(count < MIN_PAIRS) | (vx < 1e-9) | (vy < 1e-9)] = np.nan
    return np.clip(r, -1.0, 1.0)


# resamples per block of the rank bootstraps: their full-width passes (ranks spread over the items,
# products, running sums) then fit in the cache; each resample's numbers are its own, so the same
RANK_BLOCK = 64


def bootstrap_spearman(X, Y, weights: np.ndarray, chunk_size: int = RANK_BLOCK) -> np.ndarray:
    """Spearman ρ of every row in every resample (B × k), ranks recomputed per resample."""
    X, Y = paired_rows(X, Y)
    W = np.asarray(weights)
    out = np.full((W.shape[0], X.shape[0]), np.nan)
    # rows with the same gold values on the same responses (one precision mode, sources that scored
    # the same responses) share y's ranks in every resample: ranked once per group
    groups: dict[tuple[bytes, bytes], list[int]] = {}
    for i in range(X.shape[0]):
        both = np.isfinite(X[i]) & np.isfinite(Y[i])
        if both.any():  # a source with no scored gold response: ρ undefined in every resample
            groups.setdefault((both.tobytes(), Y[i, both].tobytes()), []).append(i)
    for rows in groups.values():
        both = np.isfinite(X[rows[0]]) & np.isfinite(Y[rows[0]])
        y = Y[rows[0], both]
        for start in range(0, W.shape[0], chunk_size):
            Wc = float_rows(W, start, start + chunk_size, both)  # a block's columns, not all of W
            centred_y = _weighted_centred(y, Wc)
            for i in rows:
                out[start : start + chunk_size, i] = _weighted_pearson_against(X[i, both], centred_y, Wc)
    return out


def _tie_square_sums(C: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Σ over tie groups of (the group's weight)², per row of the running sums `C`
    (`cumulative`); the groups are the column runs beginning at `starts`."""
    ends = np.r_[starts[1:], C.shape[1] - 1]
    return ((C[:, ends] - C[:, starts]) ** 2).sum(1, dtype=np.int64)


def bootstrap_kendall(X, Y, weights: np.ndarray, block: int = RANK_BLOCK) -> np.ndarray:
    """Kendall τ-b of every row in every resample (B × k).

    With multiplicities w, τ-b = wᵀ(S∘T)w / √((wᵀ|S|w)(wᵀ|T|w)) where S[i,j] = sign(x_i − x_j)
    and T likewise for y: copies of one response tie in both and drop out, exactly as in
    `scipy.stats.kendalltau` of the resampled vectors. With the responses ordered by (x, y), the
    discordant pairs are the inversions D of y's ranks, so wᵀ(S∘T)w = t² − Σ_x − Σ_y + Σ_xy − 4D
    (t = Σw, Σ_x = Σ over x's tie groups of their weight², Σ_y, Σ_xy likewise) and
    wᵀ|S|w = t² − Σ_x: O(n log n) per resample, `block` resamples at a time. Responses with the
    same (x, y) are one item weighing their summed weight (a pair of them is tied in both, and
    every other pair counts their weights' product): fewer items, the same sums. Every sum is a
    whole number, exact in floats, so this is the quadratic form's value to the last bit.
    """
    X, Y = paired_rows(X, Y)
    W = np.asarray(weights)
    out = np.full((W.shape[0], X.shape[0]), np.nan)
    for i in range(X.shape[0]):
        both = np.isfinite(X[i]) & np.isfinite(Y[i])
        if not both.any():  # nothing to compare: undefined in every resample
            continue
        x, y = X[i, both], Y[i, both]
        if np.unique(x).size < np.unique(y).size:  # τ is symmetric: fewer ranks, fewer levels
            x, y = y, x
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
        x_starts = run_starts(x)
        items = run_starts(x, y)  # one item per distinct (x, y): columns [items[k], ends[k])
        ends = np.r_[items[1:], x.size]
        by_y = np.argsort(y[items], kind="stable")
        y_starts = run_starts(y[items][by_y])
        inversions = InversionCount(np.unique(y[items], return_inverse=True)[1])
        columns = np.flatnonzero(both)[order]
        # whole numbers: a weight times a weight is at most n², within int32 up to n = 46,340
        counts = np.int32 if columns.size <= 46_000 else np.int64
        for start in range(0, W.shape[0], block):
            C = cumulative(W[start : start + block, columns].astype(counts))
            items_w = C[:, ends] - C[:, items]  # each item's weight
            count = C[:, -1].astype(float)
            t2 = count**2
            ties_x = _tie_square_sums(C, x_starts)
            ties_xy = (items_w * items_w).sum(1, dtype=np.int64)
            ties_y = _tie_square_sums(cumulative(items_w[:, by_y]), y_starts)
            concordance = t2 - ties_x - ties_y + ties_xy - 4 * inversions(items_w)
            untied_x, untied_y = t2 - ties_x, t2 - ties_y
            with np.errstate(invalid="ignore", divide="ignore"):
                tau = concordance / np.sqrt(untied_x * untied_y)
            tau[(count < MIN_PAIRS) | (untied_x == 0) | (untied_y == 0)] = np.nan
            out[start : start + block, i] = np.clip(tau, -1.0, 1.0)
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
