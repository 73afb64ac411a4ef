"""What the selection rule "take the configuration with the highest r" can be expected to reach on
responses it was not chosen on: nested cross-validation with a pooled within-fold correlation.

In each fold the rule runs on the training responses only (highest training r, ties to the lowest
row). On the held-out responses the chosen row's scores and gold's are centred on their held-out
means and divided by their training standard deviations (so folds that chose different rows, or
rows of other scales or precision modes, pool on one scale); the cross-products and squares of
every fold are summed and ONE correlation is taken over all n responses — not a mean of small-fold
r, which is biased low by the folds' size (about −ρ(1 − ρ²)/(2·n_fold)), and not pooled raw or
regression-calibrated predictions, whose between-fold mean shifts bias the pooled r (measured:
−.03 at ρ = .6 and −.13 at ρ = 0, n = 60). The whole is repeated over `repeats` random partitions
and averaged. `optimism` = the in-sample r of the rule's pick − that expected r: what choosing on
the same data adds. benchmarks/expected_r.py measures the estimate against the truth (the chosen
configuration's population r).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from calibration.stats.correlation import MIN_PAIRS, centred_on_pairs, paired_rows, pearson_rows

METHOD = "nested cross-validation, pooled within-fold correlation"


def kfold_indices(n: int, folds: int = 5, seed: int = 0) -> list[np.ndarray]:
    """A seeded partition of range(n) into `folds` near-equal held-out folds.

    Raises ValueError unless 2 ≤ folds ≤ n."""
    if not 2 <= folds <= n:
        raise ValueError(f"folds must be between 2 and the number of responses ({n}), got {folds}")
    permutation = np.random.default_rng(seed).permutation(n)
    return [np.sort(part) for part in np.array_split(permutation, folds)]


@dataclass
class ExpectedR:
    """The selection procedure's expected r on new responses (module doc); NaN when undefined.
    `chosen[i]`: how often row i was picked across the folds of every repeat."""

    method: str
    expected_r: float
    in_sample_r: float
    optimism: float
    folds: int
    repeats: int
    chosen: list[int] = field(default_factory=list)
    expected_r_se: float = math.nan


def _pick(X, Y, train) -> int | None:
    r = pearson_rows(X[:, train], Y[:, train])
    return int(np.nanargmax(r)) if np.isfinite(r).any() else None


def _standardised_held_out(X, Y, train, held_out, row: int) -> tuple[np.ndarray, np.ndarray]:
    """Row's judge and gold scores on `held_out`, each centred on its held-out mean and divided by
    its training standard deviation (NaN pairs dropped)."""
    x, y = X[row, held_out], Y[row, held_out]
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    both = np.isfinite(X[row, train]) & np.isfinite(Y[row, train])
    sx, sy = np.std(X[row, train][both]), np.std(Y[row, train][both])
    return (x - x.mean()) / sx, (y - y.mean()) / sy


def _pooled_r(X, Y, folds: list[np.ndarray], chosen: np.ndarray, picks: list | None = None) -> float:
    """The pooled held-out r of one partition (module doc); `picks`: the row each fold's training
    responses choose, when the caller knows them (`_picks_by_sums`), else chosen here."""
    sxy = sxx = syy = 0.0
    for f, held_out in enumerate(folds):
        training = np.ones(X.shape[1], bool)
        training[held_out] = False
        train = np.flatnonzero(training)  # the positions not held out, in order (a set difference)
        row = _pick(X, Y, train) if picks is None or picks[f] is _UNSURE else picks[f]
        if row is None:
            continue
        chosen[row] += 1
        x, y = _standardised_held_out(X, Y, train, held_out, row)
        sxy, sxx, syy = sxy + float(x @ y), sxx + float(x @ x), syy + float(y @ y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else math.nan


def expected_selected_r(X, Y, folds: int = 5, repeats: int = 10, seed: int = 0) -> ExpectedR:
    """Nested CV of the highest-r rule (module doc) over X (k × n) against Y ((n,) or (k × n));
    NaN = missing. Folds shrink to n // 3 when n is small (each needs 3 responses); fewer than 2
    folds, or no row defined on any training set, give NaN."""
    X, Y = paired_rows(X, Y)
    n = X.shape[1]
    r_full = pearson_rows(X, Y)
    in_sample = float(np.nanmax(r_full)) if np.isfinite(r_full).any() else math.nan
    folds = min(folds, n // MIN_PAIRS)
    chosen = np.zeros(X.shape[0], int)
    if folds < 2 or math.isnan(in_sample):
        return ExpectedR(METHOD, math.nan, in_sample, math.nan, max(folds, 0), 0, chosen.tolist())
    pooled = [_pooled_r(X, Y, kfold_indices(n, folds, seed + repeat), chosen) for repeat in range(repeats)]
    finite = [r for r in pooled if math.isfinite(r)]
    expected = float(np.mean(finite)) if finite else math.nan
    return ExpectedR(METHOD, expected, in_sample, in_sample - expected, folds, repeats, chosen.tolist())


_UNSURE = object()  # `_picks_by_sums` could not tell the pick apart: `_pick` decides
PICK_MARGIN = 1e-9  # far above the ~1e-13 by which r from sums and r from centred values differ


def _centred_blocks(X, Y) -> tuple[np.ndarray, int]:
    """(n × 6k) columns whose weighted sums give every row's r: the pair mask m and, where both
    are finite, m·x, m·x², m·xy, m·y, m·y², x and y centred on the row's mean (the sums keep their
    digits)."""
    both = np.isfinite(X) & np.isfinite(Y)
    x, y = centred_on_pairs(X, both), centred_on_pairs(Y, both)
    return np.vstack([both.astype(float), x, x * x, x * y, y, y * y]).T, X.shape[0]


def _picks_by_sums(blocks: np.ndarray, k: int, weights: np.ndarray) -> list:
    """`_pick` of each row of `weights` (how often each response is in one training set), from
    weighted sums — one matrix product for every training set — where that is sure to give the same
    row: a spread near zero (r perhaps undefined there) or a runner-up within PICK_MARGIN of the
    best gives `_UNSURE`, for `_pick` to decide."""
    S = weights @ blocks
    count, sx, sxx, sxy, sy, syy = (S[:, j * k : (j + 1) * k] for j in range(6))
    with np.errstate(invalid="ignore", divide="ignore"):
        vx, vy = sxx - sx * sx / count, syy - sy * sy / count
        r = (sxy - sx * sy / count) / np.sqrt(vx * vy)
    enough = count >= MIN_PAIRS
    unsure = enough & ((vx <= PICK_MARGIN * sxx) | (vy <= PICK_MARGIN * syy))
    r = np.where(enough & ~unsure, np.clip(r, -1.0, 1.0), -np.inf)
    order = np.argsort(-r, axis=1, kind="stable")  # the best first, ties to the lowest row
    best = np.take_along_axis(r, order[:, :1], axis=1)[:, 0]
    runner_up = np.take_along_axis(r, order[:, 1:2], axis=1)[:, 0] if k > 1 else np.full(len(r), -np.inf)
    with np.errstate(invalid="ignore"):  # -inf - -inf: both undefined, not close
        close = (best - runner_up <= PICK_MARGIN) & (best > -np.inf)
    return [
        _UNSURE if doubt or tie else (None if top == -np.inf else int(row))
        for doubt, tie, top, row in zip(unsure.any(axis=1), close, best, order[:, 0], strict=True)
    ]


def _resample_picks(X, Y, draws: list, folds: int, n: int) -> list[list]:
    """`_picks_by_sums` of every fold of every resample (`draws`: (drawn, fold of each response)),
    a few resamples' training sets per matrix product (a product per resample is mostly overhead)."""
    blocks, k = _centred_blocks(X, Y)
    picks: list[list] = []
    per_block = 64
    for start in range(0, len(draws), per_block):
        weights = np.vstack(
            [
                np.bincount(drawn, minlength=n) * (fold_of_response != np.arange(folds)[:, None])
                for drawn, fold_of_response in draws[start : start + per_block]
            ]
        ).astype(float)  # floats: an integer matrix times floats skips BLAS
        found = _picks_by_sums(blocks, k, weights)
        picks.extend(found[i : i + folds] for i in range(0, len(found), folds))
    return picks


def expected_r_se(X, Y, folds: int = 5, resamples: int = 200, seed: int = 0) -> float:
    """Bootstrap standard error of the expected r: the whole procedure (choose on the training folds,
    pool the held-out deviations) rerun on `resamples` resamples of the responses, the copies of one
    response kept in one fold (so none is both chosen on and held out). NaN when fewer than two
    resamples give a defined r."""
    X, Y = paired_rows(X, Y)
    n = X.shape[1]
    folds = min(folds, n // MIN_PAIRS)
    if folds < 2:
        return math.nan
    rng = np.random.default_rng(seed)
    draws = []  # kept small: 20 kB per resample at 4,000 responses
    compact = np.int32 if n < 2**31 else np.int64
    for _ in range(resamples):
        drawn = rng.integers(0, n, n)
        fold_of_response = rng.permutation(n) % folds
        if all(np.count_nonzero(fold_of_response[drawn] == f) >= MIN_PAIRS for f in range(folds)):
            draws.append((drawn.astype(compact), fold_of_response.astype(np.min_scalar_type(folds))))
    # each fold's training responses, weighed by how often the resample drew them, choose a row
    every_pick = _resample_picks(X, Y, draws, folds, n)
    found = []
    for (drawn, fold_of_response), picks in zip(draws, every_pick, strict=True):
        parts = [np.flatnonzero(fold_of_response[drawn] == f) for f in range(folds)]
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a resample may leave a fold undefined: NaN
            r = _pooled_r(X[:, drawn], Y[:, drawn], parts, np.zeros(X.shape[0], int), picks)
        if math.isfinite(r):
            found.append(r)
    return float(np.std(found, ddof=1)) if len(found) > 1 else math.nan
