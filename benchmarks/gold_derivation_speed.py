"""Time to derive the demo's gold cold (`annotation.state.derive_state`, once per project revision;
`gold_from_store` in trees before the project state, on every rerun), this
tree against a baseline commit run in the same script, in CPU seconds of the process (the machine is
shared: wall time varies with its load).

    .venv/bin/python benchmarks/gold_derivation_speed.py [--baseline e9653e6] [--repeats 7]

The demo is built with each code (`git archive` of the baseline into a temporary folder, this script
run there with `--measure-only --code DIR`); after one warm-up derivation, the median of `--repeats`
derivations is reported, and the ratio after/before. Every derivation derives every response
(`kept=False`: the results kept in the project file are neither read nor written).

Gold cold on built projects (e.g. `benchmarks/project_scale.py --keep DIR`'s DIR/scale-SIZE):

    .venv/bin/python benchmarks/gold_derivation_speed.py --projects DIR/scale-250,DIR/scale-1000,... \
        [--baseline e88c34c]

Each project is copied (SQLite's backup) and read by new processes, one after the other:
`project_state` with nothing kept in the file (it derives every response and keeps the results),
then in a second process with the results kept, which then appends one label and reads the state
again (after one label: this process's first derivation, which loads the meaning model), and once
more after another label (what a running server pays). CPU and wall seconds, the load beside them, and the growth exponent k over
the sizes; with `--baseline`, the first figure of that commit's tree on a copy of its own.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import shutil
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
    if "kept" in inspect.signature(derive_state).parameters:  # a tree that keeps derived results
        return lambda store: derive_state(store, kept=False).gold
    return lambda store: derive_state(store).gold


# -- gold cold on built projects, each figure in a new process ---------------------------------
COLD = """
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
store = ProjectStore.open(sys.argv[2])
out = {}
cpu, wall = time.process_time(), time.perf_counter()
project_state(store)
out["cold"] = (time.process_time() - cpu, time.perf_counter() - wall, os.getloadavg()[0])
if sys.argv[3] == "label":
    response = store.response_ids()[0]
    store.events.append("dana", response, "s0", "verifiable", True, spent_ms=1000)
    cpu, wall = time.process_time(), time.perf_counter()
    project_state(store)
    out["after_label"] = (time.process_time() - cpu, time.perf_counter() - wall, os.getloadavg()[0])
    store.events.append("dana", response, "s1", "verifiable", False, spent_ms=1000)
    cpu, wall = time.process_time(), time.perf_counter()
    project_state(store)
    out["after_another"] = (time.process_time() - cpu, time.perf_counter() - wall, os.getloadavg()[0])
print(json.dumps(out))
"""


def cold_in_new_process(code: Path, project: Path, then: str = "") -> dict:
    reply = subprocess.run(
        [sys.executable, "-c", COLD, str(code), str(project), then],
        check=True,
        capture_output=True,
        text=True,
        cwd=code,
    )
    return json.loads(reply.stdout.strip().splitlines()[-1])


def copy_project(project: Path, to: Path) -> Path:
    import sqlite3

    to.mkdir(parents=True)
    source, target = sqlite3.connect(project / "project.db"), sqlite3.connect(to / "project.db")
    with target:
        source.backup(target)
    source.close()
    target.close()
    return to


def labelled_responses(project: Path) -> int:
    import sqlite3

    connection = sqlite3.connect(project / "project.db")
    try:
        return connection.execute("SELECT COUNT(DISTINCT response_id) FROM events").fetchone()[0]
    finally:
        connection.close()


def growth(sizes: list[int], seconds: list[float]) -> float | None:
    """k of seconds ∝ size^k (log-log least squares); None with fewer than two sizes."""
    if len(set(sizes)) < 2:
        return None
    xs, ys = [math.log(s) for s in sizes], [math.log(max(t, 1e-9)) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def cold_on_projects(projects: list[Path], baseline: str | None) -> None:
    rows: dict[str, list[tuple[float, float, float]]] = {}
    sizes = [labelled_responses(p) for p in projects]
    with tempfile.TemporaryDirectory() as folder:
        old_code = None
        if baseline:
            old_code = Path(folder) / "baseline"
            old_code.mkdir()
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", baseline], check=True, capture_output=True
            )
            subprocess.run(["tar", "-x", "-C", str(old_code)], input=archive.stdout, check=True)
        for n, project in enumerate(projects):
            if old_code is not None:
                copy = copy_project(project, Path(folder) / f"old-{n}")
                rows.setdefault(f"{baseline}: cold", []).append(cold_in_new_process(old_code, copy)["cold"])
                shutil.rmtree(copy)
            copy = copy_project(project, Path(folder) / f"new-{n}")
            rows.setdefault("cold, nothing kept", []).append(cold_in_new_process(ROOT, copy)["cold"])
            kept = cold_in_new_process(ROOT, copy, "label")
            rows.setdefault("cold, results kept", []).append(kept["cold"])
            rows.setdefault("after one label (first derivation in the process)", []).append(
                kept["after_label"]
            )
            rows.setdefault("after another label", []).append(kept["after_another"])
            shutil.rmtree(copy)
    print("| labelled × 3 | " + " | ".join(f"{s:,}" for s in sizes) + " | k (CPU) |")
    print("|---|" + "---|" * (len(sizes) + 1))
    for name, figures in rows.items():
        cells = [f"{cpu:.2f} CPU s / {wall:.2f} s wall (load {load:.1f})" for cpu, wall, load in figures]
        k = growth(sizes, [f[0] for f in figures])
        print(f"| {name} | " + " | ".join(cells) + f" | {'—' if k is None else f'{k:.2f}'} |")


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
    parser.add_argument("--projects", help="comma-separated built projects: gold cold on each (module doc)")
    args = parser.parse_args(argv)
    if args.projects:
        baseline = args.baseline if "--baseline" in (argv if argv is not None else sys.argv) else None
        cold_on_projects([Path(p) for p in args.projects.split(",")], baseline)
        return 0
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
