"""Bootstrap Pearson for a whole sweep: vectorised vs a naive per-configuration scipy loop.

    .venv/bin/python benchmarks/sweep_speed.py [--configs 500] [--responses 1000]
        [--resamples 2000] [--naive-configs 10] [--seed 0]

Same data, same resample indices for both. The vectorised run covers every configuration;
the naive loop (`scipy.stats.pearsonr` on each resampled pair of vectors) runs on the first
`--naive-configs` configurations and is extrapolated linearly to all of them — the script
says so in its output (use --naive-configs equal to --configs for a full naive run). The
numbers are compared on the configurations both computed. Targets: vectorised ≤ 5 s,
≥ 50× faster, max |difference| ≤ 1e-9.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as scipy_stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.stats.bootstrap import bootstrap_pearson, multiplicities, percentile_ci, resample_indices


def make_data(configs: int, responses: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Gold scores in [0, 1] and judges that track them with varying noise, like MURGAT-S."""
    rng = np.random.default_rng(seed)
    gold = rng.beta(2, 2, size=responses)
    noise = rng.uniform(0.05, 0.6, size=(configs, 1))
    return np.clip(gold + noise * rng.normal(size=(configs, responses)), 0, 1), gold


def naive(X: np.ndarray, y: np.ndarray, indices: np.ndarray) -> np.ndarray:
    out = np.empty((indices.shape[0], X.shape[0]))
    for c in range(X.shape[0]):
        for b, idx in enumerate(indices):
            out[b, c] = scipy_stats.pearsonr(X[c, idx], y[idx]).statistic
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configs", type=int, default=500)
    parser.add_argument("--responses", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--naive-configs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    X, y = make_data(args.configs, args.responses, args.seed)
    indices = resample_indices(args.responses, args.resamples, args.seed)

    start = time.perf_counter()
    W = multiplicities(indices, args.responses)
    fast = bootstrap_pearson(X, y, W)
    lo, hi = percentile_ci(fast)
    fast_s = time.perf_counter() - start

    subset = min(args.naive_configs, args.configs)
    start = time.perf_counter()
    slow = naive(X[:subset], y, indices)
    naive_subset_s = time.perf_counter() - start
    naive_s = naive_subset_s * args.configs / subset
    diff = float(np.max(np.abs(fast[:, :subset] - slow)))

    print(f"data: {args.configs} configurations × {args.responses} responses × {args.resamples} resamples")
    print(f"vectorised (multiplicities + bootstrap + CIs, all configurations): {fast_s:.2f} s")
    how = (
        "measured"
        if subset == args.configs
        else f"extrapolated linearly from {subset} configurations ({naive_subset_s:.2f} s)"
    )
    print(f"naive scipy.stats.pearsonr loop: {naive_s:.1f} s ({how})")
    print(f"speed-up: {naive_s / fast_s:.0f}×")
    print(f"max |vectorised − naive| over {subset} configurations × {args.resamples} resamples: {diff:.2e}")
    print(f"example CI (configuration 0): [{lo[0]:.4f}, {hi[0]:.4f}]")
    ok = fast_s <= 5.0 and naive_s / fast_s >= 50 and diff <= 1e-9
    print("targets (≤ 5 s, ≥ 50×, ≤ 1e-9):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
