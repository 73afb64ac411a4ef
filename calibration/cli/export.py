"""`python -m calibration export`: sweep the exportable configurations, choose one, write it.

    python -m calibration export (--project DIR | --gold FILE --judges-records FILE...)
        --judges FILE.toml [--choose best|cheapest|hand] [--precision MODE|all]
        [--configuration SOURCE --mode MODE --reason TEXT] [--allow-undecided]
        [--bootstrap N] [--folds K] [--seed S] [--epsilon E] --out calibrated.json

Only exportable configurations are swept (judge:V+D+E with every stage a judge of the judges file;
the others are listed on stderr and left out, since new responses have no human labels). The
records come from the same input path as `sweep` (calibration.sweep.inputs), so the numbers are the
sweep's. When the gold cannot decide (the 95 % confidence set of the best holds more than half of the
configurations, or the chosen one's r CI includes 0: calibration.sweep.verdict.decision) the export
is refused, exit 2 with the reason, unless --allow-undecided acknowledges it; the decision, the
acknowledgement and a choice by hand with its reason are recorded in the evidence (`decision`).
The file and its evidence are documented in assets/calibrated-config.md; `score --config`
(calibration/cli/score_config.py) runs it on new responses.
Exit codes: 0 done, 2 bad input (every problem on stderr, nothing written).
"""

from __future__ import annotations

import sys

from annotation.formats.atomic_file import os_error_reason
from annotation.protocol.errors import InputError, Problem
from calibration.cli.sweep import (
    add_statistics_arguments,
    load_sweep_inputs,
    sweep_argument_problems,
    sweep_with_args,
)
from calibration.scoring.murgat_s import PRECISION_MODES
from calibration.stats.numbers import interval, number, share
from calibration.sweep.verdict import decision, export_refusal

CHOICES = ("best", "cheapest", "hand")


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
        help="the highest full-sample r (default), the cheapest configuration in the 95%% "
        "confidence set of best ones (prices × recorded tokens; needs --project), or one chosen by "
        "hand (--configuration, --mode and --reason)",
    )
    parser.add_argument(
        "--configuration", metavar="SOURCE", help="with --choose hand: the judge source, e.g. judge:a+b+c"
    )
    parser.add_argument(
        "--mode",
        choices=PRECISION_MODES,  # refused at once, not after the whole sweep has run
        help="with --choose hand: its precision mode",
    )
    parser.add_argument("--reason", metavar="TEXT", help="with --choose hand: why (recorded in the evidence)")
    parser.add_argument(
        "--allow-undecided",
        action="store_true",
        help="export even when the gold cannot decide (the confidence set of the best holds more than "
        "half of the configurations, or the chosen r's CI includes 0); recorded in the evidence",
    )
    add_statistics_arguments(parser)
    parser.add_argument("--out", required=True, metavar="FILE", help="where to write the calibrated JSON")
    parser.set_defaults(func=cmd_export)


def _print_problems(problems: list[Problem]) -> None:
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)


def _argument_problems(args) -> list[Problem]:
    problems = sweep_argument_problems(args, args.judges_records, "--judges-records")
    hand = {"--configuration": args.configuration, "--mode": args.mode, "--reason": args.reason}
    if args.choose == "hand":
        for flag, value in hand.items():
            if value is None or not value.strip():
                problems.append(Problem("<arguments>", None, flag, "--choose hand needs it"))
    else:
        for flag, value in hand.items():
            if value is not None:
                problems.append(Problem("<arguments>", None, flag, "goes with --choose hand"))
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


def exportable_inputs(args, inputs, judges: dict, problems: list[Problem]):
    """The inputs with the judge records of the sources exportable with `judges` only
    (`SweepInputs.of_sources`); the others are noted on stderr. None exportable → a problem naming
    the sources found."""
    from calibration.config.calibrated import exportable_sources

    found, left_out = exportable_sources(inputs.judge_sources(), judges)
    if not found:
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
            print(f"note: {source} left out: {why}", file=sys.stderr)
    return inputs.of_sources(set(found))


def _choice(args, report, judges: dict):
    """The configuration --choose picks (None: the sweep's best). ValueError when none has a price
    or the configuration chosen by hand is not one of the sweep's."""
    if args.choose == "hand":
        for config in report.configs:
            if (config.source, config.precision_mode) == (args.configuration, args.mode):
                return config
        raise ValueError(
            f"{args.configuration} [{args.mode}] is not a configuration of this sweep; it has: "
            + ", ".join(c.name for c in report.configs)
        )
    if args.choose != "cheapest":
        return None
    from annotation.store.project_store import ProjectStore
    from calibration.config.costs import cheapest_choice

    store = ProjectStore.open(args.project)
    try:
        return cheapest_choice(report, judges, store)
    finally:
        store.close()


def _print_summary(cfg, out: str) -> None:
    e = cfg.evidence
    s = e["selection"]
    print(
        f"exported {cfg.source} [{cfg.precision_mode}] to {out}: r {number(e['pearson'])} "
        f"{interval(*e['pearson_ci'])}, n {e['n']}, chosen by {e['chosen_by']}; 95% confidence set of "
        f"the best: {len(e['best_set'])} configuration(s); expected r of the rule 'take the highest r' "
        f"on new responses {number(s['expected_r'])} ± {number(s.get('expected_r_se'))} (bootstrap SE); "
        f"human parity of {cfg.source} [{cfg.precision_mode}]: "
        + (
            f"advantage {number(e['parity']['advantage'])}, winning rate {share(e['parity']['winning_rate'])}"
            if not e["parity"].get("reason")
            else e["parity"]["reason"]
        )
    )
    if e.get("decision", {}).get("undecided"):
        print("exported although undecided (acknowledged): " + e["decision"]["sentence"])


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
        inputs = exportable_inputs(args, inputs, judges, problems)
    if problems:
        _print_problems(problems)
        return 2
    try:
        report = sweep_with_args(args, inputs)
        choice = _choice(args, report, judges)
        decided = decision(report, choice)
        refusal = export_refusal(decided, args.allow_undecided)
        if refusal is not None:
            _print_problems([Problem("<arguments>", None, "--allow-undecided", refusal)])
            return 2
        recorded = {**decided.to_dict(), "acknowledged": bool(args.allow_undecided and decided.undecided)}
        if args.choose == "hand":
            recorded["reason"] = args.reason.strip()
        cfg = build_calibrated_config(
            report, choice, judges, inputs.gold, chosen_by=args.choose, decision=recorded
        )
        write_calibrated_config(cfg, args.out)
    except InputError as exc:
        _print_problems(exc.problems)
        return 2
    except ValueError as exc:
        flag = "--configuration" if args.choose == "hand" else "--choose"
        _print_problems([Problem("<arguments>", None, flag, str(exc))])
        return 2
    except OSError as exc:
        _print_problems([Problem(args.out, None, "--out", os_error_reason(exc))])
        return 2
    _print_summary(cfg, args.out)
    return 0
