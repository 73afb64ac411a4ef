"""The numbers behind a sweep: correlations over a (configurations × responses) matrix,
a paired bootstrap, Williams' test, Holm's correction, cross-validated selection.
(Agreement between two label lists — accuracy, Cohen's κ, F1 — is in label_metrics.py.)

Pure numpy/scipy. Layout everywhere: `X` is (k configurations × n responses); the
human side is either one vector `y` (n,) shared by every row or a matrix `Y` (k × n)
with one target row per configuration. NaN in `X` or `Y` means "missing": each row
uses only the responses where both of its values are finite.

The NaN story: a correlation that is undefined — fewer than 3 pairs, or one side
constant — comes back as NaN, never as an exception; `correlation_undefined_reason`
says why in words.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as scipy_stats

MIN_PAIRS = 3  # a correlation of two points is always ±1: it says nothing
# A resample's spread below this share of the data's squared range is rounding noise,
# i.e. every value drawn was the same.
_DEGENERATE_VARIANCE = 1e-10


def _rows(X, Y):
    X = np.atleast_2d(np.asarray(X, dtype=float))
    Y = np.asarray(Y, dtype=float)
    Y = np.broadcast_to(Y, X.shape) if Y.ndim == 1 else np.atleast_2d(Y)
    if Y.shape != X.shape:
        raise ValueError(f"shapes differ: X {X.shape}, Y {Y.shape}")
    return X, Y


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
    X, Y = _rows(X, Y)
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


def spearman_rows(X, Y) -> np.ndarray:
    """Spearman ρ per row (average ranks for ties, over each row's finite pairs)."""
    X, Y = _rows(X, Y)
    out = np.full(X.shape[0], np.nan)
    for i in range(X.shape[0]):
        both = np.isfinite(X[i]) & np.isfinite(Y[i])
        if both.sum() >= MIN_PAIRS:
            out[i] = pearson_rows(scipy_stats.rankdata(X[i, both]), scipy_stats.rankdata(Y[i, both]))[0]
    return out


def kendall_rows(X, Y) -> np.ndarray:
    """Kendall τ-b per row, as `scipy.stats.kendalltau`; NaN where undefined."""
    X, Y = _rows(X, Y)
    out = np.full(X.shape[0], np.nan)
    for i in range(X.shape[0]):
        both = np.isfinite(X[i]) & np.isfinite(Y[i])
        if correlation_undefined_reason(X[i, both], Y[i, both]) is None:
            out[i] = scipy_stats.kendalltau(X[i, both], Y[i, both]).statistic
    return out


# --- paired bootstrap -------------------------------------------------------------

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
    X, Y = _rows(X, Y)
    both = np.isfinite(X) & np.isfinite(Y)
    # Centre on constants first: r is unchanged and the one-pass sums keep their digits.
    Xc = np.where(both, X - np.nanmean(np.where(both, X, np.nan), axis=1, keepdims=True), 0.0)
    Yc = np.where(both, Y - np.nanmean(np.where(both, Y, np.nan), axis=1, keepdims=True), 0.0)
    tol_x = _DEGENERATE_VARIANCE * (Xc ** 2).max(axis=1, initial=0.0)
    tol_y = _DEGENERATE_VARIANCE * (Yc ** 2).max(axis=1, initial=0.0)
    if shared:
        yc = Yc[0]
        blocks = np.vstack([Xc, Xc ** 2, Xc * yc]).T
    else:
        M = both.astype(float)
        blocks = np.vstack([Xc, Xc ** 2, Xc * Yc, M, Yc, Yc ** 2]).T
    out = np.empty((W.shape[0], k))
    for start in range(0, W.shape[0], chunk_size):
        Wc = W[start:start + chunk_size]
        S = Wc @ blocks
        sx, sxx, sxy = S[:, :k], S[:, k:2 * k], S[:, 2 * k:3 * k]
        if shared:
            count = np.broadcast_to(Wc.sum(1)[:, None], sx.shape)
            sy = np.broadcast_to((Wc @ yc)[:, None], sx.shape)
            syy = np.broadcast_to((Wc @ yc ** 2)[:, None], sx.shape)
        else:
            count, sy, syy = S[:, 3 * k:4 * k], S[:, 4 * k:5 * k], S[:, 5 * k:]
        with np.errstate(invalid="ignore", divide="ignore"):
            vx = sxx - sx * sx / count
            vy = syy - sy * sy / count
            r = (sxy - sx * sy / count) / np.sqrt(vx * vy)
        bad = (count < MIN_PAIRS) | (vx <= tol_x * count) | (vy <= tol_y * count)
        r[bad] = np.nan
        out[start:start + chunk_size] = np.clip(r, -1.0, 1.0)
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
    X, Y = _rows(X, Y)
    W = np.asarray(weights, float)
    out = np.full((W.shape[0], X.shape[0]), np.nan)
    for i in range(X.shape[0]):
        both = np.isfinite(X[i]) & np.isfinite(Y[i])
        x, y, Wi = X[i, both], Y[i, both], W[:, both]
        for start in range(0, W.shape[0], chunk_size):
            Wc = Wi[start:start + chunk_size]
            out[start:start + chunk_size, i] = _weighted_pearson(
                _weighted_ranks(x, Wc), _weighted_ranks(y, Wc), Wc)
    return out


def bootstrap_kendall(X, Y, weights: np.ndarray, block: int = 512) -> np.ndarray:
    """Kendall τ-b of every row in every resample (B × k).

    With multiplicities w, τ-b = wᵀ(S∘T)w / √((wᵀ|S|w)(wᵀ|T|w)) where S[i,j] = sign(x_i − x_j)
    and T likewise for y: copies of one response tie in both and drop out, exactly as in
    `scipy.stats.kendalltau` of the resampled vectors. Cost O(B·n²) per row, in blocks.
    """
    X, Y = _rows(X, Y)
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
            sx = np.sign(x[start:start + block, None] - x[None, :])
            sy = np.sign(y[start:start + block, None] - y[None, :])
            Wb = Wi[:, start:start + block]
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


def bootstrap_p_not_greater(best: np.ndarray, other: np.ndarray) -> float:
    """One-sided paired-bootstrap p for "best's r is not greater than other's".

    (1 + #resamples with r_best − r_other ≤ 0) / (1 + #usable resamples), both r finite:
    the +1 keeps a finite number of resamples from claiming p = 0 (Davison & Hinkley
    1997, §4.2). Identical configurations get 1.0; NaN when no resample is usable."""
    ok = np.isfinite(best) & np.isfinite(other)
    if not ok.any():
        return math.nan
    return float((1 + np.sum(best[ok] - other[ok] <= 0.0)) / (1 + ok.sum()))


# --- tests between correlations ------------------------------------------------------

@dataclass(frozen=True)
class WilliamsResult:
    t: float
    df: int
    p_one_sided: float
    reason: str | None = None


def williams_test(r12: float, r13: float, r23: float, n: int) -> WilliamsResult:
    """Williams' t for H1: ρ12 > ρ13, two dependent correlations sharing variable 1.

    Graham & Baldwin (2014)'s form: variable 1 is the human score, 2 and 3 two judges;
    r23 is judge against judge. t has n − 3 df; p is ONE-sided (upper tail), as they
    use it when asking whether a metric's higher correlation is real — so r12 < r13
    gives p > 0.5. Two identical judges (r12 == r13) give t = 0, p = 0.5. Undefined
    input (n ≤ 3, a NaN r, or r's that no correlation matrix can have) gives NaN and
    a reason.
    """
    df = int(n) - 3
    if df <= 0:
        return WilliamsResult(math.nan, df, math.nan, f"needs more than 3 responses (n={n})")
    if not all(math.isfinite(v) for v in (r12, r13, r23)):
        return WilliamsResult(math.nan, df, math.nan, "a correlation is undefined")
    if abs(r12 - r13) < 1e-12:
        return WilliamsResult(0.0, df, 0.5, None)
    det = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    denominator = 2 * det * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3
    if det < -1e-12 or denominator <= 0:
        return WilliamsResult(math.nan, df, math.nan, "the three correlations are inconsistent")
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(denominator)
    return WilliamsResult(t, df, float(scipy_stats.t.sf(t, df)), None)


def holm_adjust(p_values) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values, same order; NaN stays NaN and does not count in m."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    m = order.size
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out[order] = np.minimum(adjusted, 1.0)
    return out


# --- cross-validated selection --------------------------------------------------------

def kfold_indices(n: int, folds: int = 5, seed: int = 0) -> list[np.ndarray]:
    """A seeded partition of range(n) into `folds` near-equal held-out folds.

    Raises ValueError unless 2 ≤ folds ≤ n."""
    if not 2 <= folds <= n:
        raise ValueError(f"folds must be between 2 and the number of responses ({n}), got {folds}")
    permutation = np.random.default_rng(seed).permutation(n)
    return [np.sort(part) for part in np.array_split(permutation, folds)]


def heldout_pearson(X, Y, folds: list[np.ndarray]) -> np.ndarray:
    """Per row: mean over folds of r on that held-out fold (NaN folds skipped); (k,)."""
    X, Y = _rows(X, Y)
    per_fold = np.array([pearson_rows(X[:, f], Y[:, f]) for f in folds])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a row undefined in every fold → NaN
        return np.nanmean(per_fold, axis=0)


@dataclass
class CrossValidatedSelection:
    """Choose-on-training, measure-on-held-out: how good the *selection procedure* is.

    `in_sample_r` is the best full-data r (the number one is tempted to report);
    `heldout_r` the mean over folds of the held-out r of the row chosen on the other
    folds; `optimism` = in_sample_r − heldout_r, the upward bias of picking a maximum.
    """

    in_sample_r: float
    heldout_r: float
    optimism: float
    chosen: list[int] = field(default_factory=list)
    fold_r: list[float] = field(default_factory=list)


def crossvalidated_selection(X, Y, folds: list[np.ndarray]) -> CrossValidatedSelection:
    """Run k-fold selection of the highest-r row. Ties go to the lowest row index, so
    callers order rows by their own tie-break. NaN everywhere when nothing is defined."""
    X, Y = _rows(X, Y)
    everything = np.arange(X.shape[1])
    chosen, fold_r = [], []
    for held_out in folds:
        train = np.setdiff1d(everything, held_out)
        r_train = pearson_rows(X[:, train], Y[:, train])
        if np.isnan(r_train).all():
            chosen.append(-1)
            fold_r.append(math.nan)
            continue
        pick = int(np.nanargmax(r_train))
        chosen.append(pick)
        fold_r.append(float(pearson_rows(X[pick:pick + 1, held_out], Y[pick:pick + 1, held_out])[0]))
    r_full = pearson_rows(X, Y)
    in_sample = float(np.nanmax(r_full)) if np.isfinite(r_full).any() else math.nan
    finite = [r for r in fold_r if math.isfinite(r)]
    heldout = float(np.mean(finite)) if finite else math.nan
    return CrossValidatedSelection(in_sample, heldout, in_sample - heldout, chosen, fold_r)
