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

from calibration.stats.correlation import MIN_PAIRS, paired_rows, pearson_rows

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


def _pooled_r(X, Y, folds: list[np.ndarray], chosen: np.ndarray) -> float:
    sxy = sxx = syy = 0.0
    for held_out in folds:
        training = np.ones(X.shape[1], bool)
        training[held_out] = False
        train = np.flatnonzero(training)  # the positions not held out, in order (a set difference)
        row = _pick(X, Y, train)
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
    found = []
    for _ in range(resamples):
        drawn = rng.integers(0, n, n)
        fold_of_response = rng.permutation(n) % folds
        parts = [np.flatnonzero(fold_of_response[drawn] == f) for f in range(folds)]
        if any(part.size < MIN_PAIRS for part in parts):
            continue
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a resample may leave a fold undefined: NaN
            r = _pooled_r(X[:, drawn], Y[:, drawn], parts, np.zeros(X.shape[0], int))
        if math.isfinite(r):
            found.append(r)
    return float(np.std(found, ddof=1)) if len(found) > 1 else math.nan
