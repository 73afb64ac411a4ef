"""`python -m calibration sweep`: read gold, annotators and judges, run the sweep, print it.

Records come from a project (`--project DIR`: `calibration.sweep.inputs.inputs_from_project`, the
Calibrate page's input path) or from files (`--gold FILE --judges FILE...`, e.g. one
`python -m annotation export --source all` file for both); in a file each record's own `source`
decides its role (gold, human:*, judge:*); a metric file is accepted as a judge named
'judge:<file stem>'. Same records and options, same numbers.
Exit codes: 0 done, 2 bad input (every problem on stderr, nothing on stdout).
"""

from __future__ import annotations

import json
import math
import sys

from annotation.cli.options import finite_float
from annotation.protocol.errors import InputError, Problem
from calibration.scoring.murgat_s import PRECISION_MODES
from calibration.sweep.inputs import SweepInputs, inputs_from_files, inputs_from_project_dir
from calibration.sweep.parity import DEFAULT_EPSILON
from calibration.sweep.run import SweepReport, run_sweep


def add_sweep_parser(subparsers) -> None:
    """Register `sweep` on an argparse subparsers object; the handler is `args.func`."""
    parser = subparsers.add_parser(
        "sweep",
        help="which judge configuration tracks human gold best, and how sure we are",
        description="Correlate every judge source × precision mode with gold MURGAT-S over the responses "
        "where both are determined (undetermined ones are counted and left out, never 0): Pearson r "
        "with a 95%% CI (Fisher z, jackknife standard error), Spearman and Kendall (percentile "
        "bootstrap CIs). The best is the highest full-sample r; the 95%% confidence set of best "
        "configurations is Hansen-Lunde-Nason's model confidence set on paired-bootstrap r, with each "
        "configuration's bootstrap probability of being best; the expected r of choosing the highest "
        "r on responses it was not chosen on comes from nested cross-validation with a pooled "
        "within-fold correlation. Human parity compares each configuration with each annotator against the mean "
        "score of the other annotators. Prints a table sorted by r, or one JSON object with --json.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--project", metavar="DIR", help="project directory (gold, annotators from the event log, judges)"
    )
    where.add_argument("--gold", metavar="FILE", help="records file with the gold records (and human:* ones)")
    parser.add_argument(
        "--judges", nargs="+", metavar="FILE", help="judge records or metric files (with --gold)"
    )
    add_statistics_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.set_defaults(func=cmd_sweep)


def add_statistics_arguments(parser) -> None:
    """The sweep options `sweep` and `export` share."""
    parser.add_argument(
        "--precision",
        choices=(*PRECISION_MODES, "all"),
        default="all",
        help="precision mode(s) to sweep (default: all)",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=2000,
        metavar="N",
        help="paired bootstrap resamples for the confidence set, P(best) and rank-correlation CIs "
        "(default 2000)",
    )
    parser.add_argument(
        "--folds", type=int, default=5, metavar="K", help="nested cross-validation folds (default 5)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="seed for resamples and folds (default 0)"
    )
    parser.add_argument(
        "--epsilon",
        type=finite_float,
        default=DEFAULT_EPSILON,
        metavar="E",
        help=f"human parity margin: a judge wins against an annotator when its r is significantly "
        f"more than E below the annotator's at most (default {DEFAULT_EPSILON})",
    )


def _number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _table_rows(report: SweepReport) -> list[tuple[str, ...]]:
    order = sorted(
        report.configs,
        key=lambda c: (not math.isfinite(c.pearson), -c.pearson if math.isfinite(c.pearson) else 0.0),
    )
    return [
        (
            c.source,
            c.precision_mode,
            str(c.n),
            str(c.n_undetermined),
            _number(c.pearson),
            f"[{_number(c.pearson_ci[0])}, {_number(c.pearson_ci[1])}]",
            _number(c.spearman),
            _number(c.kendall),
            _number(c.mae),
            _number(c.system_score),
            _number(c.gold_system_score),
            _number(c.p_best, 2),
            "best" if c is report.best else ("yes" if c.in_best_set else "no"),
            _number(c.parity["advantage"]),
        )
        for c in order
    ]


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.ljust(w) if i < 2 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


HEADER = (
    "source",
    "mode",
    "n",
    "undet.",
    "r",
    "95% CI",
    "rho",
    "tau",
    "MAE",
    "score",
    "gold",
    "P(best)",
    "in set",
    "parity",
)


def _verdict_lines(report: SweepReport) -> list[str]:
    s, lines = report.selection, []
    if report.best is None:
        return ["best: none — no configuration has a defined correlation"]
    b = report.best
    lines.append(
        f"best (highest r): {b.name}  r {_number(b.pearson)} [{_number(b.pearson_ci[0])}, "
        f"{_number(b.pearson_ci[1])}], n {b.n}, P(best) {_number(b.p_best, 2)}"
    )
    lines.append(
        f"95% confidence set of the best ({len(report.best_set)} of {len(report.configs)}): "
        + ", ".join(f"{m['source']} [{m['precision_mode']}]" for m in report.best_set)
    )
    lines.append(
        f"expected r of choosing the highest r, on responses it was not chosen on ({s['folds']}-fold "
        f"nested cross-validation × {s['repeats']}, pooled): {_number(s['expected_r'])}; the pick's "
        f"in-sample r {_number(s['in_sample_r'])}, optimism {_number(s['optimism'])}"
    )
    p = b.parity
    if p["reason"]:
        lines.append(f"human parity: none — {p['reason']}")
    else:
        lines.append(
            f"human parity of the best (ε = {p['epsilon']}): mean advantage r(judge) − r(annotator) "
            f"{_number(p['advantage'])} [{_number(p['advantage_ci'][0])}, {_number(p['advantage_ci'][1])}], "
            f"winning rate {_number(p['winning_rate'], 2)} over {len(p['annotators'])} annotators "
            "(the judge may replace annotators at ≥ 0.5)"
        )
    return lines


def format_sweep_table(report: SweepReport) -> str:
    """The report as text: configurations by r (undefined last), then the verdict and notes."""
    lines = _aligned([HEADER, *_table_rows(report)])
    lines += ["", *_verdict_lines(report)]
    for row in report.annotators:
        lines.append(
            f"{row['source']} [{row['precision_mode']}]: r vs the other annotators' mean "
            f"{_number(row['r_vs_gold_without'])} (n {row['n']} of {row['n_finished']} finished)"
        )
    for c in report.configs:
        if c.undefined_reason:
            lines.append(f"{c.name}: r undefined — {c.undefined_reason}")
    for source in report.sources:
        if source["missing"]:
            shown = ", ".join(source["missing"][:10]) + (" …" if len(source["missing"]) > 10 else "")
            lines.append(f"{source['source']}: missing {len(source['missing'])} gold responses: {shown}")
    lines += [f"note: {note}" for note in report.notes]
    lines.append(
        "undet. = responses whose judge MURGAT-S is undetermined (left out); in set = in the 95% "
        "confidence set of the best; parity = mean advantage over annotators (see human parity)"
    )
    return "\n".join(lines)


def sweep_argument_problems(args, judge_files, judges_flag: str) -> list[Problem]:
    """Problems with the sweep options shared by `sweep` and `export` (`judge_files` is the
    value of the option that names the judges' record files, `judges_flag` its name)."""
    problems = []
    if args.bootstrap < 1:
        problems.append(
            Problem("<arguments>", None, "--bootstrap", f"must be at least 1, got {args.bootstrap}")
        )
    if args.folds < 2:
        problems.append(Problem("<arguments>", None, "--folds", f"must be at least 2, got {args.folds}"))
    if not (math.isfinite(args.epsilon) and args.epsilon >= 0):
        problems.append(Problem("<arguments>", None, "--epsilon", f"must be 0 or more, got {args.epsilon}"))
    if args.project and judge_files:
        problems.append(
            Problem("<arguments>", None, judges_flag, f"{judges_flag} goes with --gold, not --project")
        )
    if args.gold and not judge_files:
        problems.append(Problem("<arguments>", None, judges_flag, f"--gold needs {judges_flag} FILE..."))
    return problems


def load_sweep_inputs(args, judge_files, problems: list[Problem]) -> SweepInputs:
    """The sweep's records: from --project or from --gold and `judge_files` (one input path)."""
    if args.project:
        return inputs_from_project_dir(args.project, problems)
    return inputs_from_files(args.gold, judge_files, problems)


def sweep_with_args(args, inputs: SweepInputs, judges) -> SweepReport:
    """`run_sweep` of `judges` (the inputs' or a subset) with the shared options. InputError passes."""
    return run_sweep(
        inputs.gold,
        judges,
        modes=PRECISION_MODES if args.precision == "all" else (args.precision,),
        humans=inputs.humans,
        n_boot=args.bootstrap,
        folds=args.folds,
        seed=args.seed,
        epsilon=args.epsilon,
    )


def cmd_sweep(args) -> int:
    """Load records, run the sweep, print; any bad input → every problem on stderr, exit 2."""
    problems = sweep_argument_problems(args, args.judges, "--judges")
    report = None
    if not problems:
        inputs = load_sweep_inputs(args, args.judges, problems)
    if not problems:
        try:
            report = sweep_with_args(args, inputs, inputs.judges)
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return 2
    print(json.dumps(report.to_dict(), allow_nan=False) if args.json else format_sweep_table(report))
    return 0
