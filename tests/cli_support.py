"""Running a command of `python -m annotation …` or `python -m calibration …` from a test (no tests
here): as a real process, or by the same `main` in this process.

A real process pays a fresh interpreter and the command's imports (≈ 0.4 CPU s for `annotation`,
≈ 1.5 for `calibration`) on every run. Tests whose subject is what a command does (its output,
its exit code, what it writes) run it in this process; the process boundary keeps its own tests
(a kill mid-write, the environment a command reads, `--help` of every command README shows, and
one exit code per command file)."""

from __future__ import annotations

import contextlib
import importlib
import io
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_process(
    package: str, *args: str | Path, timeout: float = 300, **options
) -> subprocess.CompletedProcess:
    """`python -m package args` in a real process from the repository root, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", package, *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        **options,
    )


def run_in_process(package: str, *args: str | Path) -> subprocess.CompletedProcess:
    """As `run_process`, by `package.cli.main.main` in this process: its exit code (argparse's own
    refusals included), stdout and stderr."""
    main = importlib.import_module(f"{package}.cli.main").main
    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return subprocess.CompletedProcess([package, *argv], code, out.getvalue(), err.getvalue())
