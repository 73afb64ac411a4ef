"""Do the PPI++ intervals of calibration/estimates hold their level? A seeded simulation.

    .venv/bin/python benchmarks/ppi_coverage.py [--reps 5000] [--unlabelled 5000] [--seed 0] [--json]

True MURGAT-S-like scores: 0 with probability 0.1 (nothing cited), else Beta(2.5, 2), so the
population mean is exactly 0.9 · 2.5/4.5 = 0.5. Three judges of every response:
  unbiased   f = Y + N(0, 0.15)            (noisy, no systematic error)
  biased     f = Y + 0.1 + N(0, 0.15)      (reads every response 0.1 too high)
  nonlinear  f = Y² + N(0, 0.05)           (monotone but curved: under-reads the middle)
For n ∈ {50, 200} labelled and N = 5,000 unlabelled responses, each repetition draws a fresh
sample and computes the human-only and PPI++ (tuned λ) 95 % intervals with the project's own
estimator; it reports how often each covers the true mean (target [.93, .97]; Monte Carlo SE
≈ .0031 at 5,000 repetitions), the mean PPI width against the human-only width (the baseline,
run on the same samples), and what theory expects of that ratio: √(1 − r²) when N ≫ n, and
√(1 − r²·N/(N + n)) at this N (r: the judge's population correlation with Y, from 10⁶ draws).

Pairwise differences, with the unbiased judge: two models answering the same questions (model
B's score on a question is A's times an independent Beta(8, 2) share: correlated, mean exactly
0.4, so the true difference is 0.1), estimated paired (PPI on per-question differences) and, for
comparison, as if independent; and two models answering different questions (independent). An identical judge (f = Y) closes the
report: the PPI++ width against the judge-only interval over all N + n responses.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.estimates.differences import independent_difference, paired_difference
from calibration.estimates.ppi import human_only, ppi_mean, z_value

ALPHA = 0.05
ZERO_SHARE = 0.1
TRUE_MEAN = {"a": (1 - ZERO_SHARE) * 2.5 / 4.5, "b": (1 - ZERO_SHARE) * 2.5 / 4.5 * 0.8}  # 0.5, 0.4
JUDGES = {
    "unbiased": lambda y, rng: y + rng.normal(0, 0.15, y.shape),
    "biased +.1": lambda y, rng: y + 0.1 + rng.normal(0, 0.15, y.shape),
    "nonlinear": lambda y, rng: y**2 + rng.normal(0, 0.05, y.shape),
}


def true_scores(rng, size: int) -> np.ndarray:
    """Model a's scores: 0 w.p. ZERO_SHARE, else Beta(2.5, 2) (mean exactly 0.5)."""
    return np.where(rng.uniform(size=size) < ZERO_SHARE, 0.0, rng.beta(2.5, 2.0, size))


def population_r(judge: str, seed: int) -> float:
    rng = np.random.default_rng(seed + 10_000)
    y = true_scores(rng, 1_000_000)
    return float(np.corrcoef(y, JUDGES[judge](y, rng))[0, 1])


def covers(estimate, truth: float) -> bool:
    return estimate.ci[0] <= truth <= estimate.ci[1]


def one_setting(judge: str, n: int, big_n: int, reps: int, seed: int) -> dict:
    rng = np.random.default_rng([seed, n, list(JUDGES).index(judge)])
    hits = {"human": 0, "ppi": 0}
    widths = {"human": 0.0, "ppi": 0.0}
    for _ in range(reps):
        y = true_scores(rng, n + big_n)
        f = JUDGES[judge](y, rng)
        human, ppi = human_only(y[:n], ALPHA), ppi_mean(y[:n], f[:n], f[n:], ALPHA)
        for name, estimate in (("human", human), ("ppi", ppi)):
            hits[name] += covers(estimate, TRUE_MEAN["a"])
            widths[name] += 2 * estimate.half_width / reps
    r = population_r(judge, seed)
    return {
        "judge": judge,
        "n": n,
        "N": big_n,
        "r": r,
        "human_coverage": hits["human"] / reps,
        "ppi_coverage": hits["ppi"] / reps,
        "width_ratio": widths["ppi"] / widths["human"],
        "expected_large_N": math.sqrt(1 - r**2),
        "expected_this_N": math.sqrt(1 - r**2 * big_n / (big_n + n)),
    }


def model_b_on_the_same_questions(y_a: np.ndarray, rng) -> np.ndarray:
    """Model b's scores on the questions model a answered: a's score times an independent
    Beta(8, 2) share — correlated with a's, mean exactly 0.8 × 0.5 = 0.4."""
    return y_a * rng.beta(8.0, 2.0, y_a.shape)


def differences(n: int, big_n: int, reps: int, seed: int) -> list[dict]:
    rng = np.random.default_rng([seed, n, 99])
    judge, truth = JUDGES["unbiased"], TRUE_MEAN["a"] - TRUE_MEAN["b"]
    hits = {"paired": 0, "paired as independent": 0, "independent": 0}
    widths = dict.fromkeys(hits, 0.0)
    for _ in range(reps):
        ya = true_scores(rng, n + big_n)
        yb = model_b_on_the_same_questions(ya, rng)
        fa, fb = judge(ya, rng), judge(yb, rng)
        paired = paired_difference(ya[:n], yb[:n], fa[:n], fb[:n], fa[n:], fb[n:], ALPHA)
        a, b = ppi_mean(ya[:n], fa[:n], fa[n:], ALPHA), ppi_mean(yb[:n], fb[:n], fb[n:], ALPHA)
        as_independent = independent_difference(a, b, ALPHA)
        yc = model_b_on_the_same_questions(true_scores(rng, n + big_n), rng)  # b on other questions
        fc = judge(yc, rng)
        apart = independent_difference(a, ppi_mean(yc[:n], fc[:n], fc[n:], ALPHA), ALPHA)
        for name, estimate in (
            ("paired", paired),
            ("paired as independent", as_independent),
            ("independent", apart),
        ):
            hits[name] += covers(estimate, truth)
            widths[name] += 2 * estimate.half_width / reps
    return [
        {"design": name, "n": n, "N": big_n, "coverage": hits[name] / reps, "mean_width": widths[name]}
        for name in hits
    ]


def identical_judge(n: int, big_n: int, reps: int, seed: int) -> dict:
    rng = np.random.default_rng([seed, n, 7])
    ratios, lambdas = [], []
    for _ in range(reps):
        y = true_scores(rng, n + big_n)
        ppi = ppi_mean(y[:n], y[:n], y[n:], ALPHA)
        judge_only = z_value(ALPHA) * y.std(ddof=1) / math.sqrt(n + big_n)
        ratios.append(ppi.half_width / judge_only)
        lambdas.append(ppi.lam)
    ratios = np.array(ratios)
    return {
        "n": n,
        "N": big_n,
        "median_width_ratio": float(np.median(ratios)),
        "p90_width_ratio": float(np.percentile(ratios, 90)),
        "share_wider_by_over_5pct": float(np.mean(ratios > 1.05)),
        "median_lambda": float(np.median(lambdas)),
    }


def print_report(settings: list[dict], diffs: list[dict], identical: list[dict], reps: int, seconds: float):
    print(
        f"95 % intervals, {reps} repetitions per row (Monte Carlo SE of a coverage ≈ {math.sqrt(0.95 * 0.05 / reps):.4f})"
    )
    print(
        f"{'judge':<11} {'n':>4} {'N':>5} {'r':>6} {'human cov':>9} {'PPI cov':>8} {'width PPI/human':>15} {'√(1−r²)':>8} {'at this N':>9}"
    )
    for s in settings:
        print(
            f"{s['judge']:<11} {s['n']:>4} {s['N']:>5} {s['r']:>6.3f} {s['human_coverage']:>9.3f} "
            f"{s['ppi_coverage']:>8.3f} {s['width_ratio']:>15.3f} {s['expected_large_N']:>8.3f} {s['expected_this_N']:>9.3f}"
        )
    print("\ndifferences of two models (unbiased judge; true difference 0.1)")
    print(f"{'design':<22} {'n':>4} {'N':>5} {'coverage':>8} {'mean width':>10}")
    for d in diffs:
        print(f"{d['design']:<22} {d['n']:>4} {d['N']:>5} {d['coverage']:>8.3f} {d['mean_width']:>10.4f}")
    print("\njudge identical to gold: PPI++ half-width / judge-only half-width over all N + n")
    for i in identical:
        print(
            f"n {i['n']:>4}, N {i['N']}: median {i['median_width_ratio']:.3f}, 90th percentile "
            f"{i['p90_width_ratio']:.3f}, wider by > 5 % in {100 * i['share_wider_by_over_5pct']:.1f} % of samples, "
            f"median lambda {i['median_lambda']:.3f}"
        )
    models_within = all(0.93 <= s["ppi_coverage"] <= 0.97 for s in settings)
    outside = [
        d for d in diffs if d["design"] != "paired as independent" and not 0.93 <= d["coverage"] <= 0.97
    ]
    print(f"\nevery model's PPI coverage within [.93, .97]: {'yes' if models_within else 'NO'}")
    print(
        "every difference's coverage within [.93, .97]: "
        + (
            "yes"
            if not outside
            else "no: " + ", ".join(f"{d['design']} n {d['n']} {d['coverage']:.3f}" for d in outside)
        )
    )
    print(f"({seconds:.0f} s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=5000)
    parser.add_argument("--unlabelled", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    settings = [one_setting(j, n, args.unlabelled, args.reps, args.seed) for j in JUDGES for n in (50, 200)]
    diffs = [d for n in (50, 200) for d in differences(n, args.unlabelled, args.reps, args.seed)]
    identical = [identical_judge(n, args.unlabelled, min(args.reps, 2000), args.seed) for n in (50, 200)]
    seconds = time.perf_counter() - started
    if args.json:
        print(json.dumps({"settings": settings, "differences": diffs, "identical_judge": identical}))
    else:
        print_report(settings, diffs, identical, args.reps, seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
