"""`python -m annotation flags`: the annotators' flags of a project (questions and remarks sent from
the Annotate page), newest first, with the adjudicators' answers, printed and optionally written as
CSV; `--open` keeps the flags nobody has answered yet.

Exit codes: 0 success, 2 invalid input (the problem on stderr)."""

from __future__ import annotations

import sys
from pathlib import Path


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _printable(line: str) -> str:
    """A line of typed text for a terminal: characters that are not printable (escape sequences,
    direction marks) written as `<U+001B>`, so the text cannot drive the terminal."""
    return "".join(ch if ch.isprintable() else f"<U+{ord(ch):04X}>" for ch in line)


def cmd_flags(args) -> int:
    from annotation.formats.atomic_file import check_output_path
    from annotation.formats.flags_csv import write_flags_csv
    from annotation.store.project_store import ProjectStore
    from annotation.work.flags import project_flags

    if args.csv:
        check_output_path(args.csv)  # refused before anything is read
    try:
        flags = project_flags(ProjectStore.open(args.project))
    except FileNotFoundError as exc:
        return _fail(str(exc))
    waiting = sum(1 for flag in flags if flag.answer is None)
    if args.open:
        flags = [flag for flag in flags if flag.answer is None]
        print(f"{waiting} open flag{'' if waiting == 1 else 's'}, newest first")
    else:
        print(f"{len(flags)} flag{'' if len(flags) == 1 else 's'} ({waiting} open), newest first")
    for flag in flags:
        print(f"\n{flag.when} · {_printable(flag.who)} · {_printable(flag.where)} · event {flag.event_id}")
        for line in flag.text.splitlines() or [""]:
            print(f"  {_printable(line)}")
        answer = flag.answer
        if answer is not None:
            print(f"  answered {answer.when} by {_printable(answer.who)}" + (":" if answer.text else ""))
            for line in answer.text.splitlines():
                print(f"    {_printable(line)}")
    if args.csv:
        try:
            rows = write_flags_csv(flags, Path(args.csv))
        except ValueError as exc:  # text that cannot be written as UTF-8; the file is left as it was
            return _fail(f"nothing written to {args.csv}: {exc}")
        print(f"wrote {rows} row(s) to {args.csv}")
    return 0


def add_flags_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "flags",
        help="the annotators' flags (questions about a response or the guidelines)",
        description="Print every flag the annotators sent from the Annotate page, newest first: when, "
        "who, the response (and sentence), the text and the answer (Disputes page); optionally write "
        "them as CSV.",
    )
    p.add_argument("--project", required=True, help="project directory")
    p.add_argument("--open", action="store_true", help="only the flags nobody has answered yet")
    p.add_argument("--csv", help="also write one CSV row per flag (those printed)")
    p.set_defaults(func=cmd_flags)
