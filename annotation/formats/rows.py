"""Plumbing shared by the file readers: file → rows, per-row checks → `ReadResult`, field helpers.

Callers outside the readers use `annotation.formats.readers`; this module exists so that
`readers`, `metric_file` and `record_schema` share one copy of it without importing each other.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from annotation.formats import strict_json
from annotation.protocol.errors import InputError, Problem, place_in_file
from annotation.protocol.ids import model_response_id
from annotation.protocol.records import Response

_RESPONSE_FIELDS = ("id", "model_generation", "video", "question", "options", "answer", "model")

Found = list[tuple[str | None, str]]  # (field path, message) pairs for one row


@dataclass
class ReadResult:
    """`items` in file order; `skipped` holds one Problem per row left out under skip_invalid;
    `locations[i]` is where `items[i]` came from: (line 1-based | entry index 0-based, is_entry_index).
    """

    items: list = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    locations: list[tuple[int, bool]] = field(default_factory=list)
    # the response ids given to kept rows without an `id` (`<file stem>-<index>`)
    invented_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class BadLine:
    """A JSONL line that is not JSON; kept in place so row indices stay stable."""

    problem: Problem


def kind_of(value: object) -> str:
    """How a JSON value reads in a message: 'null', 'a boolean', 'a number', 'a string', …"""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return {str: "a string", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def not_an_object(row: object) -> str:
    """The message for a row (a JSONL line or a list entry) that is not a JSON object."""
    return f"expected an object, got {kind_of(row)}"


def is_number(value: object) -> bool:
    """A finite int or float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_json(line: str) -> bool:
    try:
        strict_json.decode(line)
    except strict_json.StrictJSONError:
        return False
    return True


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(strict_json.decode(line), dict)
    except strict_json.StrictJSONError:
        return False


def read_input_text(path: Path) -> str:
    """The text of an input file (UTF-8, a BOM tolerated); an unreadable or non-UTF-8 file
    raises InputError naming the file (and the line of the first bad byte)."""
    path = Path(path)
    where = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(Problem(where, None, None, f"cannot read the file: {exc.strerror or exc}")) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            Problem(where, line, None, f"not UTF-8 text (byte 0x{data[exc.start]:02x})")
        ) from None


def parse_rows(path: Path) -> list[tuple[int, bool, object]]:
    """Like `readers.load_rows`, but a JSONL line that is not JSON comes back as a `BadLine`."""
    return _parse_text(str(path), read_input_text(path))


def _checked_row(where: str, number: int, is_entry: bool, value: object, surrogates: bool) -> tuple:
    """(number, is_entry, value), or a BadLine in its place when the value is not strict JSON."""
    found = strict_json.check_value(value, surrogates=surrogates)
    if found is None:
        return number, is_entry, value
    field_path, message = found
    return number, is_entry, BadLine(Problem(where, number, field_path or None, message, entry=is_entry))


def _parse_text(where: str, text: str) -> list[tuple[int, bool, object]]:
    if not text.strip():
        raise InputError(Problem(where, None, None, "the file is empty"))
    # split on \n only: JSON strings may hold a raw U+2028, which str.splitlines would cut
    lines = [(number, line) for number, line in enumerate(text.split("\n"), 1) if line.strip()]
    surrogates = strict_json.may_hold_surrogates(text)
    if not _is_json_object(lines[0][1]):
        try:
            whole = strict_json.decode(text)
        except strict_json.StrictJSONError as exc:
            # a bad first line (an object that does not parse, or a value that is no object) in a
            # file whose other lines are mostly JSON values of their own is still JSONL: its rows
            # that are no objects are the readers' to name, each at its line
            others = sum(_is_json(line) for _, line in lines[1:])
            first = lines[0][1]
            if not (
                (first.lstrip().startswith("{") or _is_json(first))
                and others
                and 2 * others >= len(lines) - 1
            ):
                raise InputError(Problem(where, exc.line, None, exc.message)) from None
        else:
            return _whole_document_rows(where, whole, surrogates)
    rows: list[tuple[int, bool, object]] = []
    for number, line in lines:
        try:
            rows.append(_checked_row(where, number, False, strict_json.decode(line), surrogates))
        except strict_json.StrictJSONError as exc:
            rows.append((number, False, BadLine(Problem(where, number, None, exc.message))))
    return rows


def _whole_document_rows(where: str, whole: object, surrogates: bool) -> list[tuple[int, bool, object]]:
    if isinstance(whole, dict):
        return [_checked_row(where, 0, True, whole, surrogates)]
    if not isinstance(whole, list):
        found = strict_json.check_value(whole)
        if found:
            raise InputError(Problem(where, None, None, found[1]))
        raise InputError(
            Problem(
                where,
                None,
                None,
                f"expected a JSON list of objects, one object or JSON Lines, got {kind_of(whole)}",
            )
        )
    if not whole:
        raise InputError(Problem(where, None, None, "the file holds no entries (an empty list)"))
    return [_checked_row(where, index, True, obj, surrogates) for index, obj in enumerate(whole)]


def collect_rows(
    path: Path,
    rows: list,
    check_row: Callable[[int, object, str], tuple[object, Found]],
    skip_invalid: bool,
    response_of: Callable[[object], Response] | None = None,
) -> ReadResult:
    """Run `check_row(index, obj, where)` over every row; with problems raise InputError with
    all of them, or under `skip_invalid` keep the valid items and one Problem per skipped row.
    `response_of(item)` (generation and metric files): the item's response, whose id goes to
    `invented_ids` when its row carries no `id`."""
    result, problems = ReadResult(), []
    for index, (line, is_entry, obj) in enumerate(rows):
        if isinstance(obj, BadLine):
            row_problems = [obj.problem]
        else:
            item, found = check_row(index, obj, place_in_file(line, is_entry))
            row_problems = [
                Problem(str(path), line, name, message, entry=is_entry) for name, message in found
            ]
            if not row_problems:
                result.items.append(item)
                result.locations.append((line, is_entry))
                if response_of is not None and obj.get("id") is None:
                    result.invented_ids.append(response_of(item).response_id)
                continue
        problems.extend(row_problems)
        first = row_problems[0]
        result.skipped.append(
            first
            if len(row_problems) == 1
            else Problem(
                first.path,
                first.line,
                None,
                "; ".join(f"{p.field or 'row'}: {p.message}" for p in row_problems),
                first.entry,
            )
        )
    if problems and not skip_invalid:
        raise InputError(problems)
    return result


def response_from_row(row: object, default_id: str, *, metric: bool) -> tuple[Response | None, Found]:
    """The generation fields of a row (generation or metric file) → a Response, or its problems."""
    if not isinstance(row, dict):
        return None, [(None, not_an_object(row))]
    found: Found = []
    response_id = default_id
    if row.get("id") is not None:
        if isinstance(row["id"], bool) or not isinstance(row["id"], (str, int)):
            found.append(("id", f"must be a string or an integer, got {kind_of(row['id'])}"))
        elif not str(row["id"]).strip():
            found.append(("id", "must not be empty"))
        else:
            response_id = str(row["id"])
    text_field = "model_generation"
    if metric and "model_generation" not in row and "original_full_generation" in row:
        text_field = "original_full_generation"  # the reference pipeline's fallback
    text = row.get(text_field)
    if text_field not in row:
        found.append((text_field, "missing"))
    elif not isinstance(text, str):
        found.append((text_field, f"must be a string, got {kind_of(text)}"))
    elif not text.strip():
        found.append((text_field, "must not be empty"))
    video = row.get("video")
    if "video" not in row:
        found.append(("video", "missing"))
    elif not isinstance(video, str) or not video.strip():
        found.append(("video", f"must be a non-empty string (a file name or id), got {kind_of(video)}"))
    if not isinstance(row.get("question", ""), str):
        found.append(("question", f"must be a string, got {kind_of(row['question'])}"))
    options = row.get("options", [])
    if not isinstance(options, list):
        found.append(("options", f"must be a list of strings, got {kind_of(options)}"))
    else:
        found += [
            (f"options[{i}]", f"must be a string, got {kind_of(o)}")
            for i, o in enumerate(options)
            if not isinstance(o, str)
        ]
    if row.get("answer") is not None and not isinstance(row["answer"], str):
        found.append(("answer", f"must be a string or null, got {kind_of(row['answer'])}"))
    model = row.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        found.append(
            ("model", f"must be a non-empty string (the model's name) or null, got {kind_of(model)}")
        )
    if found:
        return None, found
    kept_apart = _RESPONSE_FIELDS + (("evaluations", "response_score") if metric else ())
    return Response(
        response_id=effective_id(row, response_id),
        text=text,
        video=video,
        question=row.get("question", ""),
        options=list(options),
        answer=row.get("answer"),
        extra={k: v for k, v in row.items() if k not in kept_apart},
        model=model,
    ), []


def effective_id(row: dict, default_id: str) -> str:
    """The response_id a row gets: its `id`, else `default_id`; a row that names its `model`
    gets `{model}/{id}` (models answer the same dataset rows, so their ids repeat)."""
    row_id = default_id if row.get("id") is None else str(row["id"])
    model = row.get("model")
    return model_response_id(model, row_id) if isinstance(model, str) and model.strip() else row_id


def unique_ids(kind: str) -> Callable[[str, str], Found]:
    """A checker `check(identity, where)` that reports an id already seen, naming where it was first."""
    first_seen: dict[str, str] = {}

    def check(identity: str, where: str) -> Found:
        if identity in first_seen:
            return [
                (
                    "id" if kind == "id" else "response_id",
                    f"duplicate {kind} '{identity}' (first at {first_seen[identity]})",
                )
            ]
        first_seen[identity] = where
        return []

    return check
