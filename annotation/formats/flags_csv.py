"""The flags CSV: one row per annotator's flag (`annotation flags --csv`), written atomically with
text that would run as a spreadsheet formula shielded. The flags are
`annotation.work.flags.Flag`s, read by their fields (formats stands below work)."""

from __future__ import annotations

from pathlib import Path

from annotation.formats.atomic_file import write_text_atomically
from annotation.formats.spreadsheet_csv import csv_text

CSV_FIELDS = (
    "event_id", "at", "who", "response_id", "unit", "sentence", "text", "answered_at", "answered_by", "answer",
)  # fmt: skip


def flags_csv_rows(flags: list) -> list[dict]:
    """One row per flag, in the order given: `unit` as the event log writes it ('response',
    's2', …) and `sentence` its index counted from 0 as in the gold CSV (empty for the whole
    response); `at` as stored (ISO 8601, UTC); the answer in force (`answered_at`, `answered_by`,
    `answer`), its three cells empty while the flag is open."""
    return [
        {
            "event_id": flag.event_id,
            "at": flag.at,
            "who": flag.who,
            "response_id": flag.response_id,
            "unit": str(flag.unit),
            "sentence": flag.sentence,
            "text": flag.text,
            "answered_at": flag.answer.at if flag.answer else "",
            "answered_by": flag.answer.who if flag.answer else "",
            "answer": flag.answer.text if flag.answer else "",
        }
        for flag in flags
    ]


def write_flags_csv(flags: list, path: Path | str) -> int:
    """Write `flags_csv_rows(flags)` as UTF-8 CSV with a header, atomically (a failure leaves an
    existing file as it was; ValueError for text that cannot be written as UTF-8); returns the
    row count."""
    rows = flags_csv_rows(flags)
    write_text_atomically(path, csv_text(rows, list(CSV_FIELDS)))
    return len(rows)
