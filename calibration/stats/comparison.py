"""Multiple testing: Benjamini–Yekutieli adjusted p-values (false discovery rate under any dependence),
the correction Calderon et al. (2025) use for the alternative-annotator test over annotators."""

from __future__ import annotations

import numpy as np


def benjamini_yekutieli(p_values) -> np.ndarray:
    """BY-adjusted p-values, same order: p_(i) · m · c(m) / i (c(m) = Σ_{j≤m} 1/j), made monotone
    from the largest down and capped at 1. NaN stays NaN and does not count in m."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    if not m:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    raw = p[order] * m * harmonic / np.arange(1, m + 1)
    out[order] = np.minimum(np.minimum.accumulate(raw[::-1])[::-1], 1.0)
    return out
