"""Correlations over a (configurations × responses) matrix, row by row: Pearson, Spearman, Kendall τ-b.
(The bootstrap is in bootstrap.py, tests between correlations in comparison.py, selection in
selection.py, agreement between two label lists in label_metrics.py.)

Pure numpy (no scipy.stats: its import is ≈ 0.45 CPU s of a sweep; the ranks and τ-b are
scipy.stats.rankdata's and kendalltau's numbers, to the last bit). Layout everywhere: `X` is
(k configurations × n responses); the human side is either one vector `y` (n,) shared by every
row or a matrix `Y` (k × n) with one target row per configuration. NaN in `X` or `Y` means "missing": each row
uses only the responses where both of its values are finite.

The NaN story: a correlation that is undefined — fewer than 3 pairs, or one side
constant — comes back as NaN, never as an exception; `correlation_undefined_reason`
says why in words.
"""

from __future__ import annotations

import numpy as np

from calibration.stats.inversions import InversionCount, run_starts

MIN_PAIRS = 3  # a correlation of two points is always ±1: it says nothing
# A resample's spread below this share of the data's squared range is rounding noise,
# i.e. every value drawn was the same.
DEGENERATE_VARIANCE = 1e-10


def paired_rows(X, Y):
    """(X, Y) as float (k × n) matrices: a one-dimensional `Y` is shared by every row of `X`."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    Y = np.asarray(Y, dtype=float)
    Y = np.broadcast_to(Y, X.shape) if Y.ndim == 1 else np.atleast_2d(Y)
    if Y.shape != X.shape:
        raise ValueError(f"shapes differ: X {X.shape}, Y {Y.shape}")
    return X, Y


def centred_on_pairs(V: np.ndarray, both: np.ndarray) -> np.ndarray:
    """V minus each row's mean over its finite pairs (`both`), 0 outside them: `np.nanmean`'s
    numbers, and a row without a pair is all 0 (there is no mean to take, nor a warning)."""
    count = both.sum(axis=1, keepdims=True)
    mean = np.where(both, V, 0.0).sum(axis=1, keepdims=True) / np.maximum(count, 1)
    return np.where(both, V - mean, 0.0)


def correlation_undefined_reason(x, y) -> str | None:
    """Why r(x, y) over their finite pairs is undefined, or None when it is defined."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    both = np.isfinite(x) & np.isfinite(y)
    if both.sum() < MIN_PAIRS:
        return f"fewer than {MIN_PAIRS} shared responses ({int(both.sum())})"
    if np.ptp(x[both]) == 0:
        return "the judge scores are constant over the shared responses"
    if np.ptp(y[both]) == 0:
        return "the human scores are constant over the shared responses"
    return None


def pearson_rows(X, Y) -> np.ndarray:
    """Pearson r of every row of X against y (or the matching row of Y); shape (k,).

    Pairwise-complete: NaN entries drop that response for that row only. NaN where
    fewer than 3 pairs remain or either side is constant. Two-pass (centred) sums, so
    it matches `scipy.stats.pearsonr` to ~1e-15.
    """
    X, Y = paired_rows(X, Y)
    both = np.isfinite(X) & np.isfinite(Y)
    count = both.sum(axis=1)
    Xz, Yz = np.where(both, X, 0.0), np.where(both, Y, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        xc = np.where(both, Xz - (Xz.sum(1) / count)[:, None], 0.0)
        yc = np.where(both, Yz - (Yz.sum(1) / count)[:, None], 0.0)
        r = (xc * yc).sum(1) / np.sqrt((xc * xc).sum(1) * (yc * yc).sum(1))
    constant = (_masked_ptp(X, both) == 0) | (_masked_ptp(Y, both) == 0)
    r[(count < MIN_PAIRS) | constant] = np.nan
    return np.clip(r, -1.0, 1.0)


def _masked_ptp(A, mask):
    hi = np.where(mask, A, -np.inf).max(axis=1)
    lo = np.where(mask, A, np.inf).min(axis=1)
    return np.where(mask.any(axis=1), hi - lo, 0.0)


def average_ranks(values) -> np.ndarray:
    """1-based ranks of a vector, ties given the mean of their ranks (`scipy.stats.rankdata`'s
    default): every rank is a whole or half number, exact in floats."""
    values = np.asarray(values)
    order = np.argsort(values, kind="mergesort")
    starts = run_starts(values[order])
    bounds = np.r_[starts, values.size]  # a tie group holds the sorted positions [bounds[g], bounds[g+1])
    group = np.repeat(np.arange(starts.size), np.diff(bounds))
    ranks = np.empty(values.size)
    ranks[order] = 0.5 * (bounds[group] + bounds[group + 1] + 1)
    return ranks


def kendall_tau_b(x, y) -> float:
    """Kendall τ-b of two vectors with no NaN, as `scipy.stats.kendalltau(x, y).statistic` computes
    it (the same whole-number counts, the same float steps); NaN when either side is constant."""
    x, y = np.asarray(x).ravel(), np.asarray(y).ravel()
    size = x.size
    perm = np.argsort(y)  # sorted by y, y as dense ranks
    x, y = x[perm], y[perm]
    y = np.r_[True, y[1:] != y[:-1]].cumsum(dtype=np.intp)
    perm = np.argsort(x, kind="mergesort")  # then stably by x: ordered by (x, y)
    x, y = x[perm], y[perm]
    x = np.r_[True, x[1:] != x[:-1]].cumsum(dtype=np.intp)
    # discordant pairs: x ascending, so the pairs whose y ranks are out of order
    dis = int(InversionCount(y)(np.ones((1, size), dtype=np.int64))[0])
    joint = np.diff(np.r_[run_starts(x, y), size])  # sizes of the runs tied on both sides
    ntie = int((joint * (joint - 1) // 2).sum())
    xtie, ytie = _tied_pairs(x), _tied_pairs(y)
    tot = (size * (size - 1)) // 2
    if xtie == tot or ytie == tot:
        return float("nan")
    con_minus_dis = tot - xtie - ytie + ntie - 2 * dis
    tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    return float(np.minimum(1.0, max(-1.0, tau)))


def _tied_pairs(ranks: np.ndarray) -> int:
    counts = np.bincount(ranks).astype("int64", copy=False)
    counts = counts[counts > 1]
    return int((counts * (counts - 1) // 2).sum())


def spearman_rows(X, Y) -> np.ndarray:
    """Spearman ρ per row (average ranks for ties, over each row's finite pairs)."""
    X, Y = paired_rows(X, Y)
    out = np.full(X.shape[0], np.nan)
    for i in range(X.shape[0]):
        both = np.isfinite(X[i]) & np.isfinite(Y[i])
        if both.sum() >= MIN_PAIRS:
            out[i] = pearson_rows(average_ranks(X[i, both]), average_ranks(Y[i, both]))[0]
    return out


def kendall_rows(X, Y) -> np.ndarray:
    """Kendall τ-b per row (`kendall_tau_b`); NaN where undefined."""
    X, Y = paired_rows(X, Y)
    out = np.full(X.shape[0], np.nan)
    for i in range(X.shape[0]):
        both = np.isfinite(X[i]) & np.isfinite(Y[i])
        if correlation_undefined_reason(X[i, both], Y[i, both]) is None:
            out[i] = kendall_tau_b(X[i, both], Y[i, both])
    return out
