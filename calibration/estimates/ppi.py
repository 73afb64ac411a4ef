"""Prediction-powered inference for a mean (Angelopoulos et al., Science 2023) with PPI++ power
tuning (Angelopoulos, Duchi & Zrnic 2023): the judge's mean over the N unlabelled responses,
corrected by the mean gold − λ·judge difference over the n labelled ones, with a t interval.

    θ̂(λ) = mean(λ·f̃) + mean(Y − λ·f)
    se²  = s²(λ·f̃; 1)/N + s²(Y − λ·f; k)/n,   s²(x; k) = Σ(x − x̄)²/(len(x) − k)
    CI   = θ̂ ± t_{n−k}(1 − α/2)·se

k = 1 for a given λ (and the human-only mean, λ = 0), k = 2 for the tuned λ: it is a coefficient
fitted on the same n labelled values, so their residual spread has n − 2 degrees of freedom, as in
a regression. λ = 1 is plain PPI; the tuned λ is ppi_py's rule, cov(Y, f) / ((1 + n/N)·var(f ∪ f̃))
clipped to [0, 1], with a variance below VARIANCE_TOLERANCE taken as 0 (a constant judge, or
constant gold, gets λ = 0 exactly: float noise of 1e-32 is not information). The point estimate
and λ are ppi_py's; the interval is ppi_py's with these small-sample corrections, chosen by
simulation (benchmarks/ppi_coverage.py, 10,000 samples a cell): ppi_py's z with variances over n
covered .80 at n = 6 and .86–.92 at n = 10; t on n − 1 with variances over n − 1 .91–.93 at n = 10;
the k = 2 version .94–.95 at n = 10 and .94–.95 at n = 24.

Below MIN_LABELLED gold values no interval is given (`no_ci_reason` says why). Gold values that are
all equal get the exact interval of `all_equal_interval`, never a zero-width one. Written here
rather than imported from ppi_py, whose import silences every warning of the process and loads
numba, scikit-learn and statsmodels (2 s) for a mean. Pure: arrays in, numbers out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from calibration.stats.distributions import normal_quantile, t_quantile

# Below this many labelled values no interval is claimed (benchmarks/ppi_coverage.py: at n = 6 the
# interval covered .92–.95 on the benchmark's score distributions, at n = 8 and more .93 or more).
MIN_LABELLED = 8
# Scores live in [0, 1]: a variance this small is float noise around a constant, not spread.
VARIANCE_TOLERANCE = 1e-12
UNIT_RANGE = (0.0, 1.0)


@dataclass(frozen=True)
class MeanEstimate:
    """A mean with its standard error and two-sided (1 − α) CI; `n` labelled and `N` unlabelled
    values went into it (`N` = 0 and `lam` = 0 for a human-only mean). `ci` is None when no interval
    is claimed, and `no_ci_reason` says why; `method` names how the interval was made ('t' on `df`
    degrees of freedom, or 'exact' for a sample whose gold values are all equal)."""

    mean: float
    se: float
    ci: tuple[float, float] | None
    n: int
    N: int
    lam: float
    df: float = math.inf
    method: str = "t"
    no_ci_reason: str | None = None

    @property
    def half_width(self) -> float:
        """Half the interval's width (NaN without an interval)."""
        return math.nan if self.ci is None else (self.ci[1] - self.ci[0]) / 2


def z_value(alpha: float) -> float:
    """The two-sided normal quantile for level α; ValueError outside (0, 1)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    return float(normal_quantile(1 - alpha / 2))


def t_value(alpha: float, df: float) -> float:
    """The two-sided Student t quantile for level α on `df` degrees of freedom (normal at ∞)."""
    z = z_value(alpha)
    return z if math.isinf(df) else float(t_quantile(1 - alpha / 2, df))


def t_estimate(
    mean: float, se: float, alpha: float, df: float, n: int, N: int = 0, lam: float = 0.0
) -> MeanEstimate:
    """`mean` ± t_df·`se` as a MeanEstimate (df = inf: the normal quantile)."""
    half = t_value(alpha, df) * se
    return MeanEstimate(
        float(mean), float(se), (float(mean - half), float(mean + half)), n, N, float(lam), df
    )


def too_few_reason(n: int) -> str:
    """Why a sample of `n` labelled values gets no interval."""
    return (
        f"{n} gold responses: an interval needs at least {MIN_LABELLED} to hold its level "
        "(benchmarks/ppi_coverage.py)"
    )


def all_equal_interval(value: float, n: int, alpha: float, bounds=UNIT_RANGE) -> tuple[float, float]:
    """The exact interval for the mean of a variable in `bounds` when all n observed values equal
    `value`: the means μ under which n equal values have probability ≥ α. Seeing n times `value`
    has probability p^n, p = P(value); a mean μ ≠ value needs mass away from it, at most the distance
    to the far bound per unit, so |μ − value| ≤ (1 − p)·(bound − value) and p^n ≥ α gives
    [value − (value − lo)(1 − α^{1/n}), value + (hi − value)(1 − α^{1/n})]. Conservative, never a
    point: it replaces the zero-width normal interval a sample without spread would give."""
    lo, hi = bounds
    reach = 1.0 - alpha ** (1.0 / n)
    return float(value - (value - lo) * reach), float(value + (hi - value) * reach)


def _spread(values: np.ndarray, ddof: int = 1) -> float:
    """Sample variance (over len − ddof), 0 below VARIANCE_TOLERANCE or without ddof + 1 values."""
    if len(values) <= ddof:
        return 0.0
    variance = float(np.var(values, ddof=ddof))
    return variance if variance > VARIANCE_TOLERANCE else 0.0


def _estimate(mean, se, alpha, df, n, N, lam, y, bounds) -> MeanEstimate:
    """The estimate with its interval: t on `df`; the exact interval when the gold values are all
    equal (or nothing varies at all); none below MIN_LABELLED."""
    if n < MIN_LABELLED:
        return MeanEstimate(float(mean), float(se), None, n, N, float(lam), df, "none", too_few_reason(n))
    if _spread(y) == 0.0 or se**2 <= VARIANCE_TOLERANCE:
        ci = all_equal_interval(float(np.clip(mean, *bounds)), n, alpha, bounds)
        return MeanEstimate(float(mean), float(se), ci, n, N, float(lam), df, "exact")
    return t_estimate(mean, se, alpha, df, n, N, lam)


def human_only(y, alpha: float, bounds=UNIT_RANGE) -> MeanEstimate | None:
    """The mean of the gold values with its t interval (variance over n − 1, t on n − 1 df; the
    exact interval when they are all equal; none below MIN_LABELLED). None with fewer than two
    values (no spread to estimate)."""
    y = np.asarray(y, dtype=float)
    if len(y) < 2:
        return None
    z_value(alpha)  # refuses a bad alpha whatever the size
    n = len(y)
    return _estimate(y.mean(), math.sqrt(_spread(y) / n), alpha, n - 1, n, 0, 0.0, y, bounds)


def tuned_lambda(y, f, f_unlabelled) -> float:
    """PPI++'s power-tuning λ for a mean (ppi_py's rule, clipped to [0, 1]); exactly 0 when there is
    no unlabelled value, or the judge or the gold does not vary (variance below VARIANCE_TOLERANCE):
    then the judge carries no information."""
    y, f, f_unlabelled = (np.asarray(a, dtype=float) for a in (y, f, f_unlabelled))
    n, N = len(y), len(f_unlabelled)
    if N == 0 or n < 2:
        return 0.0
    variance = _spread(np.concatenate([f, f_unlabelled]))
    if variance == 0.0 or _spread(y) == 0.0 or _spread(f) == 0.0:
        return 0.0
    covariance = float(np.mean((y - y.mean()) * (f - f.mean())))
    return float(np.clip(covariance / ((1 + n / N) * variance), 0.0, 1.0))


def ppi_mean(
    y, f, f_unlabelled, alpha: float, lam: float | None = None, bounds=UNIT_RANGE
) -> MeanEstimate | None:
    """The prediction-powered mean of the gold values `y`, given the judge's values `f` on the
    same responses and `f_unlabelled` on responses nobody labelled (see module doc); `lam` None
    tunes λ; `bounds` the range the gold values live in (for the exact interval of all-equal gold).
    None with fewer than two labelled values; no interval below MIN_LABELLED; with no unlabelled
    value it is the human-only mean. ValueError when `y` and `f` differ in length."""
    y, f, f_unlabelled = (np.asarray(a, dtype=float) for a in (y, f, f_unlabelled))
    if len(y) != len(f):
        raise ValueError(f"{len(y)} gold values but {len(f)} judge values on them")
    if len(y) < 2:
        return None
    if len(f_unlabelled) == 0:
        return human_only(y, alpha, bounds)
    z_value(alpha)
    if _spread(y) == 0.0:
        lam = 0.0  # gold without spread: nothing to learn of the judge; the exact interval of y's mean
    fitted = 2 if lam is None else 1  # k of the module doc: a tuned λ is fitted on these n values
    lam = tuned_lambda(y, f, f_unlabelled) if lam is None else float(lam)
    n, N = len(y), len(f_unlabelled)
    mean = float(np.mean(lam * f_unlabelled) + np.mean(y - lam * f))
    se = math.sqrt(_spread(lam * f_unlabelled) / N + _spread(y - lam * f, fitted) / n)
    return _estimate(mean, se, alpha, n - fitted, n, N, lam, y, bounds)


def ess_gain(human: MeanEstimate | None, ppi: MeanEstimate | None) -> float | None:
    """How many times the labelled sample PPI is worth: var(human-only) / var(PPI) — n gold
    responses with the judge give the precision of ess_gain·n without it. None when either is
    missing or either variance is 0."""
    if human is None or ppi is None or ppi.se <= 0 or human.se <= 0:
        return None
    return (human.se / ppi.se) ** 2
