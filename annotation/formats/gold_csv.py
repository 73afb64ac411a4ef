"""The gold CSV: one row per gold value (`annotation gold --csv`, the Disputes download), written
atomically with text that would run as a spreadsheet formula shielded, and read back. The values
are `annotation.agreement.gold.GoldValue`s, read by their fields (formats stands below agreement)."""

from __future__ import annotations

import json
from pathlib import Path

from annotation.formats.atomic_file import write_text_atomically
from annotation.formats.spreadsheet_csv import csv_text, read_csv_rows

CSV_FIELDS = ("response_id", "sentence", "fact", "question", "value", "provenance")


def _cell(value) -> str:
    return "" if value is None else json.dumps(value, ensure_ascii=False)


def gold_csv_rows(values: list) -> list[dict[str, str]]:
    """One row per gold value: CSV_FIELDS then one column per annotator; values are JSON
    (true/false, fact lists), an empty cell is no value."""
    annotators = sorted({name for v in values for name in v.values})
    rows = []
    for v in values:
        row = {
            "response_id": v.response_id,
            "sentence": str(v.sentence),
            "fact": v.fact or "",
            "question": v.question,
            "value": _cell(v.value),
            "provenance": v.provenance,
        }
        row.update({name: _cell(v.values.get(name)) for name in annotators})
        rows.append(row)
    return rows


def write_gold_csv(values: list, path: Path | str) -> int:
    """Write `gold_csv_rows(values)` as UTF-8 CSV with a header, atomically (a failure leaves an
    existing file as it was), fact texts that would run as spreadsheet formulas shielded
    (`formats.spreadsheet_csv`); returns the row count."""
    rows = gold_csv_rows(values)
    names = sorted({name for v in values for name in v.values})
    write_text_atomically(path, csv_text(rows, [*CSV_FIELDS, *names]))
    return len(rows)


def read_gold_csv(path: Path | str) -> list[dict[str, str]]:
    """The rows of a gold CSV as written by `write_gold_csv` (cells as strings, as before shielding)."""
    return read_csv_rows(path)
