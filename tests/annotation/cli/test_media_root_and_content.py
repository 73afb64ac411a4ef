"""Issue 23, finding 10: one media root per project (another one is refused with the reason,
the media imported before still resolve), and a media file changed after import is refused by
name instead of being used under the old content's hash."""

from __future__ import annotations

import os
import shutil

import pytest
from import_support import generation_row, write_jsonl

from annotation.cli.main import main as annotation_main
from annotation.project import media_source
from annotation.store.project_store import ProjectStore


@pytest.fixture
def project(tmp_path, import_media):
    media = tmp_path / "media"
    shutil.copytree(import_media, media)
    generation = write_jsonl(tmp_path / "g.jsonl", [generation_row("g-1")])
    argv = ["import", "--project", str(tmp_path / "p"), str(generation), "--media-root", str(media)]
    assert annotation_main([*argv, "--no-prepare"]) == 0
    return tmp_path / "p"


def test_a_second_import_with_another_media_root_is_refused_with_the_reason(
    project, tmp_path, import_media, capsys
):
    capsys.readouterr()
    other = tmp_path / "other-media"
    shutil.copytree(import_media, other)
    generation = write_jsonl(tmp_path / "g2.jsonl", [generation_row("g-2")])
    argv = ["import", "--project", str(project), str(generation), "--media-root", str(other), "--no-prepare"]
    assert annotation_main(argv) == 2
    err = capsys.readouterr().err
    assert "--media-root" in err and "this project's media root is" in err and "would break" in err
    store = ProjectStore.open(project)
    assert store.media_root.resolve() == (tmp_path / "media").resolve()
    assert media_source(store, store.media("clip")).exists()


def test_a_media_file_swapped_after_import_is_refused_by_name(project, tmp_path):
    store = ProjectStore.open(project)
    clip = media_source(store, store.media("clip"))
    shutil.copyfile(tmp_path / "media" / "silent.mp4", clip)  # same name, other content
    with pytest.raises(ValueError, match="media 'clip' has changed since it was imported"):
        media_source(store, store.media("clip"))


def test_a_touched_file_with_the_same_content_is_still_used(project):
    store = ProjectStore.open(project)
    clip = media_source(store, store.media("clip"))
    os.utime(clip, ns=(1_000_000_000, 1_000_000_000))
    assert media_source(store, store.media("clip")) == clip
    assert store.media("clip").info["mtime_ns"] == 1_000_000_000
