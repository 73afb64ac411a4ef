"""The one way numbers are written for people (CLI tables, page sentences, captions): three decimals
for r, means and intervals, two for shares; an undefined number (None, NaN) is '—'."""

from __future__ import annotations

import math


def number(value, digits: int = 3) -> str:
    """`value` with `digits` decimals, or '—' when it is None or not finite."""
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:.{digits}f}"


def interval(low, high, digits: int = 3) -> str:
    """'[low, high]' with `number`; '—' when both ends are undefined."""
    if number(low) == number(high) == "—":
        return "—"
    return f"[{number(low, digits)}, {number(high, digits)}]"


def share(value) -> str:
    """A probability or share in [0, 1], two decimals."""
    return number(value, 2)
