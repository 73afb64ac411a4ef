"""Fixtures shared by the judge tests: a generated clip, a two-response project on it
(tests/judge_server.py's RESPONSES) and a scripted OpenAI/Gemini-compatible server on 127.0.0.1."""

from __future__ import annotations

import pytest
from judge_server import JudgeServer, make_project, make_video


@pytest.fixture(scope="module")
def judge_clip(tmp_path_factory):
    return make_video(tmp_path_factory.mktemp("media") / "clip.mp4")


@pytest.fixture
def judge_project(tmp_path, judge_clip):
    return make_project(tmp_path / "project", judge_clip)


@pytest.fixture
def judge_endpoint():
    with JudgeServer() as running:
        yield running
