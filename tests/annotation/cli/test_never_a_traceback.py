"""Never a traceback (issue 12): arbitrary bytes and arbitrary JSON values, as files of every
kind, given to `annotation import` and `calibration score` end in exit 0 or exit 2 — never an
exception — and a refusal names the file on stderr and leaves the project as it was."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from import_support import (
    generation_row,
    metric_row,
    project_snapshot,
    record_row,
    run_annotation,
    run_calibration,
)

KEYS = ["id", "video", "model_generation", "question", "options", "answer", "evaluations", "sentences"]
KEYS += ["response_id", "source", "citations", "facts", "text", "verifiable", "entailment", "all", "alone"]
KEYS += ["verification_worthy", "prediction", "atomic_facts", "fact", "scores", "citation_judgments"]
KEYS += ["precision", "recall", "response_score", "modality", "start", "end", "valid", "raw", "reason"]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and infinities included: json.dumps writes them
    st.text(max_size=20),
    st.sampled_from(["clip", "silent", "../clip", "/etc/passwd", "base-1", "human:ann", "judge:j", "gold"]),
    st.sampled_from(["A man waves (visual, 0:01).", "(audio, 0:02-0:03)", "\ud800", "0:05", "visual"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=6)), inner, max_size=6),
    ),
    max_leaves=30,
)
# rows close to valid ones, with one field replaced by any value: they reach the deeper checks
near_rows = st.builds(
    lambda base, key, value: {**base, key: value},
    st.sampled_from([generation_row("r1"), metric_row("m1"), record_row()]),
    st.sampled_from(KEYS),
    json_values,
)
SETTINGS = settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])


def as_file_text(values: list, as_list: bool) -> bytes:
    text = json.dumps(values) if as_list else "\n".join(json.dumps(v) for v in values)
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate makes the file not UTF-8


def imports_or_refuses(base_project: Path, media: Path, data: bytes, name: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "project"
        shutil.copytree(base_project, project)
        path = Path(folder) / name
        path.write_bytes(data)
        before = project_snapshot(project)
        code, out, err = run_annotation(
            "import", "--project", project, path, "--media-root", media, "--no-prepare"
        )
        assert code in (0, 2), err
        event(f"import exit {code}")
        if code == 2:
            assert out == "" and str(path) in err
            assert project_snapshot(project) == before


def scores_or_refuses(data: bytes, name: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        code, out, err = run_calibration("score", path, "--json")
        assert code in (0, 2), err
        event(f"score exit {code}")
        if code == 2:
            assert out == "" and str(path) in err


@SETTINGS
@given(st.binary(max_size=400), st.sampled_from(["f.json", "f.jsonl"]))
def test_import_takes_any_bytes(base_project, import_media, data, name):
    imports_or_refuses(base_project, import_media, data, name)


@SETTINGS
@given(st.lists(st.one_of(json_values, near_rows), min_size=1, max_size=3), st.booleans())
def test_import_takes_any_json_values(base_project, import_media, values, as_list):
    imports_or_refuses(
        base_project, import_media, as_file_text(values, as_list), "f.json" if as_list else "f.jsonl"
    )


@SETTINGS
@given(st.binary(max_size=400), st.sampled_from(["f.json", "f.jsonl"]))
def test_score_takes_any_bytes(data, name):
    scores_or_refuses(data, name)


@SETTINGS
@given(st.lists(st.one_of(json_values, near_rows), min_size=1, max_size=3), st.booleans())
def test_score_takes_any_json_values(values, as_list):
    scores_or_refuses(as_file_text(values, as_list), "f.json" if as_list else "f.jsonl")
