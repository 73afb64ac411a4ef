"""CSV that people open in a spreadsheet: the gold labels, the model scores.

Fact texts are typed by annotators and response ids and model names come from imported files, so a
cell may begin like a formula (`=HYPERLINK(…)`, `+1`, `-2+3`, `@SUM(…)`): a spreadsheet opening the
file would run it instead of showing the text (CSV injection). Such a text cell is written with a
leading `'`, which spreadsheets show and never evaluate; a number (`-0.25`) stays a number. A cell
that already starts with `'` before one of those characters gets one more, so `read_csv_rows` gives
back exactly what was written.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _shielded(text: str) -> bool:
    """Whether the text needs the leading quote: it would start a formula, or it is a quoted one."""
    bare = text.lstrip(QUOTE)
    return bare.startswith(FORMULA_STARTS) and not (bare == text and _is_number(text))


def spreadsheet_cell(value):
    """The cell as written: a text that a spreadsheet would run as a formula gains a leading `'`
    (see module doc); anything else is unchanged (None is written as an empty cell)."""
    if isinstance(value, str) and _shielded(value):
        return QUOTE + value
    return value


def cell_as_written(text: str) -> str:
    """The inverse of `spreadsheet_cell` for a cell read back from the file."""
    return text[1:] if text.startswith(QUOTE) and _shielded(text[1:]) else text


def csv_text(rows: list[dict], fieldnames: list[str] | None = None) -> str:
    """The rows as CSV with a header (`fieldnames`, else the first row's keys); empty cells for
    None; formula-like text shielded (module doc)."""
    out = io.StringIO(newline="")
    names = fieldnames if fieldnames is not None else list(rows[0]) if rows else []
    if names:
        writer = csv.DictWriter(out, fieldnames=names)
        writer.writeheader()
        writer.writerows({key: spreadsheet_cell(value) for key, value in row.items()} for row in rows)
    return out.getvalue()


def read_csv_rows(path: Path | str) -> list[dict[str, str]]:
    """The rows of a file `csv_text` wrote, each cell as it was before shielding."""
    with open(path, encoding="utf-8", newline="") as handle:
        return [{key: cell_as_written(value) for key, value in row.items()} for row in csv.DictReader(handle)]
