"""Small real disks for the tests of what a full or read-only disk does: a tmpfs of a given size
(root can mount one, as in CI here; elsewhere the test is skipped, saying why), and a filler."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def mounted_tmpfs(mount_point: Path, size: str) -> Iterator[Path]:
    """Mount a tmpfs of `size` (e.g. "2m", "64k") at `mount_point` for a fixture to yield; skips
    the test when mounting is refused. Unmounted lazily afterwards (a server may still hold it)."""
    mount_point.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount_point)], capture_output=True
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {made.stderr.decode().strip()}")
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], check=True)


def fill(disk: Path) -> None:
    """Write to `disk` until it has no room left. First every project file's write-ahead log on it
    is emptied: SQLite reuses a log's room after a checkpoint, so a write that fits in room the log
    already holds would succeed on a full disk, and whether it does depends on what ran before."""
    for wal in disk.rglob("*.db-wal"):
        with sqlite3.connect(wal.with_name(wal.name.removesuffix("-wal")), timeout=30) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
    handle = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(handle, b"x" * 512):
            pass
    except OSError:
        pass
    finally:
        os.close(handle)
