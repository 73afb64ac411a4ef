"""An import killed with SIGKILL in the middle of its write leaves all or nothing, and importing
the same file again afterwards gives each response and record exactly once (issue 12, class 6).

The killed import runs as a real process; it is killed once its transaction has spilled a given
number of bytes into the SQLite write-ahead log (so the kill lands inside the one transaction),
watched by waiting on the process itself, never by sleeping: it runs in slices, stopped while
its log is read. Should an import still end before the signal (the log never reached the mark),
that try interrupted nothing, and the test tries again on a new project. The imports that run to
their end run in this process (tests/cli_support.py)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import run_in_process
from import_support import generation_row, metric_row

ROOT = Path(__file__).resolve().parents[3]
ROWS = 3000


@pytest.fixture(scope="module")
def big_metric_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("kill") / "run.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for i in range(ROWS):
            out.write(json.dumps(metric_row(f"k{i:05d}")) + "\n")
    return path


def start_import(project: Path, data: Path, media: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "annotation", "import", "--project", str(project), str(data)]
    cmd += ["--media-root", str(media), "--no-prepare"]
    # Ctrl-C as a terminal delivers it: a shell that runs the tests in the background ignores
    # SIGINT, and an ignored signal is inherited (the import then ran to its end, exit 0)
    return subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


SLICE_S = 0.005  # how long the import runs between two looks at its log


def kill_when_the_log_holds(
    proc: subprocess.Popen, wal: Path, wal_bytes: int, sent: signal.Signals = signal.SIGKILL
) -> int:
    """Send `proc` the signal `sent` (SIGKILL) once `wal` holds `wal_bytes`; its exit code (-9
    when killed in time). The import runs in slices and is stopped (SIGSTOP) while its log is
    read, so it cannot end between the look and the signal: a watcher that merely polled ran too
    late on a busy machine (CI at load 9) and saw the import end first. What it wrote to stderr is
    kept in `proc.said`."""
    while True:
        os.kill(proc.pid, signal.SIGCONT)
        try:
            proc.wait(timeout=SLICE_S)
            break  # it ended by itself
        except subprocess.TimeoutExpired:
            pass
        os.kill(proc.pid, signal.SIGSTOP)
        _, status = os.waitpid(proc.pid, os.WUNTRACED)  # until it has stopped (or ended)
        if not os.WIFSTOPPED(status):
            proc.returncode = os.waitstatus_to_exitcode(status)
            break
        if wal.exists() and wal.stat().st_size >= wal_bytes:
            os.kill(proc.pid, sent)
            os.kill(proc.pid, signal.SIGCONT)  # a Ctrl-C is handled once it runs again
            break
    proc.wait()
    proc.said = proc.stderr.read().decode()
    proc.stderr.close()
    return proc.returncode


TRIES = 3


def interrupt_mid_write(
    tmp_path: Path,
    data: Path,
    media: Path,
    wal_bytes: int,
    sent: signal.Signals = signal.SIGKILL,
    prepare=lambda project: None,
) -> tuple[Path, int, str]:
    """Import `data` into a project `prepare(project)` makes, sending `sent` once the project's
    log holds `wal_bytes`: (the project, the import's exit code, what it wrote to stderr). An
    import that ended by itself (exit 0: the signal came after its last instruction) interrupted
    nothing, so it is tried again on a new project, up to TRIES times."""
    for attempt in range(TRIES):
        project = tmp_path / f"try-{attempt}" / "p"
        project.parent.mkdir()
        prepare(project)
        proc = start_import(project, data, media)
        code = kill_when_the_log_holds(proc, project / "project.db-wal", wal_bytes, sent)
        if code != 0:
            return project, code, proc.said
    pytest.fail(f"the import ended before the signal reached it, {TRIES} times")


def counts(project: Path) -> tuple[int, int]:
    """(responses, record rows) of the project; (0, 0) when it holds none yet (or is not there: an
    interrupted import into a new folder removes what it made)."""
    if not (project / "project.db").exists():
        return 0, 0
    with sqlite3.connect(project / "project.db") as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "responses" not in tables:
            return 0, 0
        return tuple(
            conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("responses", "records")
        )


def run_import(project: Path, data: Path, media: Path) -> None:
    """The same import, to its end, by `main` in this process (only the kill needs a process)."""
    done = run_in_process(
        "annotation", "import", "--project", project, data, "--media-root", media, "--no-prepare"
    )
    assert done.returncode == 0, done.stderr


def test_an_import_killed_mid_write_into_a_new_project_leaves_nothing_and_reimports_once(
    tmp_path, big_metric_file, import_media
):
    project, code, _ = interrupt_mid_write(tmp_path, big_metric_file, import_media, 256 * 1024)
    assert code == -signal.SIGKILL
    assert counts(project) == (0, 0)
    run_import(project, big_metric_file, import_media)
    assert counts(project) == (ROWS, ROWS)
    run_import(project, big_metric_file, import_media)
    assert counts(project) == (ROWS, ROWS)


def test_an_import_killed_mid_write_into_a_project_keeps_what_it_held(
    tmp_path, big_metric_file, import_media
):
    first = tmp_path / "first.jsonl"
    first.write_text(json.dumps(generation_row("earlier")) + "\n")

    def holding_one_response(project: Path) -> None:
        run_import(project, first, import_media)
        with sqlite3.connect(project / "project.db") as conn:  # an empty log: the import's writes grow it
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # the log is empty and only the import writes to it: its first frames are the transaction's
    project, code, _ = interrupt_mid_write(
        tmp_path, big_metric_file, import_media, 4096, prepare=holding_one_response
    )
    assert code == -signal.SIGKILL
    assert counts(project) == (1, 0)
    run_import(project, big_metric_file, import_media)
    assert counts(project) == (ROWS + 1, ROWS)


def test_an_import_interrupted_with_ctrl_c_says_nothing_was_imported_and_leaves_nothing(
    tmp_path, big_metric_file, import_media
):
    project, code, said = interrupt_mid_write(
        tmp_path, big_metric_file, import_media, 256 * 1024, signal.SIGINT
    )
    assert (code, said.strip()) == (130, "interrupted (Ctrl-C): nothing was imported")  # no traceback
    assert counts(project) == (0, 0)


def test_a_ctrl_c_while_the_import_reads_its_notes_leaves_nothing_imported(
    tmp_path, import_media, monkeypatch
):
    """The notes on records read otherwise (annotation.project._reading_notes) are read inside the
    import's transaction: an interrupt there rolls it back, as the message says. The interrupt is
    raised where a Ctrl-C would land (it landed after the commit before: the records stayed)."""
    import annotation.project

    project = tmp_path / "p"
    first = tmp_path / "first.jsonl"
    first.write_text(json.dumps(generation_row("earlier")) + "\n")
    run_import(project, first, import_media)
    more = tmp_path / "more.jsonl"
    more.write_text("".join(json.dumps(metric_row(f"m{i}")) + "\n" for i in range(3)))

    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(annotation.project, "_reading_notes", interrupted)
    done = run_in_process(
        "annotation", "import", "--project", project, more, "--media-root", import_media, "--no-prepare"
    )
    assert (done.returncode, done.stderr.strip()) == (130, "interrupted (Ctrl-C): nothing was imported")
    assert counts(project) == (1, 0)
