"""The expected r of the selection rule on new responses (calibration/stats/selection.py: nested
cross-validation, pooled within-fold correlation) against the truth, beside the numbers it replaces.

    .venv/bin/python benchmarks/expected_r.py [--reps 1000] [--n 60] [--k 12] [--seed 0]

Configurations are judges of bivariate-normal gold as in benchmarks/confidence_set.py (shared error
share 0.5), so each one's population r is known. The truth for one calibration set is the population
r of the configuration the rule picks on it (highest full-sample r). Printed, each as the mean over
calibration sets of (estimate − truth) ± its Monte Carlo standard error, and the RMSE:
- expected r: this module's estimate (5 folds, 10 repeats);
- in-sample r: the best full-sample r (what choosing on the same data reports);
- mean of fold r: the old "held-out r" of the selection — the mean over folds of the r, inside each
  small held-out fold, of the configuration chosen on the other folds.
Settings: k = 12 configurations all at ρ = .6 (target: |mean error| ≤ .02 at n = 60), the same at
ρ = 0, and k = 12 with ρ spread evenly over [.45, .65] (then the pick matters).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from confidence_set import judges

from calibration.stats.correlation import pearson_rows
from calibration.stats.selection import expected_selected_r, kfold_indices


def mean_of_fold_r(X, y, folds: int, seed: int) -> float:
    """The replaced estimate: pick on the training folds, r on the held-out fold, mean over folds."""
    everything = np.arange(X.shape[1])
    rs = []
    for held_out in kfold_indices(X.shape[1], folds, seed):
        train = np.setdiff1d(everything, held_out)
        pick = int(np.nanargmax(pearson_rows(X[:, train], y[train])))
        rs.append(pearson_rows(X[pick, held_out], y[held_out])[0])
    return float(np.nanmean(rs))


def errors(rhos: np.ndarray, n: int, reps: int, rng) -> dict[str, np.ndarray]:
    out: dict[str, list[float]] = {"expected r": [], "in-sample r": [], "mean of fold r": []}
    for rep in range(reps):
        X, y = judges(rhos, n, rng)
        truth = rhos[int(np.nanargmax(pearson_rows(X, y)))]
        estimate = expected_selected_r(X, y, folds=5, repeats=10, seed=rep)
        out["expected r"].append(estimate.expected_r - truth)
        out["in-sample r"].append(estimate.in_sample_r - truth)
        out["mean of fold r"].append(mean_of_fold_r(X, y, 5, rep) - truth)
    return {name: np.array(values) for name, values in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--k", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    settings = {
        f"k = {args.k} all at ρ = .6": np.full(args.k, 0.6),
        f"k = {args.k} all at ρ = 0": np.zeros(args.k),
        f"k = {args.k}, ρ spread over [.45, .65]": np.linspace(0.45, 0.65, args.k),
    }
    for label, rhos in settings.items():
        print(f"{label}, n = {args.n} ({args.reps} calibration sets): estimate − truth")
        for name, e in errors(rhos, args.n, args.reps, rng).items():
            print(
                f"  {name:<15} mean {e.mean():+.3f} ± {e.std(ddof=1) / math.sqrt(e.size):.3f}  "
                f"RMSE {math.sqrt(float(np.mean(e**2))):.3f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
