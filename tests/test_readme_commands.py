"""Every command README.md shows exists: each `python -m annotation|calibration …` subcommand
answers `--help` with exit 0, and each benchmark script it names is in benchmarks/.

The first command of each package runs as a real `python -m` subprocess; the others run in this
process through the same `main` (a subprocess costs up to ≈ 2 CPU s of imports just to print help)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_support import run_in_process, run_process

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# the module and the subcommand words after it, up to the first option, file or placeholder
COMMAND_RE = re.compile(r"python -m (annotation|calibration)((?: [a-z][a-z-]*(?= |$|`))*)", re.MULTILINE)


def readme_commands() -> list[tuple[str, ...]]:
    found = {(m.group(1), *m.group(2).split()) for m in COMMAND_RE.finditer(README)}
    return sorted(command for command in found if len(command) > 1)


def test_the_readme_shows_commands_of_both_packages():
    packages = {command[0] for command in readme_commands()}
    assert packages == {"annotation", "calibration"}
    assert ("calibration", "judge", "run") in readme_commands()


@pytest.mark.parametrize("command", readme_commands(), ids=" ".join)
def test_every_command_the_readme_shows_answers_help(command):
    first_of_its_package = command == next(c for c in readme_commands() if c[0] == command[0])
    run = run_process if first_of_its_package else run_in_process
    done = run(*command, "--help")
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


@pytest.mark.parametrize("script", sorted(set(re.findall(r"benchmarks/[a-z_]+\.py", README))))
def test_every_benchmark_the_readme_names_exists(script):
    assert (ROOT / script).is_file()
