"""Read the files researchers have: generation, metric and evaluation-record files (PROTOCOL §4–§5).

Every reader validates the whole file and collects every problem, each located by file, line
(JSONL) or entry index (JSON list) and field. JSON is read strictly (`strict_json`): NaN,
±Infinity, numbers beyond a double, duplicate keys, lone surrogates and deep nesting are problems. With problems and no `skip_invalid` it raises
`InputError` with all of them and returns nothing; with `skip_invalid` it returns the valid rows
in `items` and one `Problem` per skipped row in `skipped`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from annotation.formats.atomic_file import write_text_atomically
from annotation.formats.json_values import strict_dumps
from annotation.formats.metric_file import MetricEntry, metric_entries_from_rows, read_metric_file
from annotation.formats.record_schema import validate_record
from annotation.formats.rows import (
    BadLine,
    Found,
    ReadResult,
    collect_rows,
    effective_id,
    not_an_object,
    parse_rows,
    response_from_row,
    unique_ids,
)
from annotation.protocol.citations import shown
from annotation.protocol.errors import InputError, Problem
from annotation.protocol.records import EvaluationRecord

__all__ = [
    "FORMATS",
    "MetricEntry",
    "ReadResult",
    "detect_format",
    "load_rows",
    "read_any",
    "read_generation_file",
    "read_metric_file",
    "read_records_file",
    "validate_record",
    "write_records_jsonl",
]

FORMATS = ("generation", "metric", "records")


# --- rows -------------------------------------------------------------------------------------


def load_rows(path: Path | str) -> list[tuple[int, bool, object]]:
    """The rows of a JSON (a list, or one object) or JSONL file, told apart by content.

    Returns (line number 1-based | entry index 0-based, is_entry_index, parsed object) per row.
    Raises InputError for an unreadable or empty file, a file that is not UTF-8 (BOM tolerated),
    bad JSON (with the line for JSONL, line and column for JSON: every bad JSONL line is listed)
    and a JSON value that is neither a list nor an object. Row contents are not checked here.
    """
    rows = parse_rows(Path(path))
    bad = [obj.problem for _, _, obj in rows if isinstance(obj, BadLine)]
    if bad:
        raise InputError(bad)
    return rows


def _format_of_rows(path: Path, rows: list) -> str:
    objects = [obj for _, _, obj in rows if isinstance(obj, dict)]
    if any("evaluations" in obj for obj in objects):
        return "metric"
    if any("sentences" in obj for obj in objects):
        return "records"
    if any("model_generation" in obj or "original_full_generation" in obj for obj in objects):
        return "generation"
    # rows that are not (strict) JSON, or no objects: their problems say more than "cannot tell"
    bad = [
        obj.problem
        if isinstance(obj, BadLine)
        else Problem(str(path), line, None, not_an_object(obj), is_entry)
        for line, is_entry, obj in rows
        if not isinstance(obj, dict)
    ]
    if bad:
        raise InputError(bad)
    raise InputError(
        Problem(
            str(path),
            None,
            None,
            "cannot tell the format: no entry has 'model_generation' (generation file), "
            "'evaluations' (metric file) or 'sentences' (evaluation records)",
        )
    )


def detect_format(path: Path | str) -> str:
    """'generation' | 'metric' | 'records', by the fields the rows carry (any row with
    `evaluations` makes a metric file, since rows the judge pipeline failed on lack it).

    Raises InputError when the file cannot be read or no row has a telling field.
    """
    path = Path(path)
    return _format_of_rows(path, parse_rows(path))


# --- generation files ---------------------------------------------------------------------------


def _read_generation(path: Path, rows: list, skip_invalid: bool) -> ReadResult:
    duplicate = unique_ids("id")

    def check_row(index: int, row: object, where: str) -> tuple[object, Found]:
        response, found = response_from_row(row, f"{path.stem}-{index}", metric=False)
        if not any(name in (None, "id") for name, _ in found):  # the row has a usable id
            found += duplicate(effective_id(row, f"{path.stem}-{index}"), where)
        return (response if not found else None), found

    return collect_rows(path, rows, check_row, skip_invalid, response_of=lambda response: response)


def read_generation_file(path: Path | str, *, skip_invalid: bool = False) -> ReadResult:
    """A generation file → `ReadResult` of `Response`s (text = raw `model_generation`, think
    blocks and all). Required: `model_generation` (non-empty string) and `video` (non-empty
    string); `question` string, `options` list of strings, `answer` string or null when given;
    `id` (string or integer) → response_id, else '<file stem>-<0-based index>'. Duplicate ids are
    a problem. Every other field goes to `Response.extra`. Raises InputError per the module promise.
    """
    path = Path(path)
    return _read_generation(path, parse_rows(path), skip_invalid)


# --- evaluation records ---------------------------------------------------------------------------


def _read_records(path: Path, rows: list, skip_invalid: bool) -> ReadResult:
    duplicate = unique_ids("(response_id, source) pair")

    def check_row(index: int, row: object, where: str) -> tuple[object, Found]:
        found: Found = list(validate_record(row))
        if (
            isinstance(row, dict)
            and isinstance(row.get("response_id"), str)
            and isinstance(row.get("source"), str)
        ):
            found += duplicate(f"{row['response_id']}, {row['source']}", where)
        return (EvaluationRecord.from_dict(row) if not found else None), found

    return collect_rows(path, rows, check_row, skip_invalid)


def read_records_file(path: Path | str, *, skip_invalid: bool = False) -> ReadResult:
    """An evaluation-record file (JSONL, or a JSON list) → `ReadResult` of `EvaluationRecord`s.

    Each row must pass `validate_record`; a repeated (response_id, source) pair is a problem.
    Raises InputError per the module promise.
    """
    path = Path(path)
    return _read_records(path, parse_rows(path), skip_invalid)


def write_records_jsonl(records: Iterable[EvaluationRecord], path_or_file) -> int:
    """Write records as strict JSONL (UTF-8, one per line) to a path or an open text file;
    returns the count.

    Every record is validated and encoded first, so a bad one (a schema problem, NaN, a lone
    surrogate) raises ValueError naming its position and field before anything is written. A
    path is written atomically (a temporary file renamed over it): a failing export never
    touches the file that was there.
    """
    lines = []
    for position, record in enumerate(records):
        data = record.to_dict()
        found = validate_record(data)
        try:
            lines.append(strict_dumps(data) + "\n")
        except ValueError as exc:
            found = [*found, ("", str(exc))]
        if found:
            raise ValueError(
                f"record {position} ({shown(str(data.get('response_id')))}, {shown(str(data.get('source')))}): "
                + "; ".join(f"{name or 'record'}: {message}" for name, message in found)
            )
    if isinstance(path_or_file, (str, Path)):
        write_text_atomically(path_or_file, "".join(lines))
    else:
        path_or_file.write("".join(lines))
    return len(lines)


def read_any(
    path: Path | str, *, fmt: str = "auto", skip_invalid: bool = False, source: str | None = None
) -> tuple[str, ReadResult]:
    """Read a file of format `fmt` ('auto' detects it) → (format, ReadResult).

    `source` names the judge of a metric file (ignored for other formats). An unknown `fmt` is a
    ValueError; bad input raises InputError per the module promise.
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}' (expected auto, {', '.join(FORMATS)})")
    path = Path(path)
    rows = parse_rows(path)
    if fmt == "auto":
        fmt = _format_of_rows(path, rows)
    if fmt == "generation":
        return fmt, _read_generation(path, rows, skip_invalid)
    if fmt == "metric":
        return fmt, metric_entries_from_rows(path, rows, skip_invalid, source)
    return fmt, _read_records(path, rows, skip_invalid)
