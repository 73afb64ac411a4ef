"""Where a command's CPU really goes, by kind of process (pytest workers, Chromium's renderers,
Streamlit servers, ffmpeg, …), including processes the command never reaps.

`/usr/bin/time` and rusage count only the children a process waits for: Chromium's helpers are
re-parented to init when the browser closes, so the test suite's own figure left out ≈ 170 of its
≈ 630 CPU s (2026-12-02). This samples every process on the machine twice a second while the
command runs and sums the CPU of those started after it began.

    python benchmarks/cpu_by_process.py -- bash .ci/run
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
KINDS = (  # (kind, pattern in the command line), first match wins
    ("chromium", re.compile(r"chrom")),
    ("streamlit server", re.compile(r"streamlit")),
    ("pytest", re.compile(r"pytest|execnet|exec\(eval")),
    ("playwright driver", re.compile(r"playwright|node")),
    ("ffmpeg", re.compile(r"ffmpeg")),
    ("python -m annotation/calibration", re.compile(r"-m (annotation|calibration)")),
)


def machine_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of the whole machine since boot (/proc/stat's first line)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return sum(fields) - fields[3] - fields[4], sum(fields)


def kind_of(command: str, name: str) -> str:
    for kind, pattern in KINDS:
        if pattern.search(command):
            if kind == "chromium":
                found = re.search(r"--type=(\S+)", command)
                return f"chromium {found.group(1) if found else 'browser'}"
            return kind
    return name or "other"


def this_process_and_its_ancestors() -> set[str]:
    """Pids of this sampler and of the processes that started it (not the command's)."""
    pids, pid = set(), str(os.getpid())
    while pid != "0":
        pids.add(pid)
        pid = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
    return pids


def sample(started_after: float, seen: dict, stop: threading.Event) -> None:
    """Keep {(pid, start tick): (CPU s, kind)} of every process started after `started_after`,
    this sampler and its ancestors aside."""
    boot = time.time() - float(Path("/proc/uptime").read_text().split()[0])
    own = this_process_and_its_ancestors()
    while not stop.is_set():
        for pid in filter(lambda name: name.isdigit() and name not in own, os.listdir("/proc")):
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
                command = Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
            except OSError:  # gone meanwhile
                continue
            name, rest = stat.split("(", 1)[1].rsplit(")", 1)
            fields = rest.split()
            start_tick = int(fields[19])
            if boot + start_tick / TICK < started_after:
                continue
            cpu = (int(fields[11]) + int(fields[12])) / TICK
            seen[(pid, start_tick)] = (cpu, kind_of(command, name))
        stop.wait(0.5)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give a command after --")
    seen: dict = {}
    stop = threading.Event()
    began, (busy0, total0) = time.time(), machine_ticks()
    sampler = threading.Thread(target=sample, args=(began - 1, seen, stop), daemon=True)
    sampler.start()
    code = subprocess.call(command)
    stop.set()
    sampler.join()
    busy1, total1 = machine_ticks()
    wall = time.time() - began
    by_kind: Counter = Counter()
    count: Counter = Counter()
    for cpu, kind in seen.values():
        by_kind[kind] += cpu
        count[kind] += 1
    print(
        f"\n{wall:.0f} s wall; the machine was {100 * os.cpu_count() * (busy1 - busy0) / max(total1 - total0, 1):.0f} % busy "
        f"(of {os.cpu_count()} cores: {100 * os.cpu_count()} %); processes started meanwhile:"
    )
    for kind, cpu in by_kind.most_common():
        print(f"  {cpu:8.1f} CPU s  {count[kind]:5d} processes  {kind}")
    print(f"  {sum(by_kind.values()):8.1f} CPU s in all (a process's last half second may be missed)")
    return code


if __name__ == "__main__":
    sys.exit(main())
