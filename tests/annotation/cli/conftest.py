"""Fixtures of the CLI contract tests: generated media (a clip with sound, one without, one sound
only) and a small base project imported once, copied fresh for each test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from import_support import generation_row, record_row, write_jsonl
from media_fixtures import make_indexed_video, make_tone

from annotation.cli.main import main as annotation_main


@pytest.fixture(scope="session")
def import_media(tmp_path_factory) -> Path:
    """clip.mp4 (video and sound, 6 s), silent.mp4 (no sound), tone.m4a (sound only)."""
    root = tmp_path_factory.mktemp("import-media")
    make_indexed_video(root / "clip.mp4", duration_s=6.0)
    make_indexed_video(root / "silent.mp4", duration_s=6.0, audio=False)
    make_tone(root / "tone.m4a", hz=440, duration_s=6)
    return root


@pytest.fixture(scope="module")
def base_project(tmp_path_factory, import_media) -> Path:
    """A project with response base-1 (clip.mp4, imported from base.jsonl) and a judge record."""
    folder = tmp_path_factory.mktemp("base")
    generation = write_jsonl(folder / "base.jsonl", [generation_row("base-1")])
    records = write_jsonl(folder / "judge.jsonl", [record_row()])
    project = folder / "project"
    argv = ["import", "--project", str(project), str(generation), str(records)]
    assert annotation_main([*argv, "--media-root", str(import_media), "--no-prepare"]) == 0
    return project


@pytest.fixture
def fresh_project(base_project, tmp_path) -> Path:
    """A fresh copy of the base project for one test."""
    copy = tmp_path / "project"
    shutil.copytree(base_project, copy)
    return copy
