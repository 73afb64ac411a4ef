"""`python -m calibration <command>`: one parser, one `cmd_<name>` function per subcommand.

Exit codes: 0 done, 2 bad input or usage (every problem on stderr, nothing on stdout).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sqlite3
import sys
from collections import Counter
from pathlib import Path

from annotation.cli.options import stdout_closed
from annotation.formats.atomic_file import describe_os_error
from annotation.formats.readers import read_any
from annotation.formats.rows import ReadResult
from annotation.protocol.errors import InputError, Problem, place_in_file
from annotation.protocol.ids import Source
from calibration.scoring.murgat_s import (
    PRECISION_MODES,
    ResponseScore,
    SystemScore,
    score_records,
    system_scores,
)
from calibration.scoring.reference import compare_reference, score_metric_entry


def _print_problems(problems: list[Problem]) -> None:
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)


# ---------------------------------------------------------------- score


def add_score_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "score",
        help="MURGAT-S per response and per source from metric or records files",
        description="Score metric files (reference judge output) or evaluation-record files "
        "(PROTOCOL §3). Prints a table per source and precision mode, or with --json one "
        "object per line per (source, response, precision mode). A response whose facts are all "
        "undetermined (every precision, or every recall, depends on an unjudged value) has "
        "MURGAT-S null: it is counted ('undet. resp.') and left out of the means, never scored 0. "
        "Metric files keep the reference code's rule (an empty pool counts as 0).",
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="metric (JSON/JSONL) or records (JSONL) file; with --config, generation files",
    )
    parser.add_argument(
        "--format",
        choices=("auto", "metric", "records"),
        default="auto",
        help="file format; auto detects it from the fields (default)",
    )
    parser.add_argument(
        "--precision",
        choices=(*PRECISION_MODES, "all"),
        default=None,
        help="precision mode; default: all modes for records files, individual for "
        "metric files (they carry only individual judgements)",
    )
    parser.add_argument(
        "--source",
        metavar="NAME",
        help="source name for metric files (default 'judge:' + the file's stem); "
        "records files carry their own sources",
    )
    parser.add_argument("--json", action="store_true", help="JSON lines instead of the table")
    from calibration.cli.score_config import add_score_config_arguments

    add_score_config_arguments(parser)
    parser.set_defaults(func=cmd_score)


def _score_metric_file(
    path: Path, read: ReadResult, args, problems: list[Problem], notes: list[str], seen: dict
) -> list[ResponseScore]:
    source = args.source or str(Source.judge(path.stem))
    if args.precision not in (None, "individual"):
        notes.append(
            f"note: {path}: metric files carry only individual judgements; scored in individual mode"
        )
    scores = []
    for index, item in enumerate(read.items):
        if _seen_before(seen, (item.response.response_id, source), path, read.locations[index], problems):
            continue
        try:
            score = score_metric_entry(item.entry, item.response.response_id, source)
        except ValueError as exc:
            line, is_entry = read.locations[index]
            problems.append(Problem(str(path), line, "evaluations", str(exc), entry=is_entry))
            continue
        differences = compare_reference(item.entry, score)
        if differences:
            line, is_entry = read.locations[index]
            where = place_in_file(line, is_entry)
            notes.append(
                f"warning: {path}, {where} (id {score.response_id}): stored "
                f"response_score differs from the recomputed one: " + "; ".join(differences)
            )
        scores.append(score)
    return scores


def _score_records_file(
    path: Path, read: ReadResult, args, problems: list[Problem], notes: list[str], seen: dict
) -> list[ResponseScore]:
    if args.source:
        notes.append(f"note: {path}: --source applies to metric files; records keep their own sources")
    modes = PRECISION_MODES if args.precision in (None, "all") else (args.precision,)
    scores = []
    unanswered: Counter[str] = Counter()
    for index, record in enumerate(read.items):
        if _seen_before(seen, (record.response_id, record.source), path, read.locations[index], problems):
            continue
        try:
            scores.extend(score_records([record], modes))
        except ValueError as exc:
            line, is_entry = read.locations[index]
            problems.append(Problem(str(path), line, "sentences", str(exc), entry=is_entry))
        if any(sentence.verifiable is None for sentence in record.sentences):
            unanswered[record.source] += 1
    if unanswered:
        notes.append(_unanswered_stage_one_note(path, unanswered))
    return scores


def _unanswered_stage_one_note(path: Path, by_source: Counter[str]) -> str:
    """What scoring did with sentences whose `verifiable` is null: the reference code's rule, which
    is right for a judge reply that did not parse (a failing judge is not excused) but not what a
    person's unfinished response means."""
    counts = ", ".join(f"{source} {n}" for source, n in sorted(by_source.items()))
    return (
        f"note: {path}: {by_source.total()} response(s) hold sentences with no stage-1 answer "
        f"(verifiable null; {counts}): those sentences are scored as not verifiable. For a judge "
        "that is a reply that did not parse; for a person, a response not labelled to the end — "
        "its score is not theirs yet."
    )


def _seen_before(seen: dict, key: tuple[str, str], path: Path, location, problems: list[Problem]) -> bool:
    """Whether (response, source) `key` came in an earlier file of this run (a problem then names
    both places: scored twice, it would count twice in its source's mean); else it is noted."""
    line, is_entry = location
    first = seen.get(key)
    if first is None:
        seen[key] = (path, line, is_entry)
        return False
    where = f"{first[0]}, {'entry' if first[2] else 'line'} {first[1]}"
    problems.append(
        Problem(
            str(path),
            line,
            "response_id",
            f"response '{key[0]}' of {key[1]} is also in {where}",
            entry=is_entry,
        )
    )
    return True


def _four(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def _format_table(rows: list[SystemScore]) -> str:
    header = (
        "source",
        "mode",
        "responses",
        "MURGAT-S",
        "coverage",
        "P",
        "R",
        "F1",
        "undet. P",
        "undet. R",
        "no R_v",
        "undet. resp.",
    )
    body = [
        (
            r.source,
            r.precision_mode,
            str(r.n_responses),
            _four(r.murgat_s),
            _four(r.coverage),
            _four(r.precision),
            _four(r.recall),
            _four(r.f1),
            str(r.n_undetermined),
            str(r.n_recall_undetermined),
            str(r.n_no_verifiable),
            str(r.n_undetermined_responses),
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in (header, *body)) for i in range(len(header))]

    def line(cells):
        # text columns left-aligned, numbers right-aligned
        return "  ".join(
            c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(header), *(line(row) for row in body)])


def cmd_score(args) -> int:
    """Read every file, score, print; on any bad input print every problem and exit 2."""
    problems: list[Problem] = []
    notes: list[str] = []
    scores: list[ResponseScore] = []
    incomplete = False
    if getattr(args, "config", None):  # run the calibrated judges on new responses, then score
        from calibration.cli.score_config import score_with_config

        scores, incomplete = score_with_config(args, problems, notes)
    else:
        from calibration.cli.score_config import config_only_problems

        problems += config_only_problems(args)
    seen: dict = {}  # (response, source) → where it was first read: across files too
    for name in [] if getattr(args, "config", None) else args.files:
        path = Path(name)
        try:
            fmt, read = read_any(path, fmt=args.format, source=args.source)
            if fmt == "metric":
                scores += _score_metric_file(path, read, args, problems, notes, seen)
            elif fmt == "records":
                scores += _score_records_file(path, read, args, problems, notes, seen)
            else:
                problems.append(
                    Problem(
                        str(path),
                        None,
                        None,
                        f"a {fmt} file carries no judgements; score needs a metric or records file",
                    )
                )
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        _print_problems(problems)
        return 2
    for note in notes:
        print(note, file=sys.stderr)
    if args.json:
        for score in scores:
            print(json.dumps(score.to_dict()))
    elif scores:
        print(_format_table(system_scores(scores)))
    else:
        print("no responses to score", file=sys.stderr)
    return 1 if incomplete else 0


# ---------------------------------------------------------------- entry


# Each command's module and the function that adds its parser, in the order `--help` lists them. A
# command's module is imported only when that command is run (or for the full list): sweep, export
# and estimate load scipy and the project state, ≈ 1.5 CPU s of imports a `score` run never needs.
COMMANDS = {
    "score": ("calibration.cli.main", "add_score_parser"),
    "sweep": ("calibration.cli.sweep", "add_sweep_parser"),
    "judge": ("calibration.cli.judge", "add_judge_parser"),
    "export": ("calibration.cli.export", "add_export_parser"),
    "estimate": ("calibration.cli.estimate", "add_estimate_parser"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of `command` only (the one the arguments name)."""
    parser = argparse.ArgumentParser(
        prog="python -m calibration", description="MURGAT calibration: score, sweep, judge and export."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, adder) in COMMANDS.items():
        if command in (None, name):
            getattr(importlib.import_module(module), adder)(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit code. Bad input is exit 2 with every problem located (never a
    traceback); a file that cannot be read or written is exit 2 naming it."""
    argv = sys.argv[1:] if argv is None else argv
    named = argv[0] if argv and argv[0] in COMMANDS else None  # else the full parser says what is wrong
    args = build_parser(named).parse_args(argv)
    try:
        return args.func(args)
    except InputError as exc:
        _print_problems(exc.problems)
        return 2
    except BrokenPipeError:  # the reader of stdout left (`| head`)
        return stdout_closed()
    except OSError as exc:
        print(f"error: {describe_os_error(exc)}", file=sys.stderr)  # a full disk called so
        return 2
    except sqlite3.DatabaseError as exc:
        # loaded already by the store that raised it: the module's import (sqlite_utils) is not
        # paid by commands that never open a project
        from annotation.store.database import ProjectFileError

        if isinstance(exc, ProjectFileError):  # empty, not SQLite, newer, damaged: one line says which
            print(f"error: {exc}", file=sys.stderr)
        else:  # e.g. a project.db that is not a SQLite file
            print(
                f"error: {getattr(args, 'project', None) or 'the project'}: its database cannot be used ({exc})",
                file=sys.stderr,
            )
        return 2
