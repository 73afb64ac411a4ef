"""Issue 23, finding 11: every open checks the project file and says in one line what is wrong;
a read-only project serves read-only commands; a full disk is named as such, and a refused import
into a new directory leaves no project behind."""

from __future__ import annotations

import sqlite3
import subprocess

import pytest
from disk_support import mounted_tmpfs
from import_support import generation_row, write_jsonl
from media_fixtures import make_indexed_video

from annotation.cli.main import main as annotation_main
from annotation.store.database import DiskFullError, ProjectFileError
from annotation.store.project_store import DB_NAME, SCHEMA_VERSION, ProjectStore


@pytest.fixture
def project(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.set_setting("overlap", 2)
    store.close()
    return tmp_path / "p"


def refused(directory) -> str:
    with pytest.raises(ProjectFileError) as raised:
        ProjectStore.open(directory)
    message = str(raised.value)
    assert "\n" not in message
    return message


def test_an_empty_database_file_is_refused_not_made_into_a_new_project(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / DB_NAME).write_bytes(b"")
    assert "is empty (0 bytes)" in refused(tmp_path / "p")
    with pytest.raises(ProjectFileError):
        ProjectStore.open(tmp_path / "p", create=True)
    assert (tmp_path / "p" / DB_NAME).stat().st_size == 0


def test_a_file_that_is_not_sqlite_is_refused(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / DB_NAME).write_text("hello, I am a text file\n")
    assert "is not a SQLite database" in refused(tmp_path / "p")


def test_a_newer_schema_is_refused_in_one_line(project):
    with sqlite3.connect(project / DB_NAME) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    assert "newer than this tool" in refused(project)


def test_a_malformed_json_cell_is_named(project):
    with sqlite3.connect(project / DB_NAME) as conn:
        conn.execute("UPDATE meta SET value = '{not json' WHERE key = 'overlap'")
    assert "table meta, row key = 'overlap': column value is not valid JSON" in refused(project)


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        ("empty", "is empty (0 bytes)"),
        ("text", "is not a SQLite database"),
        ("newer", "newer than this tool"),
    ],
)
def test_the_cli_says_what_is_wrong_in_one_line_exit_2_and_keeps_the_old_export(
    project, tmp_path, capsys, damage, words
):
    out = tmp_path / "export.jsonl"
    out.write_text("the good export\n")
    db = project / DB_NAME
    if damage == "empty":
        db.write_bytes(b"")
    elif damage == "text":
        db.write_text("not a database")
    else:
        with sqlite3.connect(db) as conn:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    assert annotation_main(["export", "--project", str(project), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out.read_text() == "the good export\n"


# --- mounts (root can mount a tmpfs; elsewhere these are skipped) ----------------------------------


@pytest.fixture
def small_disk(tmp_path):
    # a new project with every declared owner's tables and its WAL fits (≈ 370 kB at peak, 10 owners)
    yield from mounted_tmpfs(tmp_path / "disk", "1m")


def test_a_read_only_project_opens_for_reading(small_disk, tmp_path, capsys):
    store = ProjectStore.open(small_disk / "p", create=True)
    store.set_setting("overlap", 3)
    store.close()
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    reopened = ProjectStore.open(small_disk / "p")
    assert reopened.database.read_only and reopened.get_setting("overlap") == 3
    out = tmp_path / "export.jsonl"
    assert annotation_main(["export", "--project", str(small_disk / "p"), "--out", str(out)]) == 0


def test_a_read_only_project_whose_log_holds_unsaved_changes_is_refused_saying_so(small_disk, tmp_path):
    writable = tmp_path / "p"
    store = ProjectStore.open(writable, create=True)
    held = sqlite3.connect(writable / DB_NAME)  # a second connection: the store's close cannot end the log
    held.execute("SELECT count(*) FROM sqlite_master").fetchall()
    store.set_setting("overlap", 3)
    store.close()
    (small_disk / "p").mkdir()
    for name in (DB_NAME, DB_NAME + "-wal"):
        (small_disk / "p" / name).write_bytes((writable / name).read_bytes())
    held.close()
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    with pytest.raises(ProjectFileError, match="write-ahead log .* open it once with write access"):
        ProjectStore.open(small_disk / "p")


def test_a_full_disk_is_named_and_the_failed_write_rolled_back(small_disk):
    store = ProjectStore.open(small_disk / "p", create=True)
    with pytest.raises(DiskFullError) as raised:
        for i in range(1000):
            store.set_setting(f"filler{i}", "x" * 4000)
    assert raised.value.filename == str(small_disk / "p" / DB_NAME)
    assert "the disk is full" in str(raised.value)
    assert store.get_setting("filler0") == "x" * 4000


def test_an_import_into_a_new_directory_that_fills_the_disk_leaves_no_project(small_disk, tmp_path, capsys):
    rows = [
        generation_row(f"r{i}", model_generation="A test pattern moves (visual, 0:02). " * 40)
        for i in range(400)
    ]
    generation = write_jsonl(tmp_path / "big.jsonl", rows)
    (tmp_path / "media").mkdir()
    make_indexed_video(tmp_path / "media" / "clip.mp4", duration_s=3.0)
    target = small_disk / "new"
    argv = ["import", "--project", str(target), str(generation), "--no-prepare"]
    code = annotation_main([*argv, "--media-root", str(tmp_path / "media")])
    err = capsys.readouterr().err
    assert code == 2 and "the disk is full" in err and "cannot rollback" not in err
    assert not target.exists()
