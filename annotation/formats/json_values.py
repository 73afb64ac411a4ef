"""Values made fit for strict JSON before any writer emits them (JSON has no NaN, tuples or numpy types)."""

from __future__ import annotations

import math

import numpy as np


def json_safe(value):
    """NaN/inf → None (JSON has no NaN), tuples → lists, numpy scalars → Python numbers."""
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
