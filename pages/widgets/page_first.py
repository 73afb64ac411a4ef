"""Pages before background work: while any page's script (or fragment) runs in this server
process, the background measurements (the agreement page's α and tables) wait at their next step,
so a person's page never shares the interpreter with them. Python runs one thread at a time: a
page run beside a measurement took twice as long, and counted the measurement's CPU as its own.

A step waits at most `MOST_WAIT_S` per look, so a server whose pages never stop running still
measures, slowly.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

MOST_WAIT_S = 0.25

_quiet = threading.Condition()
_running = 0  # page runs under way (a fragment inside a page run counts again)


@contextmanager
def page_running():
    """Mark a page's script run (or a fragment's) for its duration."""
    global _running
    with _quiet:
        _running += 1
    try:
        yield
    finally:
        with _quiet:
            _running -= 1
            if not _running:
                _quiet.notify_all()


def give_way() -> None:
    """A background step: wait while a page runs (at most MOST_WAIT_S)."""
    with _quiet:
        _quiet.wait_for(lambda: _running == 0, timeout=MOST_WAIT_S)
