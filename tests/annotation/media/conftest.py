"""Fixtures shared by the media tests: tiny generated videos whose frames carry their own index
(tests/media_fixtures.py), made once per session."""

from __future__ import annotations

from pathlib import Path

import pytest
from media_fixtures import make_indexed_video

from annotation.media.clips import make_proxy
from annotation.media.files import file_sha256


@pytest.fixture(scope="session")
def media_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("media")


@pytest.fixture(scope="session")
def indexed_video(media_dir) -> Path:
    return make_indexed_video(media_dir / "indexed.mp4")


@pytest.fixture(scope="session")
def silent_video(media_dir) -> Path:
    return make_indexed_video(media_dir / "silent.mp4", audio=False)


@pytest.fixture(scope="session")
def indexed_video_hash(indexed_video) -> str:
    return file_sha256(indexed_video)


@pytest.fixture(scope="session")
def indexed_proxy(indexed_video, media_dir) -> Path:
    return make_proxy(indexed_video, media_dir / "proxies" / "indexed.mp4")
