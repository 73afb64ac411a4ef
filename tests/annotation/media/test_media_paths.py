"""Media paths that cannot hurt (issue 12): a name the file system refuses, a NUL, a FIFO or a
device is a reason, not a traceback; the file a media row names is checked again on every read."""

from __future__ import annotations

import os

import pytest

from annotation.media.files import media_file, resolve_media


def test_a_name_too_long_for_the_file_system_is_refused_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match="cannot be opened: File name too long"):
        resolve_media(tmp_path, "v" * 5000)


def test_a_message_about_a_long_name_shows_it_shortened(tmp_path):
    with pytest.raises(ValueError) as refused:
        resolve_media(tmp_path, "v" * 5000)
    assert len(str(refused.value)) < 200


def test_a_name_with_a_nul_is_refused(tmp_path):
    with pytest.raises(ValueError, match="NUL"):
        resolve_media(tmp_path, "clip\0.mp4")


def test_a_name_starting_with_a_tilde_is_refused_as_a_home_path(tmp_path):
    with pytest.raises(ValueError, match="absolute"):
        resolve_media(tmp_path, "~/clip.mp4")


def test_a_fifo_is_refused_as_not_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "pipe.mp4")
    with pytest.raises(ValueError, match="not a regular file"):
        resolve_media(tmp_path, "pipe.mp4")


def test_a_symlink_to_a_device_leads_outside_the_root(tmp_path):
    (tmp_path / "zero.mp4").symlink_to("/dev/zero")
    with pytest.raises(ValueError, match="outside the media folder"):
        resolve_media(tmp_path, "zero.mp4")


def test_a_device_inside_the_root_is_refused_as_not_a_regular_file(tmp_path):
    with pytest.raises(ValueError, match="not a regular file"):
        resolve_media("/dev", "null")


def test_media_file_returns_the_file_inside_the_root(tmp_path):
    (tmp_path / "set").mkdir()
    (tmp_path / "set" / "a.mp4").write_bytes(b"x")
    assert media_file(tmp_path, "set/a.mp4") == tmp_path / "set" / "a.mp4"


def test_media_file_does_not_add_a_suffix(tmp_path):
    (tmp_path / "a.mp4").write_bytes(b"x")
    with pytest.raises(FileNotFoundError, match="no longer in the media folder"):
        media_file(tmp_path, "a")


def test_media_file_refuses_a_file_swapped_for_a_symlink_out_of_the_root(tmp_path):
    root = tmp_path / "media"
    root.mkdir()
    (tmp_path / "secret.mp4").write_bytes(b"x")
    (root / "a.mp4").symlink_to(tmp_path / "secret.mp4")
    with pytest.raises(ValueError, match="leads outside the media folder"):
        media_file(root, "a.mp4")


@pytest.mark.parametrize("stored", ["/etc/passwd", "../secret.mp4", "sub/../../x.mp4"])
def test_media_file_refuses_a_stored_path_that_is_absolute_or_climbs(tmp_path, stored):
    with pytest.raises(ValueError):
        media_file(tmp_path, stored)
