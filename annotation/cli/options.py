"""What both command lines share (`python -m annotation`, `python -m calibration`): argument types —
one place decides what a number on the command line may be — and how a command ends when the
reader of its output leaves."""

from __future__ import annotations

import argparse
import math
import os
import sys


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


STDOUT_CLOSED = 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader left


def stdout_closed() -> int:
    """The exit of a command whose output's reader stopped reading (`… | head -1`): nothing more is
    said, no error (what was asked for was read); stdout now points at /dev/null so the
    interpreter's last flush cannot fail again. Returns STDOUT_CLOSED."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return STDOUT_CLOSED
