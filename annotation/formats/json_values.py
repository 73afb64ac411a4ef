"""Values made fit for strict JSON before any writer emits them (JSON has no NaN, tuples or numpy
types), and the one strict encoder every writer uses."""

from __future__ import annotations

import json
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


def strict_dumps(value, **options) -> str:
    """`value` as strict JSON text (UTF-8 characters kept): ValueError for NaN or ±Infinity and
    for a string holding a lone surrogate, which no UTF-8 file can carry. `options` go to
    `json.dumps` (indent, sort_keys, …)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("a string holds a lone surrogate (an unpaired \\ud800-\\udfff)") from None
    return text
