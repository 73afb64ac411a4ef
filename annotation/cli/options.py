"""Argument types shared by both command lines (`python -m annotation`, `python -m calibration`):
one place decides what a number on the command line may be."""

from __future__ import annotations

import argparse
import math


def finite_float(text: str) -> float:
    """A float option's value; argparse's error (exit 2, naming the option) for anything that
    is not a number, and for `nan`, `inf` and values that overflow to infinity (`1e999`):
    `--max-cost nan` compared false with every cost, so it meant no limit."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number (nan and infinities are refused)")
    return value
