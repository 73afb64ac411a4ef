"""`python -m annotation import` and `export` as issue 12 states them: all or nothing in one
transaction, no project left by a refused import, idempotent, id clashes located and skippable,
media paths relative and checked again on every read, strict and atomic exports."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from import_support import (
    generation_row,
    metric_row,
    project_snapshot,
    record_row,
    run_annotation,
    write_jsonl,
)

from annotation.project import media_source, prepare_media
from annotation.protocol.records import EvaluationRecord, Sentence
from annotation.store.project_store import ProjectStore


def imported(fresh_project: Path, media: Path, *files: Path, extra=()) -> tuple[int, str, str]:
    return run_annotation(
        "import", "--project", fresh_project, *files, "--media-root", media, "--no-prepare", *extra
    )


# --- all or nothing ---------------------------------------------------------------------------


def test_a_refused_import_into_a_new_directory_leaves_no_project(tmp_path, import_media):
    bad = write_jsonl(tmp_path / "g.jsonl", [generation_row("r1"), generation_row("r2", video="nope")])
    code, out, err = imported(tmp_path / "new" / "p", import_media, bad)
    assert (code, out) == (2, "")
    assert f"{bad}, line 2, field 'video'" in err
    assert not (tmp_path / "new").exists()


def test_a_refused_import_keeps_the_media_root_setting_and_writes_no_media_row(
    fresh_project, tmp_path, import_media
):
    other = tmp_path / "other-media"
    shutil.copytree(import_media, other)
    before = project_snapshot(fresh_project)
    bad = write_jsonl(tmp_path / "g.jsonl", [generation_row("r1", video="silent"), {"id": "r2"}])
    code, _, err = imported(fresh_project, import_media, bad)
    assert (code, f"{bad}, line 2, field 'model_generation'" in err) == (2, True)
    assert project_snapshot(fresh_project) == before
    # another media root is refused before anything (issue 23: it broke the media imported before)
    code, _, err = imported(fresh_project, other, bad)
    assert (code, "this project's media root is" in err) == (2, True)
    assert project_snapshot(fresh_project) == before


def test_an_accepted_import_keeps_the_projects_one_media_root(fresh_project, tmp_path, import_media):
    code, _, _ = imported(
        fresh_project, import_media, write_jsonl(tmp_path / "g.jsonl", [generation_row("r1")])
    )
    assert (code, ProjectStore.open(fresh_project).media_root) == (0, import_media)


def test_importing_the_same_files_twice_changes_nothing(fresh_project, tmp_path, import_media):
    files = [
        write_jsonl(tmp_path / "g.jsonl", [generation_row("r1")]),
        write_jsonl(tmp_path / "m.jsonl", [metric_row("m1")]),
        write_jsonl(tmp_path / "r.jsonl", [record_row("r1", "human:ann")]),
    ]
    assert imported(fresh_project, import_media, *files)[0] == 0
    before = project_snapshot(fresh_project)
    code, out, _ = imported(fresh_project, import_media, *files)
    assert (code, "imported 0 response(s), 0 record(s)" in out) == (0, True)
    assert project_snapshot(fresh_project) == before


def test_a_changed_record_is_appended_and_wins(fresh_project, tmp_path, import_media):
    imported(fresh_project, import_media, write_jsonl(tmp_path / "a.jsonl", [record_row(verifiable=False)]))
    [record] = ProjectStore.open(fresh_project).list_records(source="judge:x")
    assert record.sentences[0].verifiable is False


# --- id clashes ---------------------------------------------------------------------------------


def test_an_id_in_the_project_with_another_text_is_refused_at_its_line_and_field(
    fresh_project, tmp_path, import_media
):
    before = project_snapshot(fresh_project)
    rows = [generation_row("r1"), generation_row("base-1", model_generation="Another text.")]
    gen = write_jsonl(tmp_path / "g.jsonl", rows)
    code, _, err = imported(fresh_project, import_media, gen)
    assert (code, f"{gen}, line 2, field 'id': response 'base-1' is already in the project" in err) == (
        2,
        True,
    )
    assert project_snapshot(fresh_project) == before


def test_an_id_in_two_files_of_one_call_with_other_texts_is_refused_at_the_second(
    fresh_project, tmp_path, import_media
):
    first = write_jsonl(tmp_path / "a.jsonl", [generation_row("r1")])
    second = write_jsonl(
        tmp_path / "b.jsonl", [generation_row("r2"), generation_row("r1", model_generation="x")]
    )
    code, _, err = imported(fresh_project, import_media, first, second)
    assert code == 2
    assert f"{second}, line 2, field 'id': response 'r1' is also at {first}, line 1 with another text" in err


def test_skip_invalid_skips_and_lists_id_clashes(fresh_project, tmp_path, import_media):
    rows = [generation_row("r1"), generation_row("base-1", model_generation="Another text.")]
    gen = write_jsonl(tmp_path / "g.jsonl", rows)
    code, out, err = imported(fresh_project, import_media, gen, extra=["--skip-invalid"])
    assert (code, "imported 1 response(s)" in out, f"{gen}, line 2, field 'id'" in err) == (0, True, True)
    assert ProjectStore.open(fresh_project).response_ids() == ["base-1", "r1"]


def test_a_record_pair_in_two_files_with_other_content_is_a_clash(fresh_project, tmp_path, import_media):
    first = write_jsonl(tmp_path / "a.jsonl", [record_row()])
    second = write_jsonl(tmp_path / "b.jsonl", [record_row(verifiable=False)])
    code, _, err = imported(fresh_project, import_media, first, second)
    assert (code, f"{second}, line 1, field 'response_id'" in err) == (2, True)


def test_metric_files_without_ids_in_one_call_do_not_collide(fresh_project, tmp_path, import_media):
    first = write_jsonl(tmp_path / "run_a.jsonl", [metric_row(None)])
    second = write_jsonl(tmp_path / "run_b.jsonl", [metric_row(None)])
    assert imported(fresh_project, import_media, first, second)[0] == 0
    assert ProjectStore.open(fresh_project).response_ids() == ["base-1", "run_a-0", "run_b-0"]


def test_the_same_response_in_a_generation_and_a_metric_file_is_one_response(
    fresh_project, tmp_path, import_media
):
    gen = write_jsonl(tmp_path / "g.jsonl", [generation_row("m1")])
    metric = write_jsonl(tmp_path / "m.jsonl", [metric_row("m1")])
    assert imported(fresh_project, import_media, gen, metric)[0] == 0
    store = ProjectStore.open(fresh_project)
    assert (store.response_ids(), [r.response_id for r in store.list_records(source="judge:m")]) == (
        ["base-1", "m1"],
        ["m1"],
    )


# --- media ----------------------------------------------------------------------------------------


def test_media_paths_are_stored_relative_to_the_media_root_and_proxies_to_the_project(
    fresh_project, tmp_path, import_media
):
    store = ProjectStore.open(fresh_project)
    prepare_media(store, "clip", sound_view=False)
    path, proxy = store.database.connection.execute(
        "SELECT path, proxy_path FROM media WHERE name = 'clip'"
    ).fetchone()
    assert (path, proxy.startswith("cache/proxies/")) == ("clip.mp4", True)


def test_a_project_moved_elsewhere_keeps_its_proxy(fresh_project, tmp_path, import_media):
    prepare_media(ProjectStore.open(fresh_project), "clip", sound_view=False)
    moved = tmp_path / "elsewhere" / "moved"
    shutil.move(fresh_project, moved)
    media = ProjectStore.open(moved).media("clip")
    assert Path(media.proxy_path).is_file() and Path(media.proxy_path).is_relative_to(moved)


def test_a_media_file_swapped_for_a_symlink_out_of_the_root_is_refused_on_read(
    fresh_project, tmp_path, import_media
):
    media_root = tmp_path / "own-media"
    shutil.copytree(import_media, media_root)
    store = ProjectStore.open(fresh_project)
    store.set_media_root(media_root)
    outside = tmp_path / "secret.mp4"
    shutil.copy(import_media / "clip.mp4", outside)
    (media_root / "clip.mp4").unlink()
    os.symlink(outside, media_root / "clip.mp4")
    with pytest.raises(ValueError, match="leads outside the media folder"):
        media_source(store, store.media("clip"))


def test_a_media_file_gone_since_the_import_is_reported_as_gone(fresh_project, tmp_path, import_media):
    media_root = tmp_path / "own-media"
    shutil.copytree(import_media, media_root)
    store = ProjectStore.open(fresh_project)
    store.set_media_root(media_root)
    (media_root / "clip.mp4").unlink()
    with pytest.raises(FileNotFoundError, match="no longer in the media folder"):
        media_source(store, store.media("clip"))


@pytest.mark.parametrize("cited", ["audio, 0:02", "speech, 0:01-0:03", "Sound, 0:04"])
def test_an_audio_citation_of_media_without_sound_is_invalid(fresh_project, tmp_path, import_media, cited):
    text = f"A tone sounds ({cited}). So A.\nAnswer: A"
    gen = write_jsonl(tmp_path / "g.jsonl", [generation_row("r1", video="silent", model_generation=text)])
    assert imported(fresh_project, import_media, gen)[0] == 0
    [citation] = ProjectStore.open(fresh_project).response_sentences("r1")[0].citations
    assert (citation.valid, citation.reason) == (False, "the media has no audio track")


def test_a_visual_citation_of_sound_only_media_is_invalid(fresh_project, tmp_path, import_media):
    text = "A man waves (visual, 0:02). So A.\nAnswer: A"
    gen = write_jsonl(tmp_path / "g.jsonl", [generation_row("r1", video="tone.m4a", model_generation=text)])
    assert imported(fresh_project, import_media, gen)[0] == 0
    [citation] = ProjectStore.open(fresh_project).response_sentences("r1")[0].citations
    assert (citation.valid, citation.reason) == (False, "the media has no video track")


def test_a_video_name_too_long_for_the_file_system_is_a_located_problem(
    fresh_project, tmp_path, import_media
):
    gen = write_jsonl(tmp_path / "g.jsonl", [generation_row("r1", video="v" * 5000)])
    code, _, err = imported(fresh_project, import_media, gen)
    assert (code, f"{gen}, line 1, field 'video'" in err, "File name too long" in err) == (2, True, True)


# --- export ---------------------------------------------------------------------------------------


def test_an_export_that_fails_leaves_the_existing_out_file_untouched(fresh_project, tmp_path):
    store = ProjectStore.open(fresh_project)
    store.add_records([EvaluationRecord("base-1", "judge:bad", [Sentence("x \ud800")])])  # as a bug might
    out = tmp_path / "out.jsonl"
    out.write_text("kept\n")
    code, stdout, err = run_annotation("export", "--project", fresh_project, "--out", out)
    assert (code, stdout, "lone surrogate" in err, out.read_text()) == (2, "", True, "kept\n")


def test_an_export_writes_strict_json_lines(fresh_project, tmp_path):
    out = tmp_path / "out.jsonl"
    assert run_annotation("export", "--project", fresh_project, "--out", out, "--source", "judge")[0] == 0
    assert out.read_text().count("\n") == 1 and "NaN" not in out.read_text()
