"""The one error type for bad input: it always says where (file, line, field)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One located problem in an input file.

    `line` is a 1-based line number for JSONL/TOML files, or a 0-based entry
    index for JSON lists (then `entry` is True so the message says which).
    """

    path: str
    line: int | None
    field: str | None
    message: str
    entry: bool = False

    def __str__(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where += f", {place_in_file(self.line, self.entry)}"
        if self.field:
            where += f", field '{self.field}'"
        return f"{where}: {self.message}"


def place_in_file(line: int, is_entry: bool) -> str:
    """Where a row is, as a person counts: "line 3", or for an entry of a JSON list (0-based index)
    "item 3 of the list" — "entry 2" sent people to the second object, the third one's place."""
    return f"item {line + 1} of the list" if is_entry else f"line {line}"


class InputError(Exception):
    """Bad input. Carries every problem found, so a reader can report all at once."""

    def __init__(
        self,
        problems: list[Problem] | Problem | str,
        *,
        path: str = "",
        line: int | None = None,
        field: str | None = None,
    ):
        if isinstance(problems, str):
            problems = [Problem(path, line, field, problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
