"""What a refused sign-in costs: an unknown name against a wrong password (they must match, so
names cannot be found by timing), and the cost of scrypt at the old and the current parameters.

    .venv/bin/python benchmarks/sign_in_cost.py [--tries 7]

Medians over `--tries` calls of `authenticate` on a fresh project, unknown and wrong interleaved,
each try at a time two days apart, so the throttle never answers instead of the check. Baseline in the same run: one
scrypt at the parameters used before issue 12 (N = 2^14), and one at the current ones.
Target: ratio unknown name / wrong password within a few percent of 1.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from annotation.store.accounts import FORGET_AFTER_S, SCRYPT_N, add_account, authenticate
from annotation.store.project_store import ProjectStore


def median_s(call, tries: int) -> float:
    return medians_s([call], tries)[0]


def medians_s(calls: list, tries: int) -> list[float]:
    """Median time of each call, the calls interleaved so a busy machine slows them alike."""
    times: list[list[float]] = [[] for _ in calls]
    for i in range(tries):
        for call, spent in zip(calls, times, strict=True):
            started = time.perf_counter()
            call(i)
            spent.append(time.perf_counter() - started)
    return [statistics.median(spent) for spent in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tries", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = ProjectStore.open(Path(folder) / "p", create=True)
        add_account(store, "carol", "annotator", "carols-password")

        def at(i: int) -> float:
            return 1e9 + i * 2 * FORGET_AFTER_S

        authenticate(store, "warm-up", "guess", now=at(-1))  # the decoy hash is made once
        unknown, wrong = medians_s(
            [
                lambda i: authenticate(store, f"nobody{i}", "guess", now=at(i)),
                lambda i: authenticate(store, "carol", "guess", now=at(i)),
            ],
            args.tries,
        )
        right = median_s(
            lambda i: authenticate(store, "carol", "carols-password", now=at(args.tries + i)), args.tries
        )
    salt = os.urandom(16)
    for n in (2**14, SCRYPT_N):
        cost = median_s(
            lambda _, n=n: hashlib.scrypt(b"pw", salt=salt, n=n, r=8, p=1, dklen=32, maxmem=256 << 20),
            args.tries,
        )
        print(f"scrypt N=2^{n.bit_length() - 1}, r=8, p=1: {cost * 1000:.0f} ms")
    print(f"unknown name:   {unknown * 1000:.0f} ms")
    print(f"wrong password: {wrong * 1000:.0f} ms")
    print(f"right password: {right * 1000:.0f} ms")
    print(f"ratio unknown name / wrong password: {unknown / wrong:.3f}")


if __name__ == "__main__":
    main()
