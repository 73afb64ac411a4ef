"""The sweep's verdict over configurations: the best (highest full-sample Pearson r, the paper's
criterion), the 95 % confidence set of best configurations (calibration.stats.confidence_set), each
configuration's bootstrap probability of being best, and the optional "cheapest in the set" rule."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from calibration.stats.confidence_set import model_confidence_set, probability_best


@dataclass
class Verdict:
    """`best`: row index of the highest r (ties to the earlier row), None when no r is defined;
    per row: `in_best_set`, `mcs_p` (NaN for undefined r), `p_best`; `resamples_used` by the set."""

    best: int | None
    in_best_set: np.ndarray
    mcs_p: np.ndarray
    p_best: np.ndarray
    resamples_used: int


def verdict(pearson: np.ndarray, boot_pearson: np.ndarray, alpha: float = 0.05) -> Verdict:
    """The verdict from each row's full-sample r and its r in each shared bootstrap resample (B × k).
    Rows are ordered by the caller's tie-break (sources by name, modes in the order given)."""
    defined = np.isfinite(pearson)
    best = int(np.argmax(np.where(defined, pearson, -np.inf))) if defined.any() else None
    confidence_set = model_confidence_set(pearson, boot_pearson, alpha)
    p_best = probability_best(np.where(defined, boot_pearson, np.nan))
    return Verdict(best, confidence_set.in_set, confidence_set.p_value, p_best, confidence_set.resamples_used)


def cheapest_in_best_set(report, cost_by_source: dict[str, float]):
    """The optional rule: the cheapest configuration of the 95 % confidence set of best ones, by
    `cost_by_source` (e.g. dollars per response from prices × recorded tokens). Sources without a
    price are not candidates; ties go to the higher r, then sweep order. None when no member of the
    set has a price."""
    candidates = [
        (cost_by_source[c.source], -c.pearson if math.isfinite(c.pearson) else math.inf, i, c)
        for i, c in enumerate(report.configs)
        if c.in_best_set and c.source in cost_by_source
    ]
    return min(candidates, key=lambda item: item[:3])[3] if candidates else None
