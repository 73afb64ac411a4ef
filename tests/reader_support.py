"""Input-file builders shared by the reader tests (support code, not a test module)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation.protocol.errors import InputError

DATA = Path(__file__).parent / "data"


def write_text(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def write_jsonl(tmp_path: Path, name: str, rows: list) -> Path:
    return write_text(tmp_path, name, "".join(json.dumps(row) + "\n" for row in rows))


def write_json(tmp_path: Path, name: str, value: object) -> Path:
    return write_text(tmp_path, name, json.dumps(value, indent=2))


def problems_raised(read, *args, **kwargs) -> list:
    with pytest.raises(InputError) as caught:
        read(*args, **kwargs)
    return caught.value.problems


def generation_row(**changes) -> dict:
    row = {
        "id": "r1",
        "video": "v.mp4",
        "question": "Q?",
        "options": ["A. x", "B. y"],
        "answer": "B",
        "model_generation": "A man waves (visual, 0:03).\nAnswer: B",
    }
    row.update(changes)
    return {k: v for k, v in row.items() if v is not ...}


def metric_row(evaluations: dict, **changes) -> dict:
    row = generation_row(**changes)
    row["evaluations"] = evaluations
    return row


def judged_fact(fact: str, judgments: dict, precision=1.0, recall=1.0) -> dict:
    return {
        "fact": fact,
        "scores": {"precision": precision, "recall": recall, "citation_judgments": judgments},
    }


def worthy(prediction, facts=None) -> dict:
    data = {"verification_worthy": {"prediction": prediction, "prediction_raw": "x"}}
    if facts is not None:
        data["atomic_facts"] = facts
    return data


def record_dict(**changes) -> dict:
    record = {
        "response_id": "ws-0042",
        "source": "human:alice",
        "sentences": [
            {
                "text": "The man points while speaking (visual, 0:12; audio, 0:12-0:14).",
                "verifiable": True,
                "citations": [
                    {"modality": "visual", "start": 12.0, "end": 12.0},
                    {"modality": "audio", "start": 12.0, "end": 14.0},
                ],
                "facts": [
                    {
                        "text": "The man speaks.",
                        "citations": [0, 1],
                        "entailment": {"all": True, "alone": [False, True], "without": [True, False]},
                    }
                ],
            }
        ],
    }
    record.update(changes)
    return record
