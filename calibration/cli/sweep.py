"""`python -m calibration sweep`: read gold, annotators and judges, run the sweep, print it.

Records come from a project (`--project DIR`: `calibration.sweep.inputs.inputs_from_project`, the
Calibrate page's input path) or from files (`--gold FILE --judges FILE...`, e.g. one
`python -m annotation export --source all` file for both); in a file each record's own `source`
decides its role (gold, human:*, judge:*); a metric file is accepted as a judge named
'judge:<file stem>'. Same records and options, same numbers.
Exit codes: 0 done, 2 bad input (every problem on stderr, nothing on stdout).
"""

from __future__ import annotations

import gc
import json
import math
import sys

from annotation.cli.options import finite_float
from annotation.protocol.errors import InputError, Problem
from annotation.store.bulk import without_cycle_collection
from calibration.scoring.murgat_s import PRECISION_MODES
from calibration.stats.numbers import interval, number, share
from calibration.sweep.inputs import SweepInputs, inputs_from_files, inputs_from_project_dir
from calibration.sweep.parity import DEFAULT_EPSILON, PARITY_MINIMUM, PARITY_WARNING, annotators_tested
from calibration.sweep.run import SweepReport, run_sweep
from calibration.sweep.verdict import decision


def add_sweep_parser(subparsers) -> None:
    """Register `sweep` on an argparse subparsers object; the handler is `args.func`."""
    parser = subparsers.add_parser(
        "sweep",
        help="which judge configuration tracks human gold best, and how sure we are",
        description="Correlate every judge source × precision mode with gold MURGAT-S over the responses "
        "where both are determined (undetermined ones are counted and left out, never 0): Pearson r "
        "with a 95%% CI (Fisher z, jackknife standard error), Spearman and Kendall (their percentile "
        "bootstrap CIs with --rank-intervals). The first line says whether the gold can decide: it cannot when the 95%% "
        "confidence set of the best holds more than half of the configurations or the best's r CI "
        "includes 0, and then it says how many more gold responses would be expected to separate the "
        "top two. The best is the highest full-sample r; the 95%% confidence set of best "
        "configurations is Hansen-Lunde-Nason's model confidence set on paired-bootstrap r, with each "
        "configuration's bootstrap win share (the share of resamples in which it has the highest r); "
        "the expected r of choosing the highest r on responses it was not chosen on comes from nested "
        "cross-validation with a pooled within-fold correlation, with a bootstrap SE. Human parity compares each configuration with each annotator against the mean "
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
    parser.add_argument(
        "--rank-intervals",
        action="store_true",
        help="with --json, also give every configuration's Spearman and Kendall percentile bootstrap "
        "intervals (spearman_ci, kendall_ci): two more bootstraps, about a quarter of the sweep's time "
        "at 4,000 gold responses (the Calibrate page and `export` work out the chosen one's)",
    )
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
        help="paired bootstrap resamples for the confidence set, the win shares and rank-correlation "
        "CIs (default 2000)",
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
        help=f"human parity margin, in r: a judge wins against an annotator when its r against the "
        f"other annotators' mean is shown to be no more than E below the annotator's (default "
        f"{DEFAULT_EPSILON}; Calderon et al.'s test puts its margin on a win rate and asks 50–100 "
        f"responses: here the margin is on r, and below {PARITY_MINIMUM} responses parity is flagged "
        "as unreliable)",
    )


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
            number(c.pearson),
            interval(*c.pearson_ci),
            number(c.spearman),
            number(c.kendall),
            number(c.mae),
            number(c.system_score),
            number(c.gold_system_score),
            share(c.p_best),
            "best" if c is report.best else ("yes" if c.in_best_set else "no"),
            number(c.parity["advantage"]),
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
    "win share",
    "in set",
    "parity",
)


def _verdict_lines(report: SweepReport) -> list[str]:
    s, lines = report.selection, []
    if report.best is None:
        return ["best: none — no configuration has a defined correlation"]
    b = report.best
    lines.append(
        f"best (highest r): {b.name}  r {number(b.pearson)} {interval(*b.pearson_ci)}, n {b.n}, "
        f"bootstrap win share {share(b.p_best)}"
    )
    lines.append(
        f"95% confidence set of the best ({len(report.best_set)} of {len(report.configs)}): "
        + ", ".join(f"{m['source']} [{m['precision_mode']}]" for m in report.best_set)
    )
    lines.append(
        f"expected r of the rule 'take the highest r', on responses it was not chosen on ({s['folds']}-fold "
        f"nested cross-validation × {s['repeats']}, pooled): {number(s['expected_r'])} ± "
        f"{number(s.get('expected_r_se'))} (bootstrap SE); the rule's pick on all the gold, "
        f"{s.get('pick') or '—'}, has in-sample r {number(s['in_sample_r'])}, optimism {number(s['optimism'])}"
    )
    p = b.parity
    if p["reason"]:
        lines.append(f"human parity of {b.name}: none — {p['reason']}")
    else:
        lines.append(
            f"human parity of {b.name} (margin ε = {p['epsilon']} in r): mean advantage r(judge) − "
            f"r(annotator) {number(p['advantage'])} {interval(*p['advantage_ci'])}, winning rate "
            f"{share(p['winning_rate'])} over {annotators_tested(p)} annotator(s) tested (the judge may replace "
            "annotators at ≥ 0.5)"
        )
        if report.gold.get("n_responses", 0) < PARITY_MINIMUM:
            lines.append(PARITY_WARNING.format(n=report.gold.get("n_responses", 0)))
    return lines


def format_sweep_table(report: SweepReport) -> str:
    """The report as text: configurations by r (undefined last), then the verdict and notes."""
    lines = [decision(report).sentence, ""]
    lines += _aligned([HEADER, *_table_rows(report)])
    lines += ["", *_verdict_lines(report)]
    for row in report.annotators:
        lines.append(
            f"{row['source']} [{row['precision_mode']}]: r vs the other annotators' mean "
            f"{number(row['r_vs_gold_without'])} (n {row['n']} of the {row['n_finished']} gold responses they finished)"
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
        "undet. = responses whose judge MURGAT-S is undetermined (left out); win share = the share of "
        "bootstrap resamples in which the configuration has the highest r (how often it wins when the "
        "responses are redrawn — not the probability that it is the best: among equal configurations "
        "the winner's share is far above 1/k); in set = in the 95% confidence set of the best; parity = "
        "mean advantage over annotators (see human parity)"
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


def sweep_with_args(args, inputs: SweepInputs, rank_intervals_now=False) -> SweepReport:
    """`run_sweep` of the inputs with the shared options (`rank_intervals_now` as run_sweep's).
    InputError passes."""
    return run_sweep(
        inputs.gold,
        inputs.judges,
        modes=PRECISION_MODES if args.precision == "all" else (args.precision,),
        humans=inputs.humans,
        n_boot=args.bootstrap,
        folds=args.folds,
        seed=args.seed,
        epsilon=args.epsilon,
        judged=inputs.judged,
        rank_intervals_now=rank_intervals_now,
        judge_forms=inputs.judge_forms,
        awaiting_gold=inputs.awaiting_gold,
    )


def cmd_sweep(args) -> int:
    """Load records, run the sweep, print; any bad input → every problem on stderr, exit 2."""
    # the command's objects (a project's state, records, the report) hold no cycles that matter in a
    # process that ends with it: the cyclic collector would walk them again and again for nothing
    with without_cycle_collection():
        code = _sweep_command(args)
        # and what it keeps (judge records, scores) stays until the process ends: with the collector
        # back on, its first pass would walk all of it, made while it was off (≈ 0.5 CPU s at 4,000
        # gold responses), so it is frozen first, as a command's end freezes everything
        gc.freeze()
        return code


def _sweep_command(args) -> int:
    problems = sweep_argument_problems(args, args.judges, "--judges")
    report = None
    if not problems:
        inputs = load_sweep_inputs(args, args.judges, problems)
    if not problems:
        try:
            # --json --rank-intervals prints every configuration's: worked out with the sweep's resamples
            rank_intervals = args.json and args.rank_intervals
            report = sweep_with_args(args, inputs, rank_intervals_now=rank_intervals)
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return 2
    print(
        json.dumps(report.to_dict(rank_intervals), allow_nan=False)
        if args.json
        else format_sweep_table(report)
    )
    return 0
