"""Prediction-powered inference for a mean (Angelopoulos et al., Science 2023) with PPI++ power
tuning (Angelopoulos, Duchi & Zrnic 2023): the judge's mean over the N unlabelled responses,
corrected by the mean gold − λ·judge difference over the n labelled ones, with a normal CI.

    θ̂(λ) = mean(λ·f̃) + mean(Y − λ·f),   se² = var(λ·f̃)/N + var(Y − λ·f)/n   (variances ddof 0)

λ = 0 is the human-only mean (its classical CI); λ = 1 is plain PPI; the tuned λ is ppi_py's:
cov(Y, f) / ((1 + n/N)·var(f ∪ f̃)), clipped to [0, 1]. Written here rather than imported from
ppi_py, whose import silences every warning of the process and loads numba, scikit-learn and
statsmodels (2 s) for a mean; tests/calibration/estimates hold these equal to ppi_py's to 1e-9.
Pure: arrays in, numbers out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm


@dataclass(frozen=True)
class MeanEstimate:
    """A mean with its standard error and two-sided (1 − α) normal CI; `n` labelled and `N`
    unlabelled values went into it (`N` = 0 and `lam` = 0 for a human-only mean)."""

    mean: float
    se: float
    ci: tuple[float, float]
    n: int
    N: int
    lam: float

    @property
    def half_width(self) -> float:
        return (self.ci[1] - self.ci[0]) / 2


def z_value(alpha: float) -> float:
    """The two-sided normal quantile for level α; ValueError outside (0, 1)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    return float(norm.ppf(1 - alpha / 2))


def normal_estimate(
    mean: float, se: float, alpha: float, n: int, N: int = 0, lam: float = 0.0
) -> MeanEstimate:
    """`mean` ± z·`se` as a MeanEstimate."""
    z = z_value(alpha)
    return MeanEstimate(
        float(mean), float(se), (float(mean - z * se), float(mean + z * se)), n, N, float(lam)
    )


def human_only(y, alpha: float) -> MeanEstimate | None:
    """The mean of the gold values and its CLT interval (ppi_py's `classical_mean_ci`); None
    with fewer than two values (no spread to estimate)."""
    y = np.asarray(y, dtype=float)
    if len(y) < 2:
        return None
    return normal_estimate(y.mean(), y.std() / math.sqrt(len(y)), alpha, len(y))


def tuned_lambda(y, f, f_unlabelled) -> float:
    """PPI++'s power-tuning λ for a mean (ppi_py's rule, clipped to [0, 1]); 0 when there is no
    unlabelled value or the judge never varies (it then carries no information)."""
    y, f, f_unlabelled = (np.asarray(a, dtype=float) for a in (y, f, f_unlabelled))
    n, N = len(y), len(f_unlabelled)
    if N == 0 or n < 2:
        return 0.0
    covariance = float(np.mean((y - y.mean()) * (f - f.mean())))
    variance = float(np.var(np.concatenate([f, f_unlabelled]), ddof=1))
    if variance <= 0:
        return 0.0
    return float(np.clip(covariance / ((1 + n / N) * variance), 0.0, 1.0))


def ppi_mean(y, f, f_unlabelled, alpha: float, lam: float | None = None) -> MeanEstimate | None:
    """The prediction-powered mean of the gold values `y`, given the judge's values `f` on the
    same responses and `f_unlabelled` on responses nobody labelled (see module doc); `lam` None
    tunes λ. None with fewer than two labelled values; with no unlabelled value it is the
    human-only mean. ValueError when `y` and `f` differ in length."""
    y, f, f_unlabelled = (np.asarray(a, dtype=float) for a in (y, f, f_unlabelled))
    if len(y) != len(f):
        raise ValueError(f"{len(y)} gold values but {len(f)} judge values on them")
    if len(y) < 2:
        return None
    if len(f_unlabelled) == 0:
        return human_only(y, alpha)
    lam = tuned_lambda(y, f, f_unlabelled) if lam is None else float(lam)
    n, N = len(y), len(f_unlabelled)
    mean = float(np.mean(lam * f_unlabelled) + np.mean(y - lam * f))
    se = math.sqrt(float(np.var(lam * f_unlabelled)) / N + float(np.var(y - lam * f)) / n)
    return normal_estimate(mean, se, alpha, n, N, lam)


def ess_gain(human: MeanEstimate | None, ppi: MeanEstimate | None) -> float | None:
    """How many times the labelled sample PPI is worth: var(human-only) / var(PPI) — n gold
    responses with the judge give the precision of ess_gain·n without it. None when either is
    missing or the PPI variance is 0."""
    if human is None or ppi is None or ppi.se <= 0:
        return None
    return (human.se / ppi.se) ** 2
