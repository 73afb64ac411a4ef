"""Coverage of 95 % confidence intervals for Pearson r: the sweep's interval (Fisher z with a jackknife
standard error and t on m − 1 df, calibration/stats/jackknife.py) against the percentile bootstrap the
sweep used before and the normal-theory Fisher interval (SE = 1/√(n − 3)).

    .venv/bin/python benchmarks/pearson_ci_coverage.py [--reps 4000] [--boot-reps 500]
        [--resamples 999] [--pool 30000] [--seed 0]

Data: bivariate normal with ρ ∈ {.3, .6, .9}, and MURGAT-S-like populations (benchmarks/_murgat_like.py:
the demo's world scored by the project's scorer, a judge of known noise tuned so its correlation with
gold is near .3, .6, .9; the population ρ is the pool's, printed). Calibration sets of n ∈ {24, 30,
60, 200} responses are drawn; each row prints coverage ± its Monte Carlo standard error
√(p(1 − p)/reps) and the mean width. Target: every jackknife coverage within [.93, .97]. The bootstrap
interval needs `--resamples` resamples per set, so it runs on `--boot-reps` sets only.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as scipy_stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _murgat_like import factor_for_correlation, murgat_judges, normal_pairs

from calibration.stats.bootstrap import bootstrap_pearson, multiplicities, percentile_ci, resample_indices
from calibration.stats.correlation import pearson_rows
from calibration.stats.jackknife import fisher_jackknife_ci

SIZES = (24, 30, 60, 200)
RHOS = (0.3, 0.6, 0.9)
LOW, HIGH = 0.93, 0.97


def coverage(low: np.ndarray, high: np.ndarray, rho: float) -> tuple[float, float, float, int]:
    """(coverage, its Monte Carlo SE, mean width, intervals that were undefined)."""
    ok = np.isfinite(low) & np.isfinite(high)
    hit = (low[ok] <= rho) & (rho <= high[ok])
    p = float(hit.mean())
    return p, math.sqrt(p * (1 - p) / ok.sum()), float((high[ok] - low[ok]).mean()), int((~ok).sum())


def normal_theory(X, Y) -> tuple[np.ndarray, np.ndarray]:
    r = pearson_rows(X, Y)
    half = scipy_stats.norm.ppf(0.975) / np.sqrt(X.shape[1] - 3)
    z = np.arctanh(r)
    return np.tanh(z - half), np.tanh(z + half)


def percentile(X, Y, resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    n = X.shape[1]
    W = multiplicities(resample_indices(n, resamples, seed), n)
    bounds = [percentile_ci(bootstrap_pearson(x, y, W)) for x, y in zip(X, Y, strict=True)]
    return np.array([b[0][0] for b in bounds]), np.array([b[1][0] for b in bounds])


def samples(kind: str, rho: float, n: int, reps: int, pool, rng) -> tuple[np.ndarray, np.ndarray, float]:
    """(judge, gold) as (reps × n) matrices and the population ρ."""
    if kind == "normal":
        x, y = normal_pairs(rho, n, reps, rng)
        return x, y, rho
    gold, judge = pool
    pick = rng.integers(0, len(gold), size=(reps, n))
    return judge[pick], gold[pick], float(np.corrcoef(gold, judge)[0, 1])


def row(label: str, result) -> str:
    p, se, width, undefined = result
    flag = "" if LOW <= p <= HIGH else "  <-- outside [.93, .97]"
    extra = f", {undefined} undefined" if undefined else ""
    return f"    {label:<14} {p:.3f} ± {se:.3f}  width {width:.3f}{extra}{flag}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=4000)
    parser.add_argument("--boot-reps", type=int, default=500)
    parser.add_argument("--resamples", type=int, default=999)
    parser.add_argument("--pool", type=int, default=30000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    worst = 1.0, 0.0
    for kind in ("normal", "murgat-like"):
        for rho in RHOS:
            pool = None
            if kind != "normal":
                started = time.perf_counter()
                factor = factor_for_correlation(rho, seed=args.seed + 1)
                gold, (judge,) = murgat_judges([factor], args.pool, args.seed + 7)
                pool = gold, judge
                print(
                    f"{kind} pool: judge error factor {factor:.3f}, {len(gold)} responses, "
                    f"{(gold == 0).mean():.1%} gold zeros, {len(set(gold))} distinct gold values "
                    f"({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
            for n in SIZES:
                X, Y, true_rho = samples(kind, rho, n, args.reps, pool, rng)
                jack = coverage(*fisher_jackknife_ci(X, Y), true_rho)
                worst = min(worst[0], jack[0]), max(worst[1], jack[0])
                print(f"{kind} ρ = {true_rho:.3f}, n = {n}:")
                print(row("jackknife z", jack))
                print(row("normal theory", coverage(*normal_theory(X, Y), true_rho)))
                b = args.boot_reps
                print(row("percentile", coverage(*percentile(X[:b], Y[:b], args.resamples, n), true_rho)))
                sys.stdout.flush()
    print(f"jackknife z coverage over all cells: {worst[0]:.3f} … {worst[1]:.3f} (target [{LOW}, {HIGH}])")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
