"""Do plans reach their target? The planner's count against the half-width labels then give.

    .venv/bin/python benchmarks/plan_assurance.py [--reps 500] [--unlabelled 300] [--seed 0]

A model with N unlabelled and n labelled responses (the PPI benchmark's zero-inflated scores and
its judges: noisy, biased, nonlinear); `planning.plan_more_gold` plans m more for a half-width
target; the repetition then labels m of the unlabelled responses (a random sample, as the queue
does) and computes the PPI++ interval with `ppi.ppi_mean`. Reported per cell: how often the
realised half-width reaches the target (target ≥ .80, the planner's assurance; Monte Carlo SE ≈ .018
at 500 repetitions), how often the old point projection (the m with projected half-width ≤ target)
would have, and the mean counts. Repetitions whose plan is out of reach are counted apart.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.estimates.models import ModelSample
from calibration.estimates.planning import more_gold_needed, projected_half_widths
from calibration.estimates.ppi import ppi_mean

ALPHA = 0.05
JUDGES = {
    "noisy": lambda y, rng: np.clip(y + rng.normal(0, 0.15, y.shape), 0, 1),
    "biased": lambda y, rng: y + 0.1 + rng.normal(0, 0.15, y.shape),
    "nonlinear": lambda y, rng: y**2 + rng.normal(0, 0.05, y.shape),
}
CELLS = [(8, 0.08), (8, 0.06), (10, 0.06), (24, 0.05)]  # (labelled today, target half-width)


def model_sample(y, f, n: int) -> ModelSample:
    ids = tuple(f"r{i}" for i in range(len(y)))
    return ModelSample("m", ids[:n], y[:n], f[:n], ids[n:], f[n:], 0)


def cell(judge: str, n: int, target: float, big_n: int, reps: int, seed: int) -> dict:
    rng = np.random.default_rng([seed, n, int(target * 1000), list(JUDGES).index(judge)])
    reached = reached_point = planned = out_of_reach = 0
    counts, point_counts = [], []
    for _ in range(reps):
        y = np.where(rng.uniform(size=n + big_n) < 0.3, 0.0, rng.beta(2.5, 2, n + big_n))
        f = JUDGES[judge](y, rng)
        sample = model_sample(y, f, n)
        m = more_gold_needed(sample, target, ALPHA)
        widths = projected_half_widths(sample, ALPHA)
        point = np.flatnonzero(widths <= target)
        if m is None:
            out_of_reach += 1
            continue
        planned += 1
        counts.append(m)
        order = n + rng.permutation(big_n)  # the queue's random sample of the unlabelled
        for needed, tally in ((m, "plan"), (int(point[0]) if len(point) else None, "point")):
            if needed is None:
                continue
            labelled = np.concatenate([np.arange(n), order[:needed]])
            rest = order[needed:]
            estimate = ppi_mean(y[labelled], f[labelled], f[rest], ALPHA)
            hit = estimate.ci is not None and estimate.half_width <= target
            if tally == "plan":
                reached += hit
            else:
                reached_point += hit
                point_counts.append(needed)
    return {
        "judge": judge,
        "n": n,
        "target": target,
        "planned": planned,
        "out_of_reach": out_of_reach,
        "reached": reached / planned if planned else float("nan"),
        "reached_point_projection": reached_point / len(point_counts) if point_counts else float("nan"),
        "mean_plan": float(np.mean(counts)) if counts else float("nan"),
        "mean_point_projection": float(np.mean(point_counts)) if point_counts else float("nan"),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--unlabelled", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows = [cell(j, n, t, args.unlabelled, args.reps, args.seed) for j in JUDGES for n, t in CELLS]
    print(f"N = {args.unlabelled} unlabelled, {args.reps} repetitions a row; 95 % PPI++ half-width targets")
    print(
        f"{'judge':<10} {'n':>3} {'target':>6}  {'plan reaches':>12} {'mean m':>7}  {'point reaches':>13} {'mean m':>7}  out of reach"
    )
    for r in rows:
        print(
            f"{r['judge']:<10} {r['n']:>3} {r['target']:>6}  {r['reached']:>12.3f} {r['mean_plan']:>7.1f}  "
            f"{r['reached_point_projection']:>13.3f} {r['mean_point_projection']:>7.1f}  {r['out_of_reach']}"
        )
    ok = all(r["reached"] >= 0.8 for r in rows if r["planned"])
    print(
        f"every plan reaches its target in ≥ 80 % of repetitions: {'yes' if ok else 'NO'}  ({time.perf_counter() - started:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
