"""Least-squares line with the confidence band of its mean (the judge-vs-gold scatter draws it)."""

from __future__ import annotations

import math

import numpy as np

from calibration.stats.distributions import t_quantile


def regression_band(x, y, grid, level: float = 0.95):
    """Least-squares line of y on x at `grid` with the `level` confidence band of the mean:
    (fit, low, high) arrays; None when fewer than 3 points or x does not vary."""
    x, y, grid = (np.asarray(v, dtype=float) for v in (x, y, grid))
    n = len(x)
    sxx = float(((x - x.mean()) ** 2).sum()) if n else 0.0
    if n < 3 or sxx == 0.0:
        return None
    slope = float(((x - x.mean()) * (y - y.mean())).sum()) / sxx
    intercept = float(y.mean()) - slope * float(x.mean())
    residual_sd = math.sqrt(float(((y - intercept - slope * x) ** 2).sum()) / (n - 2))
    t = float(t_quantile(0.5 + level / 2, n - 2))
    half = t * residual_sd * np.sqrt(1 / n + (grid - x.mean()) ** 2 / sxx)
    fit = intercept + slope * grid
    return fit, fit - half, fit + half
