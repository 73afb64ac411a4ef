"""Differences between two models' means with PPI CIs: paired when the two models answered the
same questions (then the per-question difference is estimated by PPI, its own λ tuned), else
independent (θ̂a − θ̂b, variances added, Welch–Satterthwaite degrees of freedom). Pure: arrays and
estimates in, estimates out."""

from __future__ import annotations

import math

import numpy as np

from calibration.estimates.ppi import MeanEstimate, ppi_mean, t_estimate

DIFFERENCE_RANGE = (-1.0, 1.0)  # a difference of two scores in [0, 1]


def welch_df(a: MeanEstimate, b: MeanEstimate) -> float:
    """Welch–Satterthwaite degrees of freedom of se_a² + se_b² (∞ when both are exact points)."""
    va, vb = a.se**2, b.se**2
    denominator = (va**2 / a.df if a.df > 0 else 0.0) + (vb**2 / b.df if b.df > 0 else 0.0)
    return (va + vb) ** 2 / denominator if denominator > 0 else math.inf


def independent_difference(a: MeanEstimate, b: MeanEstimate, alpha: float) -> MeanEstimate:
    """θ̂a − θ̂b with se² = se_a² + se_b² (the two estimates share no response); no interval when
    either has none (the reason is carried over)."""
    se = math.sqrt(a.se**2 + b.se**2)
    if a.ci is None or b.ci is None:
        reason = a.no_ci_reason or b.no_ci_reason
        return MeanEstimate(
            a.mean - b.mean, se, None, a.n + b.n, a.N + b.N, math.nan, math.nan, "none", reason
        )
    return t_estimate(a.mean - b.mean, se, alpha, welch_df(a, b), a.n + b.n, a.N + b.N, math.nan)


def paired_difference(
    gold_a, gold_b, judge_a, judge_b, judge_unlabelled_a, judge_unlabelled_b, alpha: float
) -> MeanEstimate | None:
    """PPI on the per-question differences: `gold_*` and `judge_*` on the questions both models'
    responses were labelled on (aligned), `judge_unlabelled_*` on the other questions (aligned).
    None with fewer than two jointly labelled questions."""
    y = np.asarray(gold_a, dtype=float) - np.asarray(gold_b, dtype=float)
    f = np.asarray(judge_a, dtype=float) - np.asarray(judge_b, dtype=float)
    f_unlabelled = np.asarray(judge_unlabelled_a, dtype=float) - np.asarray(judge_unlabelled_b, dtype=float)
    return ppi_mean(y, f, f_unlabelled, alpha, bounds=DIFFERENCE_RANGE)
