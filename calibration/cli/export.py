"""`python -m calibration export`: sweep the exportable configurations, choose one, write it.

    python -m calibration export (--project DIR | --gold FILE --judges-records FILE...)
        --judges FILE.toml [--choose best|cheapest] [--precision MODE|all]
        [--bootstrap N] [--folds K] [--seed S] [--epsilon E] --out calibrated.json

Only exportable configurations are swept (judge:V+D+E with every stage a judge of the judges file;
the others are listed on stderr and left out, since new responses have no human labels). The
records come from the same input path as `sweep` (calibration.sweep.inputs), so the numbers are the
sweep's. The file and its evidence are documented in assets/calibrated-config.md; `score --config`
(calibration/cli/score_config.py) runs it on new responses.
Exit codes: 0 done, 2 bad input (every problem on stderr, nothing written).
"""

from __future__ import annotations

import math
import sys

from annotation.formats.atomic_file import os_error_reason
from annotation.protocol.errors import InputError, Problem
from calibration.cli.sweep import (
    add_statistics_arguments,
    load_sweep_inputs,
    sweep_argument_problems,
    sweep_with_args,
)

CHOICES = ("best", "cheapest")


def add_export_parser(subparsers) -> None:
    """Register `export` on an argparse subparsers object; the handler is `args.func`."""
    parser = subparsers.add_parser(
        "export",
        help="choose the calibrated MURGAT-SCORE configuration and write it as JSON",
        description="Sweep the exportable judge configurations against gold, choose one (the highest "
        "full-sample r, or the cheapest configuration in the 95%% confidence set of best ones) and "
        "write it with its evidence — r with its CI, the confidence set, the expected r of the "
        "choice on new responses, human parity — to --out (schema: assets/calibrated-config.md).",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--project", metavar="DIR", help="project directory (gold, annotators from the event log, judges)"
    )
    where.add_argument("--gold", metavar="FILE", help="records file with the gold records (and human:* ones)")
    parser.add_argument(
        "--judges-records", nargs="+", metavar="FILE", help="judge records files (with --gold)"
    )
    parser.add_argument(
        "--judges",
        required=True,
        metavar="FILE.toml",
        help="judges file: the adapter, model and parameters of each stage's judge",
    )
    parser.add_argument(
        "--choose",
        choices=CHOICES,
        default="best",
        help="the highest full-sample r (default), or the cheapest configuration in the 95%% "
        "confidence set of best ones (prices × recorded tokens; needs --project)",
    )
    add_statistics_arguments(parser)
    parser.add_argument("--out", required=True, metavar="FILE", help="where to write the calibrated JSON")
    parser.set_defaults(func=cmd_export)


def _print_problems(problems: list[Problem]) -> None:
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)


def _argument_problems(args) -> list[Problem]:
    problems = sweep_argument_problems(args, args.judges_records, "--judges-records")
    if args.choose == "cheapest" and not args.project:
        problems.append(
            Problem(
                "<arguments>",
                None,
                "--choose",
                "'cheapest' needs --project: the token counts are recorded in its judge calls",
            )
        )
    return problems


def exportable_records(args, judge_records, judges: dict, problems: list[Problem]):
    """The judge records whose source is exportable with `judges`; the others are noted on stderr.
    None exportable → a problem naming the sources found."""
    from calibration.config.calibrated import exportable_configuration

    left_out = {}
    for record in judge_records:
        if record.source not in left_out:
            left_out[record.source] = exportable_configuration(record.source, judges)[1]
    exportable = [r for r in judge_records if left_out[r.source] is None]
    if not exportable:
        problems.append(
            Problem(
                args.project or ", ".join(args.judges_records),
                None,
                "source",
                "no exportable judge configuration (judge:V+D+E with "
                f"every stage a judge of {args.judges}) among: {', '.join(left_out) or 'none'}",
            )
        )
    else:
        for source, why in left_out.items():
            if why is not None:
                print(f"note: {source} left out: {why}", file=sys.stderr)
    return exportable


def _choice(args, report, judges: dict):
    """The configuration --choose picks (None: the sweep's best). ValueError when none has a price."""
    if args.choose != "cheapest":
        return None
    from annotation.store.project_store import ProjectStore
    from calibration.config.costs import cheapest_choice

    store = ProjectStore.open(args.project)
    try:
        return cheapest_choice(report, judges, store)
    finally:
        store.close()


def _number(value, digits: int = 3) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _print_summary(cfg, out: str) -> None:
    e = cfg.evidence
    print(
        f"exported {cfg.source} [{cfg.precision_mode}] to {out}: r {_number(e['pearson'])} "
        f"[{_number(e['pearson_ci'][0])}, {_number(e['pearson_ci'][1])}], n {e['n']}, chosen by "
        f"{e['chosen_by']}; 95% confidence set of the best: {len(e['best_set'])} configuration(s); "
        f"expected r on new responses {_number(e['selection']['expected_r'])}; human parity: "
        + (
            f"advantage {_number(e['parity']['advantage'])}, winning rate "
            f"{_number(e['parity']['winning_rate'], 2)}"
            if not e["parity"].get("reason")
            else e["parity"]["reason"]
        )
    )


def cmd_export(args) -> int:
    """Sweep, choose, write --out; bad input → every problem on stderr, exit 2, nothing written."""
    from calibration.config.calibrated import build_calibrated_config, write_calibrated_config
    from calibration.judges.judges_file import load_judges

    problems, judges = _argument_problems(args), {}
    try:
        judges = load_judges(args.judges)
    except InputError as exc:
        problems.extend(exc.problems)
    if not problems:
        inputs = load_sweep_inputs(args, args.judges_records, problems)
    if not problems:
        exportable = exportable_records(args, inputs.judges, judges, problems)
    if problems:
        _print_problems(problems)
        return 2
    try:
        report = sweep_with_args(args, inputs, exportable)
        cfg = build_calibrated_config(
            report, _choice(args, report, judges), judges, inputs.gold, chosen_by=args.choose
        )
        write_calibrated_config(cfg, args.out)
    except InputError as exc:
        _print_problems(exc.problems)
        return 2
    except ValueError as exc:
        _print_problems([Problem("<arguments>", None, "--choose", str(exc))])
        return 2
    except OSError as exc:
        _print_problems([Problem(args.out, None, "--out", os_error_reason(exc))])
        return 2
    _print_summary(cfg, args.out)
    return 0
