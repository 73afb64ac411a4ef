"""Strict JSON reading: what RFC 8259 allows and our tools can hold, nothing else.

Python's `json` accepts `NaN`, `Infinity`, `-Infinity` and numbers that overflow a double
(`1e400` becomes inf), keeps the last of duplicate keys, lets a `\\ud800` escape make a string
with a lone surrogate (which no UTF-8 writer can write back), raises ValueError with Python's
own words for integers past 4,300 digits and RecursionError for deep nesting. Here each of these
is a problem with a message a person can act on and, inside a value, the field path where it is.
"""

from __future__ import annotations

import json
import math
import re

MAX_DEPTH = 64  # our formats nest about 8 deep; any deeper value would only recurse somewhere later
MAX_INT_DIGITS = 308  # an integer with more digits may not fit a double (1.8e308)
_SURROGATE_ESCAPE_RE = re.compile(r"\\u[dD][89a-fA-F]")


class StrictJSONError(ValueError):
    """Text that is not strict JSON: `message`, with `line`/`column` (1-based) when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        self.message, self.line, self.column = message, line, column
        super().__init__(message if line is None else f"line {line}: {message}")


class _Refused:
    """Stands in, during decoding, for a value strict JSON refuses; `check_value` reports it."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message


class _DuplicateKeys(dict):
    """An object that repeated a key (`dict` keeps the last); `check_value` reports it."""

    duplicates: list[str]


def _object(pairs: list[tuple[str, object]]) -> dict:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    marked = _DuplicateKeys(obj)
    seen: set[str] = set()
    marked.duplicates = [key for key, _ in pairs if key in seen or seen.add(key)]
    return marked


def _float(text: str) -> float | _Refused:
    value = float(text)
    return value if math.isfinite(value) else _Refused(f"the number {_short(text)} is too large for JSON")


def _int(text: str) -> int | _Refused:
    digits = len(text) - text.startswith("-")
    if digits > MAX_INT_DIGITS:
        return _Refused(f"an integer of {digits} digits is too large (at most {MAX_INT_DIGITS})")
    return int(text)


def _constant(name: str) -> _Refused:
    return _Refused(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(
    object_pairs_hook=_object, parse_float=_float, parse_int=_int, parse_constant=_constant
)


def _short(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:10]}…{text[-10:]} ({len(text)} characters)"


def _line_of_depth(text: str, limit: int) -> tuple[int, int]:
    """(line, column) where brackets outside strings first nest deeper than `limit` (error path only)."""
    depth, line, line_start, in_string, escaped = 0, 1, 0, False, False
    for index, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return line, index - line_start + 1
        elif ch in "]}":
            depth -= 1
        if ch == "\n":
            line, line_start = line + 1, index + 1
    return line, 1


def decode(text: str) -> object:
    """`text` as a JSON value, refusing no syntax but marking what strict JSON refuses (see
    `check_value`). Raises StrictJSONError for text that is not JSON or nests too deeply."""
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        message = f"not valid JSON (column {exc.colno}: {exc.msg})"
        raise StrictJSONError(message, exc.lineno, exc.colno) from None
    except RecursionError:
        line, column = _line_of_depth(text, MAX_DEPTH)
        message = f"nested deeper than {MAX_DEPTH} levels (column {column})"
        raise StrictJSONError(message, line, column) from None


def may_hold_surrogates(text: str) -> bool:
    """Whether decoding `text` can give a lone surrogate (only a `\\uD8xx`–`\\uDFxx` escape can)."""
    return _SURROGATE_ESCAPE_RE.search(text) is not None


def _has_surrogate(text: str) -> bool:
    return not text.isascii() and any("\ud800" <= ch <= "\udfff" for ch in text)


_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in text)


def _shown_key(key: str) -> str:
    """A key as a path step: `name`, or `["any text"]` (quoted as JSON, lone surrogates as `\\udXXX`)."""
    return key if _NAME_RE.fullmatch(key) else "[" + _escaped(json.dumps(key, ensure_ascii=False)) + "]"


def check_value(value: object, *, surrogates: bool = True) -> tuple[str, str] | None:
    """The first (field path, message) that makes a decoded value not strict JSON — a refused
    number or constant, a duplicate key, a lone surrogate in a string or key (checked only when
    `surrogates`), nesting deeper than MAX_DEPTH — or None. Paths read `evaluations.x.facts[0]`;
    the empty path is the value itself."""
    found = _check(value, 0, surrogates)
    if found is None:
        return None
    steps, message = found
    path = ""
    for step in reversed(steps):
        if isinstance(step, int):
            path += f"[{step}]"
        else:
            path += f".{step}" if path and not step.startswith("[") else step
    return path, message


_CONTAINERS = (dict, list, _Refused)  # what `_check` must look inside (or at)
_Found = tuple[list, str]  # (path steps, innermost first; message)


def _check(value: object, depth: int, surrogates: bool) -> _Found | None:
    """`check_value`'s walk; a path is built only for the problem found (building one per value
    cost more than the walk)."""
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return [], f"nested deeper than {MAX_DEPTH} levels"
        if type(value) is _DuplicateKeys:
            key = value.duplicates[0]
            return [_shown_key(key)], f"the key '{_escaped(key)}' appears twice in one object"
        for key, item in value.items():
            if surrogates and _has_surrogate(key):
                return [
                    _shown_key(key)
                ], "the key holds a lone surrogate (an unpaired \\ud800-\\udfff escape)"
            if isinstance(item, _CONTAINERS) or (surrogates and isinstance(item, str)):
                found = _check(item, depth + 1, surrogates)
                if found:
                    found[0].append(_shown_key(key))
                    return found
        return None
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            return [], f"nested deeper than {MAX_DEPTH} levels"
        for index, item in enumerate(value):
            if isinstance(item, _CONTAINERS) or (surrogates and isinstance(item, str)):
                found = _check(item, depth + 1, surrogates)
                if found:
                    found[0].append(index)
                    return found
        return None
    if isinstance(value, _Refused):
        return [], value.message
    if isinstance(value, str) and _has_surrogate(value):
        return [], "the text holds a lone surrogate (an unpaired \\ud800-\\udfff escape)"
    return None


def loads(text: str) -> object:
    """`text` as a strict JSON value; StrictJSONError (with line and column when known, and the
    field path in the message) for anything strict JSON refuses."""
    value = decode(text)
    found = check_value(value, surrogates=may_hold_surrogates(text))
    if found:
        path, message = found
        raise StrictJSONError(f"{path}: {message}" if path else message)
    return value
