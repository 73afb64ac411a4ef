"""Time of the one citation scanner (`find_citation_groups`) on adversarial text, 16 KB → 1 MB.

    .venv/bin/python benchmarks/citation_scan_speed.py [--max-kb 1024] [--baseline-kb 16 32 64]

For each kind of hostile text the scanner's time is measured at 16, 32, … KB up to `--max-kb`
(best of 3, each on a fresh text so no memo helps), with the ratio to its 16 KB time: a linear
scanner doubles when the size doubles (ratio = size / 16 KB), a quadratic one quadruples.
The baseline, run in the same script: the grammar before issue 12 (a regular expression with a
lazy repetition followed by `\\s*`, copied below) on the first kind at `--baseline-kb` sizes;
it was quadratic (3.1 s at 16 KB, 48.9 s at 64 KB on the reporter's machine).
Target: 1 MB of any kind in under a second.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from annotation.protocol.citations import find_citation_groups

_TIME = r"\d[\d:.]*"
_PART = rf"\s*([A-Za-z][A-Za-z_\- ]*?)\s*,\s*({_TIME}(?:\s*[-\u2013\u2014]\s*{_TIME})?)\s*"
BEFORE_GROUP_RE = re.compile(rf"\(({_PART}(?:;{_PART})*)\)")  # the grammar before issue 12


def unclosed_space_runs(size: int, salt: int = 0) -> str:
    """One unclosed group whose word is followed by one long run of spaces (the reported case)."""
    return "(a" + " " * size


def many_open_parentheses(size: int, salt: int = 0) -> str:
    return "(" * size


def unclosed_citation_list(size: int, salt: int = 0) -> str:
    return "(visual, 0:01" + "; visual, 0:01" * (size // 14)


def one_huge_group(size: int, salt: int = 0) -> str:
    return "(visual, " + " " * size + "0:01)"


def dense_valid_groups(size: int, salt: int = 0) -> str:
    return "A man waves (visual, 0:12; audio, 0:12-0:14). " * (size // 47 + 1)


def distinct_valid_groups(size: int, salt: int = 0) -> str:
    """Groups that all differ (no memo helps): the real work of parsing times."""
    return "".join(
        f"A man waves (visual, {i // 60}:{i % 60:02d}; audio, 0:01-{i}:00). "
        for i in range(salt, salt + size // 30)
    )


def invisible_and_foreign_digits(size: int, salt: int = 0) -> str:
    return "(visual,\u200b\u0660:\u0660\u0663; audio 0:0\uff13) " * (size // 30 + 1)


KINDS = (
    unclosed_space_runs,
    many_open_parentheses,
    unclosed_citation_list,
    one_huge_group,
    dense_valid_groups,
    distinct_valid_groups,
    invisible_and_foreign_digits,
)


_SALTS = itertools.count(0, 10**6)


def best_of(runs: int, scan, make, size: int) -> float:
    best = float("inf")
    for _ in range(runs):
        salt = next(_SALTS)
        text = make(size, salt)[:size] + f" #{salt}"  # a new text each time: no memo answers
        started = time.perf_counter()
        scan(text)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-kb", type=int, default=1024)
    parser.add_argument("--baseline-kb", type=int, nargs="*", default=[16, 32, 64])
    args = parser.parse_args()
    sizes = []
    kb = 16
    while kb <= args.max_kb:
        sizes.append(kb)
        kb *= 2
    print("baseline (grammar before issue 12) on unclosed_space_runs:")
    for kb in args.baseline_kb:
        elapsed = best_of(1, lambda t: list(BEFORE_GROUP_RE.finditer(t)), unclosed_space_runs, kb * 1024)
        print(f"  {kb:>5} KB  {elapsed:8.3f} s")
    print("current scanner (find_citation_groups), best of 3:")
    largest = f"{sizes[-1] // 1024} MB" if sizes[-1] % 1024 == 0 else f"{sizes[-1]} KB"
    print(f"  {'kind':30} " + " ".join(f"{kb:>8} KB" for kb in sizes) + f"   ratio {largest} / 16 KB")
    for make in KINDS:
        times = [best_of(3, find_citation_groups, make, kb * 1024) for kb in sizes]
        cells = " ".join(f"{t * 1000:8.1f} ms" for t in times)
        print(f"  {make.__name__:30} {cells}   {times[-1] / times[0]:6.1f} (linear: {sizes[-1] // sizes[0]})")


if __name__ == "__main__":
    main()
