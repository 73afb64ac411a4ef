"""`python -m annotation import --model NAME FILE`: a generation file per model, on a real project,
by the same `main` that `python -m annotation` calls, in this process (tests/cli_support.py)."""

import json
import subprocess
from pathlib import Path

import pytest
from cli_support import run_in_process
from media_fixtures import make_indexed_video

from annotation.store.project_store import DB_NAME, ProjectStore


@pytest.fixture(scope="module")
def media_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("media")
    make_indexed_video(root / "clip.mp4", duration_s=6.0)
    return root


def generation_file(path: Path, text: str, **extra) -> Path:
    rows = [
        {"id": rid, "video": "clip", "question": "What moves?", "options": ["A. a", "B. b"], "answer": "A"}
        | {"model_generation": f"{text} {rid} (visual, 0:02). Answer: A"}
        | extra
        for rid in ("q1", "q2")
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def import_file(project: Path, media_root: Path, path: Path, *flags: str) -> subprocess.CompletedProcess:
    return run_in_process(
        "annotation",
        "import",
        "--project",
        str(project),
        str(path),
        "--media-root",
        str(media_root),
        "--no-prepare",
        *flags,
    )


def test_two_models_answering_the_same_rows_import_side_by_side(tmp_path, media_root):
    first = import_file(
        tmp_path / "p", media_root, generation_file(tmp_path / "a.jsonl", "A sees"), "--model", "a"
    )
    second = import_file(
        tmp_path / "p", media_root, generation_file(tmp_path / "b.jsonl", "B sees"), "--model", "b"
    )
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert ProjectStore.open(tmp_path / "p").response_models() == [
        ("a/q1", "a"),
        ("a/q2", "a"),
        ("b/q1", "b"),
        ("b/q2", "b"),
    ]


def test_a_row_naming_another_model_than_the_option_imports_nothing(tmp_path, media_root):
    path = generation_file(tmp_path / "g.jsonl", "It sees", model="c")
    result = import_file(tmp_path / "p", media_root, path, "--model", "d")
    assert result.returncode == 2 and result.stdout == ""
    assert "line 1" in result.stderr and "'model'" in result.stderr and "'c'" in result.stderr
    project = tmp_path / "p"
    assert not (project / DB_NAME).exists() or ProjectStore.open(project).response_ids() == []


def test_a_blank_model_option_is_refused(tmp_path, media_root):
    result = import_file(
        tmp_path / "p", media_root, generation_file(tmp_path / "g.jsonl", "X"), "--model", " "
    )
    assert result.returncode == 2 and "--model" in result.stderr


def test_a_file_imported_again_with_a_model_is_imported_and_its_twins_are_named(tmp_path, media_root):
    path = generation_file(tmp_path / "g.jsonl", "It sees")
    assert import_file(tmp_path / "p", media_root, path).returncode == 0  # the model forgotten
    again = import_file(tmp_path / "p", media_root, path, "--model", "qwen")
    assert again.returncode == 0, again.stderr
    assert (
        "2 new response(s) have the same text and video as a response already imported under " in again.stderr
    )
    assert "(qwen/q1 = q1, qwen/q2 = q2)" in again.stderr and "annotated and counted twice" in again.stderr
    assert len(ProjectStore.open(tmp_path / "p").response_ids()) == 4  # two models may write the same words


def test_an_import_that_would_give_a_response_a_model_is_refused_and_says_so(tmp_path, media_root):
    rows = [{"id": "a/q1", "video": "clip", "model_generation": "It sees q1 (visual, 0:02). Answer: A"}]
    (tmp_path / "ids.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert import_file(tmp_path / "p", media_root, tmp_path / "ids.jsonl").returncode == 0
    rows = [{"id": "q1", "video": "clip", "model_generation": "It sees q1 (visual, 0:02). Answer: A"}]
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = import_file(tmp_path / "p", media_root, tmp_path / "q.jsonl", "--model", "a")
    assert result.returncode == 2 and "line 1" in result.stderr and "'id'" in result.stderr
    assert "already in the project with no model, and this row gives it model 'a'" in result.stderr
    assert ProjectStore.open(tmp_path / "p").response_models() == [("a/q1", None)]


def test_the_same_file_imported_twice_changes_nothing_and_names_no_twins(tmp_path, media_root):
    path = generation_file(tmp_path / "g.jsonl", "It sees", model="m")
    assert import_file(tmp_path / "p", media_root, path).returncode == 0
    again = import_file(tmp_path / "p", media_root, path)
    assert again.returncode == 0 and "same text and video" not in again.stdout + again.stderr
    assert len(ProjectStore.open(tmp_path / "p").response_ids()) == 2
