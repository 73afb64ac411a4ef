"""Issue 23, findings 8 and 9: outputs are written to regular files only (a FIFO, a device, a
symbolic link or a directory in their place is refused, exit 2, naming it), a full disk is
reported as such and never as "wrote N records"; and no numeric option of either command line
takes `nan` or an infinity."""

from __future__ import annotations

import argparse
import os
import stat

import pytest
from disk_support import fill, mounted_tmpfs

from annotation.cli.main import build_parser as annotation_parser
from annotation.cli.main import main as annotation_main
from annotation.cli.options import finite_float
from annotation.formats.atomic_file import write_text_atomically
from calibration.cli.main import build_parser as calibration_parser


def export(project, out) -> list[str]:
    return ["export", "--project", str(project), "--out", str(out)]


def test_an_export_to_a_fifo_is_refused_naming_it_and_the_fifo_stays(fresh_project, tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert annotation_main(export(fresh_project, fifo)) == 2
    err, out = capsys.readouterr().err, capsys.readouterr().out
    assert f"{fifo}: is a FIFO (named pipe), not a regular file" in err and "wrote" not in out
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_an_export_to_a_symbolic_link_is_refused_and_the_link_stays(fresh_project, tmp_path, capsys):
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("kept\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert annotation_main(export(fresh_project, link)) == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert link.is_symlink() and target.read_text() == "kept\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_an_export_to_a_device_is_refused_and_the_device_stays(fresh_project, tmp_path, capsys):
    full = tmp_path / "full"
    os.mknod(full, stat.S_IFCHR | 0o600, os.makedev(1, 7))  # the same device as /dev/full
    assert annotation_main(export(fresh_project, full)) == 2
    assert "is a character device" in capsys.readouterr().err and stat.S_ISCHR(full.lstat().st_mode)


def test_a_gold_csv_that_cannot_be_written_leaves_the_jsonl_unwritten_too(fresh_project, tmp_path, capsys):
    (tmp_path / "dir.csv").mkdir()
    argv = ["gold", "--project", str(fresh_project), "--out", str(tmp_path / "gold.jsonl")]
    assert annotation_main([*argv, "--csv", str(tmp_path / "dir.csv")]) == 2
    assert "is a directory" in capsys.readouterr().err and not (tmp_path / "gold.jsonl").exists()


@pytest.fixture
def tiny_disk(tmp_path):
    yield from mounted_tmpfs(tmp_path / "tiny", "64k")


def test_a_full_disk_is_reported_as_such_and_nothing_is_left_behind(tiny_disk):
    with pytest.raises(OSError) as raised:
        write_text_atomically(tiny_disk / "big.jsonl", "x" * 200_000)
    assert raised.value.filename == str(tiny_disk / "big.jsonl") and list(tiny_disk.iterdir()) == []


def test_the_cli_says_the_disk_is_full_and_never_that_it_wrote(fresh_project, tiny_disk, capsys):
    fill(tiny_disk)
    assert annotation_main(export(fresh_project, tiny_disk / "out.jsonl")) == 2
    captured = capsys.readouterr()
    assert "out.jsonl: the disk is full" in captured.err and "wrote" not in captured.out
    assert [p.name for p in tiny_disk.iterdir()] == ["filler"]


# --- numbers -------------------------------------------------------------------------------------


def float_options(parser: argparse.ArgumentParser, path=()) -> list[tuple[tuple, str]]:
    """(sub-command path, option) of every option whose value is a float, in every sub-command."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += float_options(sub, (*path, name))
        elif action.type in (float, finite_float):
            found.append((path, action.option_strings[0]))
    return found


FLOAT_OPTIONS = float_options(annotation_parser()) + float_options(calibration_parser())


def test_both_command_lines_have_float_options_to_check():
    assert (("judge", "run"), "--max-cost") in FLOAT_OPTIONS


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999", "NaN"])
@pytest.mark.parametrize(("path", "option"), FLOAT_OPTIONS)
def test_no_float_option_takes_nan_or_infinity(path, option, value, capsys):
    sub = (
        calibration_parser() if (path, option) in float_options(calibration_parser()) else annotation_parser()
    )
    for name in path:
        sub = next(a for a in sub._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
    with pytest.raises(SystemExit) as exited:
        sub.parse_known_args([f"{option}={value}"])
    assert exited.value.code == 2 and "not a finite number" in capsys.readouterr().err
