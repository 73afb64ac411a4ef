"""`python -m annotation import / export` and the issue's end-to-end chain: the commands by the same
`main` in this process, the chain and one exit code in real subprocesses (tests/cli_support.py)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import run_in_process, run_process
from media_fixtures import make_indexed_video, run_ffmpeg

from annotation.store.project_store import ProjectStore


@pytest.fixture(scope="module")
def media_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("media")
    make_indexed_video(root / "clip.mp4", duration_s=6.0)
    return root


def row(rid, video="clip", text="A test pattern moves (visual, 0:02). So A. Answer: A"):
    return {
        "id": rid,
        "video": video,
        "question": "What moves?",
        "options": ["A. a pattern", "B. a cat"],
        "answer": "A",
        "model_generation": text,
    }


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def import_files(project: Path, *args) -> subprocess.CompletedProcess:
    """`annotation import --project PROJECT ARGS…`, by `main` in this process."""
    return run_in_process("annotation", "import", "--project", *map(str, (project, *args)))


def test_rows_without_an_id_are_named_by_their_place_and_a_note_says_so(tmp_path, media_root):
    unnamed = {k: v for k, v in row(None).items() if k != "id"}
    gen = write_jsonl(tmp_path / "gen.jsonl", [row("r1"), unnamed, unnamed | {"id": None}])
    result = import_files(tmp_path / "p", gen, "--media-root", media_root, "--no-prepare")
    assert result.returncode == 0, result.stderr
    assert ProjectStore.open(tmp_path / "p").response_ids() == ["r1", "gen-1", "gen-2"]
    assert (
        f"note: {gen}: 2 row(s) carry no 'id' and are named by their place in the file (gen-1, gen-2): "
        "the same rows imported from a file of another name or order would be other responses"
    ) in result.stderr.splitlines()


def test_import_stores_responses_media_and_split_sentences(tmp_path, media_root):
    gen = write_jsonl(
        tmp_path / "gen.jsonl", [row("r1"), row("r2", text="It beeps (audio, 0:09). Answer: B")]
    )
    result = import_files(tmp_path / "p", gen, "--media-root", media_root, "--no-prepare")
    assert result.returncode == 0, result.stderr
    store = ProjectStore.open(tmp_path / "p")
    assert store.response_ids() == ["r1", "r2"]
    assert store.media("clip").duration_s == pytest.approx(6.0, abs=0.1)
    [first, _] = store.response_sentences("r1")
    assert first.text == "A test pattern moves (visual, 0:02)." and first.citations[0].valid
    [beyond] = store.response_sentences("r2")
    assert beyond.citations[0].valid is False and "duration" in beyond.citations[0].reason


def test_import_with_an_invalid_row_imports_nothing_and_names_line_and_field(tmp_path, media_root):
    gen = write_jsonl(tmp_path / "gen.jsonl", [row("r1"), {**row("r2"), "model_generation": 7}])
    result = import_files(tmp_path / "p", gen, "--media-root", media_root, "--no-prepare")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "line 2" in result.stderr and "model_generation" in result.stderr
    assert not (tmp_path / "p").exists()  # a refused import into a new directory leaves no project


def test_skip_invalid_imports_the_good_rows_and_lists_the_skipped(tmp_path, media_root):
    gen = write_jsonl(tmp_path / "gen.jsonl", [row("r1"), row("r2", video="missing")])
    result = import_files(tmp_path / "p", gen, "--media-root", media_root, "--no-prepare", "--skip-invalid")
    assert result.returncode == 0, result.stderr
    assert "line 2" in result.stderr and "video" in result.stderr
    assert ProjectStore.open(tmp_path / "p").response_ids() == ["r1"]


@pytest.mark.parametrize("video", ["../clip", "/etc/passwd"])
def test_a_video_outside_the_media_root_is_refused(tmp_path, media_root, video):
    gen = write_jsonl(tmp_path / "gen.jsonl", [row("r1", video=video)])
    result = import_files(tmp_path / "p", gen, "--media-root", media_root, "--no-prepare")
    assert result.returncode == 2 and result.stdout == ""
    assert "line 1" in result.stderr and "'video'" in result.stderr


def test_records_for_an_unknown_response_are_refused(tmp_path, media_root):
    records = write_jsonl(tmp_path / "r.jsonl", [{"response_id": "nope", "source": "gold", "sentences": []}])
    result = import_files(tmp_path / "p", records, "--no-prepare")
    assert result.returncode == 2
    assert "line 1" in result.stderr and "response_id" in result.stderr


def test_a_bad_row_and_a_record_for_an_unknown_response_are_said_at_once(tmp_path, media_root):
    # CLI walk: "unknown response" came only once the file's other errors were fixed
    records = write_jsonl(
        tmp_path / "r.jsonl",
        [{"response_id": "r1", "source": "gold"}, {"response_id": "nope", "source": "gold", "sentences": []}],
    )
    result = import_files(tmp_path / "p", records, "--no-prepare")
    assert result.returncode == 2
    assert "line 1, field 'sentences'" in result.stderr and "line 2, field 'response_id'" in result.stderr


def test_import_prepares_the_annotation_proxy_unless_told_not_to(tmp_path, media_root):
    gen = write_jsonl(tmp_path / "gen.jsonl", [row("r1")])
    result = import_files(tmp_path / "p", gen, "--media-root", media_root)
    assert result.returncode == 0, result.stderr
    proxy = ProjectStore.open(tmp_path / "p").media("clip").proxy_path
    assert proxy and Path(proxy).exists()


def test_importing_again_prepares_the_media_an_earlier_import_left_unprepared(tmp_path, media_root):
    # an import interrupted while preparing (or run with --no-prepare): the next one finishes the media
    gen = write_jsonl(tmp_path / "gen.jsonl", [row("r1")])
    assert import_files(tmp_path / "p", gen, "--media-root", media_root, "--no-prepare").returncode == 0
    assert ProjectStore.open(tmp_path / "p").media("clip").proxy_path is None
    again = import_files(tmp_path / "p", gen, "--media-root", media_root)
    assert again.returncode == 0 and "preparing clip" in again.stderr
    proxy = ProjectStore.open(tmp_path / "p").media("clip").proxy_path
    assert proxy and Path(proxy).exists()


def sentence(text, citations=()):
    return {"text": text, "verifiable": True, "citations": list(citations), "facts": []}


def test_records_that_read_their_response_otherwise_are_imported_and_named_in_a_note(tmp_path, media_root):
    # CLI walk: a record of another split, or citing past the video's end as valid, imported silently
    gen = write_jsonl(tmp_path / "gen.jsonl", [row("r1"), row("r2")])
    past_the_end = {"modality": "visual", "start": 62.0, "end": 62.0}
    records = write_jsonl(
        tmp_path / "humans.jsonl",
        [
            {"response_id": "r1", "source": "human:dave", "sentences": [sentence("A cat sleeps.")]},
            {
                "response_id": "r2",
                "source": "human:dave",
                "sentences": [
                    sentence("A test pattern moves (visual, 0:02).", [past_the_end]),
                    sentence("So A."),
                ],
            },
            {
                "response_id": "r2",
                "source": "human:erin",
                "sentences": [
                    sentence(
                        "A test pattern moves (visual, 0:02).",
                        [{"modality": "visual", "start": 2.0, "end": 2.0}],
                    ),
                    sentence("So A."),
                ],
            },
        ],
    )
    result = import_files(tmp_path / "p", gen, records, "--no-prepare", "--media-root", media_root)
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert notes.pop(0).startswith("note: 1 new response(s) have the same text and video")  # r2 = r1
    assert notes == [
        f"note: 1 record(s) carry another sentence split than their response's: each is scored on its own "
        f"sentences and left out of gold and agreement: r1 (human:dave, {records})",
        f"note: 1 record(s) give other citations than their response's sentences hold (as the tool reads "
        f"them from the text): each is scored on its own: r2 (human:dave, {records})",
    ]  # erin reads r2 as the tool does: no note


def test_a_truncated_video_whose_header_states_its_whole_length_is_named_in_a_note(tmp_path):
    # CLI walk: half the bytes of a faststart mp4 imported as 120 s; its proxy held 58.8 s
    whole = tmp_path / "whole.mp4"
    run_ffmpeg(
        "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=20", "-c:v", "libx264", "-preset", "ultrafast",
        "-pix_fmt", "yuv420p", "-movflags", "+faststart", str(whole),
    )  # fmt: skip
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "half.mp4").write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    gen = write_jsonl(
        tmp_path / "gen.jsonl", [row("r1", video="half.mp4", text="It moves (visual, 0:15). Answer: A")]
    )
    result = import_files(tmp_path / "p", gen, "--media-root", tmp_path / "media")
    assert result.returncode == 0, result.stderr
    [note] = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert note.startswith("note: half.mp4: its header says 20.0 s, but only ") and "will not play" in note


def test_missing_input_file_is_exit_2(tmp_path):
    result = run_process("annotation", "import", "--project", tmp_path / "p", tmp_path / "nope.jsonl")
    assert result.returncode == 2 and result.stdout == "" and "nope.jsonl" in result.stderr


def test_demo_export_score_yields_gold_three_humans_and_four_judges(tmp_path, demo_build):
    # The demo over a copy of the run's build (seed 0) is that demo, returned unchanged: building it
    # again here cost ≈ 8 CPU s; building is tested where it is the subject (tests/annotation/demo/).
    shutil.copytree(demo_build, tmp_path / "demo")
    assert run_process("annotation", "demo", "--project", str(tmp_path / "demo")).returncode == 0
    out = tmp_path / "all.jsonl"
    exported = run_process(
        "annotation", "export", "--project", str(tmp_path / "demo"), "--out", str(out), "--source", "all"
    )
    assert exported.returncode == 0, exported.stderr
    scored = run_process("calibration", "score", str(out), "--json", "--precision", "individual")
    assert scored.returncode == 0, scored.stderr
    sources = {json.loads(line)["source"] for line in scored.stdout.splitlines()}
    humans = {s for s in sources if s.startswith("human:")}
    judges = {s for s in sources if s.startswith("judge:")}
    assert "gold" in sources
    assert humans == {"human:alice", "human:bob", "human:carol"}
    assert len(judges) >= 4


def test_imported_gold_records_of_responses_annotators_labelled_are_named_as_not_used(tmp_path, media_root):
    # QA: an `export --source all` imported elsewhere lost every ruling, with no word said
    gen = write_jsonl(
        tmp_path / "gen.jsonl", [row("r1", text="A cat moves (visual, 0:02). Answer: A"), row("r2")]
    )
    seen = [{"modality": "visual", "start": 2.0, "end": 2.0}]
    cat, pattern = (
        sentence("A cat moves (visual, 0:02).", seen),
        sentence("A test pattern moves (visual, 0:02).", seen),
    )
    records = write_jsonl(
        tmp_path / "all.jsonl",
        [
            {"response_id": "r1", "source": "human:dave", "sentences": [cat]},
            {"response_id": "r1", "source": "gold", "sentences": [cat]},  # dave labelled r1: not used
            {"response_id": "r2", "source": "gold", "sentences": [pattern]},  # nobody labelled r2: used
        ],
    )
    result = import_files(tmp_path / "p", gen, records, "--no-prepare", "--media-root", media_root)
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if "gold record(s)" in line]
    assert notes == [
        "note: 1 gold record(s) are of responses annotators labelled here (human:* records or labels): "
        "their gold is derived from those labels and this project's rulings, which no export carries, so "
        "these gold records are not used: r1. To keep an adjudicated gold as it was, import the gold "
        "records alone (export --source gold)"
    ]
