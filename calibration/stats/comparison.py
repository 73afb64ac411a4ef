"""Tests between dependent correlations (Williams' t) and Holm's multiple-testing correction."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats


@dataclass(frozen=True)
class WilliamsResult:
    t: float
    df: int
    p_one_sided: float
    reason: str | None = None


def williams_test(r12: float, r13: float, r23: float, n: int) -> WilliamsResult:
    """Williams' t for H1: ρ12 > ρ13, two dependent correlations sharing variable 1.

    Graham & Baldwin (2014)'s form: variable 1 is the human score, 2 and 3 two judges;
    r23 is judge against judge. t has n − 3 df; p is ONE-sided (upper tail), as they
    use it when asking whether a metric's higher correlation is real — so r12 < r13
    gives p > 0.5. Two identical judges (r12 == r13) give t = 0, p = 0.5. Undefined
    input (n ≤ 3, a NaN r, or r's that no correlation matrix can have) gives NaN and
    a reason.
    """
    df = int(n) - 3
    if df <= 0:
        return WilliamsResult(math.nan, df, math.nan, f"needs more than 3 responses (n={n})")
    if not all(math.isfinite(v) for v in (r12, r13, r23)):
        return WilliamsResult(math.nan, df, math.nan, "a correlation is undefined")
    if abs(r12 - r13) < 1e-12:
        return WilliamsResult(0.0, df, 0.5, None)
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    denominator = 2 * det * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3
    if det < -1e-12 or denominator <= 0:
        return WilliamsResult(math.nan, df, math.nan, "the three correlations are inconsistent")
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(denominator)
    return WilliamsResult(t, df, float(scipy_stats.t.sf(t, df)), None)


def holm_adjust(p_values) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values, same order; NaN stays NaN and does not count in m."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    m = order.size
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out[order] = np.minimum(adjusted, 1.0)
    return out
