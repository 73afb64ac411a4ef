"""The 95 % confidence set of best configurations (calibration/stats/confidence_set.py, Hansen, Lunde
& Nason's MCS on paired-bootstrap r): how often it drops a true best, and its power.

    .venv/bin/python benchmarks/confidence_set.py [--reps 1000] [--resamples 999] [--seed 0]

Configurations are judges of bivariate-normal gold: X_j = ρ_j·y + √(1 − ρ_j²)·(√c·u + √(1 − c)·e_j),
with a shared error u (c = 0.5: configurations that share stages make correlated errors) — so
corr(X_j, y) = ρ_j exactly. Rows, each ± its Monte Carlo standard error:
- false exclusion: k ∈ {4, 12, 50} configurations all at ρ = .6 (every one is a true best), n ∈ {24,
  60, 200}: the share of calibration sets whose set leaves out at least one of them. Target ≤ .05.
- power: one configuration at ρ = .6 + Δ (Δ = .1, .2), the rest at .6: the share of the inferior
  ones the set excludes (mean), how often the set is the best alone, and how often it keeps the best.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.stats.bootstrap import bootstrap_pearson, multiplicities, resample_indices
from calibration.stats.confidence_set import model_confidence_set
from calibration.stats.correlation import pearson_rows

KS = (4, 12, 50)
SIZES = (24, 60, 200)
BASE_RHO = 0.6
SHARED_ERROR = 0.5


def judges(rhos: np.ndarray, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    y = rng.standard_normal(n)
    shared = rng.standard_normal(n)
    own = rng.standard_normal((len(rhos), n))
    error = math.sqrt(SHARED_ERROR) * shared + math.sqrt(1 - SHARED_ERROR) * own
    return rhos[:, None] * y + np.sqrt(1 - rhos**2)[:, None] * error, y


def confidence_sets(rhos, n: int, reps: int, resamples: int, rng) -> np.ndarray:
    """(reps × k) membership of the 95 % MCS in each simulated calibration set."""
    out = np.zeros((reps, len(rhos)), bool)
    for rep in range(reps):
        X, y = judges(rhos, n, rng)
        W = multiplicities(resample_indices(n, resamples, int(rng.integers(2**31))), n)
        out[rep] = model_confidence_set(pearson_rows(X, y), bootstrap_pearson(X, y, W)).in_set
    return out


def share(hits: np.ndarray) -> str:
    p = float(np.mean(hits))
    return f"{p:.3f} ± {math.sqrt(max(p * (1 - p), 1e-12) / hits.size):.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=999)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print(f"false exclusion of a true best (all configurations at ρ = {BASE_RHO}; target ≤ .05):")
    for k in KS:
        for n in SIZES:
            started = time.perf_counter()
            member = confidence_sets(np.full(k, BASE_RHO), n, args.reps, args.resamples, rng)
            print(
                f"  k = {k:>2}, n = {n:>3}: {share(~member.all(axis=1))}  mean set size "
                f"{member.sum(axis=1).mean():.1f}  ({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
    print("power (one configuration better by Δ, the rest at ρ = .6):")
    for delta in (0.1, 0.2):
        for k in KS:
            for n in SIZES:
                rhos = np.full(k, BASE_RHO)
                rhos[0] += delta
                member = confidence_sets(rhos, n, args.reps, args.resamples, rng)
                excluded = ~member[:, 1:]
                print(
                    f"  Δ = {delta}, k = {k:>2}, n = {n:>3}: inferior excluded {share(excluded.mean(axis=1))}, "
                    f"set = {{best}} {share(excluded.all(axis=1) & member[:, 0])}, "
                    f"best kept {share(member[:, 0])}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
