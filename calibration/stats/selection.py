"""Cross-validated selection: choose a configuration on training responses, measure it on held-out ones."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from calibration.stats.correlation import paired_rows, pearson_rows


def kfold_indices(n: int, folds: int = 5, seed: int = 0) -> list[np.ndarray]:
    """A seeded partition of range(n) into `folds` near-equal held-out folds.

    Raises ValueError unless 2 ≤ folds ≤ n."""
    if not 2 <= folds <= n:
        raise ValueError(f"folds must be between 2 and the number of responses ({n}), got {folds}")
    permutation = np.random.default_rng(seed).permutation(n)
    return [np.sort(part) for part in np.array_split(permutation, folds)]


def heldout_pearson(X, Y, folds: list[np.ndarray]) -> np.ndarray:
    """Per row: mean over folds of r on that held-out fold (NaN folds skipped); (k,)."""
    X, Y = paired_rows(X, Y)
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
    X, Y = paired_rows(X, Y)
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
        fold_r.append(float(pearson_rows(X[pick : pick + 1, held_out], Y[pick : pick + 1, held_out])[0]))
    r_full = pearson_rows(X, Y)
    in_sample = float(np.nanmax(r_full)) if np.isfinite(r_full).any() else math.nan
    finite = [r for r in fold_r if math.isfinite(r)]
    heldout = float(np.mean(finite)) if finite else math.nan
    return CrossValidatedSelection(in_sample, heldout, in_sample - heldout, chosen, fold_r)
