"""Time to derive the demo's gold cold (`annotation.state.derive_state`, once per project revision;
`gold_from_store` in trees before the project state, on every rerun), this
tree against a baseline commit run in the same script, in CPU seconds of the process (the machine is
shared: wall time varies with its load).

    .venv/bin/python benchmarks/gold_derivation_speed.py [--baseline e9653e6] [--repeats 7]

The demo is built with each code (`git archive` of the baseline into a temporary folder, this script
run there with `--measure-only --code DIR`); after one warm-up derivation, the median of `--repeats`
derivations is reported, and the ratio after/before.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(repeats: int) -> float:
    from annotation.demo.project import build_demo

    gold_from_store = cold_gold_derivation()

    with tempfile.TemporaryDirectory() as folder:
        store = build_demo(Path(folder) / "demo")
        gold_from_store(store)  # warm-up: caches, the first read of the event log
        times = []
        for _ in range(repeats):
            start = time.process_time()
            gold_from_store(store)
            times.append(time.process_time() - start)
        store.close()
    return statistics.median(times)


def cold_gold_derivation():
    """store -> GoldSet, derived anew on each call, in this tree or an older one."""
    try:
        from annotation.state import derive_state
    except ImportError:  # a tree before the project state
        from annotation.agreement.gold import gold_from_store

        return gold_from_store
    return lambda store: derive_state(store).gold


def baseline_run(commit: str, repeats: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        reply = subprocess.run(
            [sys.executable, __file__, "--measure-only", "--code", folder, "--repeats", str(repeats)],
            check=True,
            capture_output=True,
            text=True,
            cwd=folder,
        )
    return json.loads(reply.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default="e9653e6", help="the commit to compare with (default e9653e6)")
    parser.add_argument("--repeats", type=int, default=7, help="derivations timed (default 7)")
    parser.add_argument("--measure-only", action="store_true", help="print this code's median as JSON")
    parser.add_argument("--code", help="the tree whose code to measure (default: this one)")
    args = parser.parse_args(argv)
    sys.path.insert(0, args.code or str(ROOT))
    if args.measure_only:
        print(json.dumps(measure(args.repeats)))
        return 0
    before = baseline_run(args.baseline, args.repeats)
    after = measure(args.repeats)
    print(
        f"gold derivation (cold) on the demo, median CPU time of {args.repeats}: baseline {args.baseline} {before:.3f} s, "
        f"this tree {after:.3f} s, after/before {after / before:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
