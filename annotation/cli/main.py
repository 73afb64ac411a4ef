"""`python -m annotation …` — import, export, demo, agreement, gold, flags, users and settings.

Exit codes: 0 success, 2 invalid input (every problem on stderr, nothing on stdout).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from annotation.cli.agreement import add_agreement_parser, add_gold_parser
from annotation.cli.flags import add_flags_parser
from annotation.cli.options import stdout_closed
from annotation.cli.settings import add_settings_parser
from annotation.cli.users import add_users_parser
from annotation.formats.atomic_file import describe_os_error
from annotation.protocol.errors import InputError


def _print_problems(exc: InputError, what: str = "nothing was imported") -> None:
    print(f"error: invalid input ({len(exc.problems)} problem(s)); {what}", file=sys.stderr)
    for problem in exc.problems:
        print(f"  {problem}", file=sys.stderr)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def cmd_import(args) -> int:
    from annotation.project import decoded_short, import_into, prepare_media, unprepared_media

    missing = [p for p in args.files if not Path(p).is_file()]
    if missing or (args.model is not None and not args.model.strip()):
        for p in missing:
            print(f"error: {p}: no such file", file=sys.stderr)
        if args.model is not None and not args.model.strip():
            print("error: --model: must name a model", file=sys.stderr)
        return 2
    root = None
    if args.media_root:
        root = Path(args.media_root).resolve()
        if not root.is_dir():
            return _fail(f"--media-root {args.media_root}: not a directory")
    try:
        store, report = import_into(
            Path(args.project),
            [Path(p) for p in args.files],
            skip_invalid=args.skip_invalid,
            fmt=args.format,
            source=args.source,
            model=args.model,
            media_root=root,
        )
    except InputError as exc:
        _print_problems(exc)
        return 2
    except KeyboardInterrupt:  # an import is one transaction: before its commit nothing is written
        print("interrupted (Ctrl-C): nothing was imported", file=sys.stderr)
        return 130
    for path, kind in report.files:
        print(f"{path}: {kind} file")
    imported = (
        f"imported {report.responses} response(s), {report.records} record(s); "
        f"media: {', '.join(report.media) or 'none new'}"
    )
    if not args.no_prepare:
        try:
            # the new media, and any an earlier import left unprepared (interrupted, or --no-prepare)
            for name in dict.fromkeys([*report.media, *unprepared_media(store)]):
                print(f"preparing {name} (annotation proxy, sound view)…", file=sys.stderr)
                short = decoded_short(prepare_media(store, name))
                if short is not None:
                    report.notes.append(short)
        except KeyboardInterrupt:
            print(imported)
            print(
                "interrupted (Ctrl-C) while preparing the media: run the import again to finish it",
                file=sys.stderr,
            )
            return 130
    print(imported)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    if report.skipped:
        print(f"skipped {len(report.skipped)} invalid row(s):", file=sys.stderr)
        for problem in report.skipped:
            print(f"  {problem}", file=sys.stderr)
    return 0


def cmd_export(args) -> int:
    from annotation.formats.readers import write_records_jsonl
    from annotation.project import export_records
    from annotation.state import project_state
    from annotation.store.project_store import ProjectStore

    try:
        store = ProjectStore.open(args.project)
    except FileNotFoundError as exc:
        return _fail(str(exc))
    records = export_records(store, args.source)
    try:
        count = write_records_jsonl(records, Path(args.out))
    except ValueError as exc:  # a record that is not strict JSON; --out is left as it was
        return _fail(f"nothing written to {args.out}: {exc}")
    sources = sorted({r.source for r in records})
    print(f"wrote {count} record(s) from {len(sources)} source(s) to {args.out}: {', '.join(sources)}")
    waiting = project_state(store).gold.awaiting_note() if args.source in ("all", "gold") else None
    if waiting:
        print(f"note: gold: {waiting}", file=sys.stderr)
    return 0


def cmd_demo(args) -> int:
    from annotation.demo.project import build_demo

    try:
        store = build_demo(Path(args.project), seed=args.seed)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(
        f"demo project (synthetic data) built in {store.directory}: "
        f"{store.count_responses()} responses, sources: {', '.join(store.record_sources())}"
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m annotation",
        description="MURGAT annotation projects: import, export, demo, agreement, gold, flags.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser(
        "import",
        help="import generation, metric or evaluation-record files",
        description="Import files into a project (created if missing). A file with any "
        "error imports nothing unless --skip-invalid is given.",
    )
    p.add_argument("--project", required=True, help="project directory")
    p.add_argument("files", nargs="+", metavar="FILE", help="JSON or JSONL files")
    p.add_argument(
        "--media-root", help="folder the rows' `video` names resolve in (default: <project>/media)"
    )
    p.add_argument(
        "--format",
        choices=["auto", "generation", "metric", "records"],
        default="auto",
        help="what the files are (default auto: told apart by their fields, each file on its own)",
    )
    p.add_argument(
        "--source",
        help="source name for metric files (default judge:<file stem>); name it judge:V+D+E after the "
        "judges of your judges file for `calibration export` to take it as a configuration",
    )
    p.add_argument(
        "--model",
        metavar="NAME",
        help="the model that wrote the responses (generation and metric files); their ids become "
        "NAME/<row id>, as for rows that carry a `model` field",
    )
    p.add_argument(
        "--skip-invalid",
        action="store_true",
        help="import the valid rows and list the skipped ones on stderr",
    )
    p.add_argument(
        "--no-prepare",
        action="store_true",
        help="skip building the annotation proxies and sound views now "
        "(the app then builds them in the background on first use)",
    )
    p.set_defaults(func=cmd_import)

    p = sub.add_parser(
        "export",
        help="write evaluation records as JSONL",
        description="Export evaluation records (gold, human from the event log, judges).",
    )
    p.add_argument("--project", required=True, help="project directory")
    p.add_argument("--out", required=True, help="output JSONL file")
    p.add_argument(
        "--source",
        choices=["gold", "human", "judge", "all"],
        default="all",
        help="whose records: the gold set, every annotator's, every judge's, or all (default)",
    )
    p.set_defaults(func=cmd_export)

    p = sub.add_parser(
        "demo",
        help="build the demo project (synthetic data)",
        description="Build the embedded demo project offline and deterministically.",
    )
    p.add_argument("--project", required=True, help="directory to build it in")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_demo)

    add_agreement_parser(sub)
    add_gold_parser(sub)
    add_flags_parser(sub)
    add_users_parser(sub)
    add_settings_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit code. No input makes a traceback: bad input is exit 2 with every
    problem located; a file that cannot be read or written is exit 2 naming it."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except InputError as exc:
        _print_problems(exc, "nothing was written")
        return 2
    except BrokenPipeError:  # the reader of stdout left (`| head`)
        return stdout_closed()
    except OSError as exc:  # the file named, and a full disk called so
        return _fail(describe_os_error(exc))
    except sqlite3.DatabaseError as exc:
        # loaded already by the store that raised it: the module's import (sqlite_utils) is not
        # paid by a run that never opens a project (`--help`, bad arguments)
        from annotation.store.database import ProjectFileError

        if isinstance(exc, ProjectFileError):  # empty, not SQLite, newer, damaged: one line says which
            return _fail(str(exc))
        return _fail(  # e.g. a project.db that is not a SQLite file
            f"{getattr(args, 'project', None) or 'the project'}: its database cannot be used ({exc})"
        )
