"""Shared by the import and CLI contract tests (support code, not a test module): rows of every
input format, the two CLIs run in-process (no traceback may escape them), and a snapshot of
everything a project holds, to tell that a refused command changed nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from cli_support import run_in_process

CITED_TEXT = "A test pattern moves (visual, 0:02). A tone sounds (audio, 0:01-0:03). So A.\nAnswer: A"


def generation_row(rid: str | None = "r1", **changes) -> dict:
    row = {
        "id": rid,
        "video": "clip",
        "question": "What moves?",
        "options": ["A. a pattern", "B. a cat"],
        "answer": "A",
        "model_generation": CITED_TEXT,
    }
    row.update(changes)
    return {k: v for k, v in row.items() if v is not None}


def metric_row(rid: str | None = "m1", **changes) -> dict:
    row = generation_row(rid, **changes)
    row["evaluations"] = {
        "A test pattern moves (visual, 0:02).": {
            "verification_worthy": {"prediction": True, "prediction_raw": "yes"},
            "atomic_facts": [
                {
                    "fact": "- A pattern moves (visual, 0:02)",
                    "scores": {
                        "precision": 1.0,
                        "recall": 1.0,
                        "citation_judgments": {"(visual, 0:02)": True},
                    },
                }
            ],
        },
        "So A.": {"verification_worthy": {"prediction": False, "prediction_raw": "no"}},
    }
    return row


def record_row(rid: str = "base-1", source: str = "judge:x", verifiable: bool = True) -> dict:
    return {
        "response_id": rid,
        "source": source,
        "sentences": [{"text": "A test pattern moves (visual, 0:02).", "verifiable": verifiable}],
    }


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def run_cli(package: str, argv: tuple) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of one in-process run (tests/cli_support.py); no traceback may
    escape it."""
    done = run_in_process(package, *argv)
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout, done.stderr


def run_annotation(*argv) -> tuple[int, str, str]:
    return run_cli("annotation", argv)


def run_calibration(*argv) -> tuple[int, str, str]:
    return run_cli("calibration", argv)


def project_snapshot(directory: Path) -> dict | None:
    """Every row of every table, the schema version and the files of the project; None when
    the directory does not exist."""
    directory = Path(directory)
    if not directory.exists():
        return None
    files = sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if not p.name.endswith("-shm"))
    db = directory / "project.db"
    if not db.exists():
        return {"files": files}
    with sqlite3.connect(db) as conn:
        tables = [
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        ]
        rows = {t: sorted(map(repr, conn.execute(f'SELECT * FROM "{t}"'))) for t in tables}
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    files = [f for f in files if not f.endswith("-wal")]
    return {"files": files, "tables": rows, "version": version}
