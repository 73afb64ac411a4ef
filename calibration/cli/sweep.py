"""`python -m calibration sweep`: read gold, annotators and judges, run the sweep, print it.

Records come from a project (`--project DIR`) or from files (`--gold FILE --judges FILE...`);
in a file each record's own `source` decides its role: `gold` and `human:*` belong in the
gold file (annotators are compared too), `judge:*` (or `human:*`, to isolate a stage) in the
judge files; a metric file is accepted as a judge named 'judge:<file stem>'.
Exit codes: 0 done, 2 bad input (every problem on stderr, nothing on stdout).
"""

from __future__ import annotations

import json
import math
import sys

from annotation.protocol.errors import InputError, Problem
from calibration.scoring.murgat_s import PRECISION_MODES
from calibration.sweep.inputs import inputs_from_files, inputs_from_project_dir
from calibration.sweep.run import SweepReport, run_sweep


def add_sweep_parser(subparsers) -> None:
    """Register `sweep` on an argparse subparsers object; the handler is `args.func`."""
    parser = subparsers.add_parser(
        "sweep",
        help="which judge configuration tracks human gold best, and how sure we are",
        description="Correlate every judge source × precision mode with gold MURGAT-S: Pearson r with a "
        "paired-bootstrap 95%% CI, Spearman, Kendall, held-out r from k-fold selection, "
        "Williams' test against the best (Holm-adjusted). Prints a table sorted by held-out r, "
        "or one JSON object with --json.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--project", metavar="DIR", help="project directory (gold, human:* and judge:* records)"
    )
    where.add_argument("--gold", metavar="FILE", help="records file with the gold records (and human:* ones)")
    parser.add_argument(
        "--judges", nargs="+", metavar="FILE", help="judge records or metric files (with --gold)"
    )
    parser.add_argument(
        "--precision",
        choices=(*PRECISION_MODES, "all"),
        default="all",
        help="precision mode(s) to sweep (default: all)",
    )
    parser.add_argument(
        "--bootstrap", type=int, default=2000, metavar="N", help="bootstrap resamples (default 2000)"
    )
    parser.add_argument(
        "--folds", type=int, default=5, metavar="K", help="cross-validation folds (default 5)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="seed for resamples and folds (default 0)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.set_defaults(func=cmd_sweep)


def _number(value: float, digits: int = 3) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def format_sweep_table(report: SweepReport) -> str:
    """The report as text: configurations by held-out r (undefined last), then the verdicts."""
    header = (
        "source",
        "mode",
        "n",
        "r",
        "95% CI",
        "rho",
        "tau",
        "held-out r",
        "MAE",
        "score",
        "gold",
        "p vs best",
        "~best",
    )
    order = sorted(
        report.configs,
        key=lambda c: (
            not math.isfinite(c.heldout_pearson),
            -c.heldout_pearson if math.isfinite(c.heldout_pearson) else 0.0,
        ),
    )
    body = []
    for c in order:
        flag = (
            "best"
            if c is report.best
            else {True: "yes", False: "no", None: "?"}[c.indistinguishable_from_best]
        )
        p = (
            ""
            if c is report.best
            else _number(c.p_vs_best, 4) + (" (boot)" if c.p_vs_best_test == "bootstrap" else "")
        )
        body.append(
            (
                c.source,
                c.precision_mode,
                str(c.n),
                _number(c.pearson),
                f"[{_number(c.pearson_ci[0])}, {_number(c.pearson_ci[1])}]",
                _number(c.spearman),
                _number(c.kendall),
                _number(c.heldout_pearson),
                _number(c.mae),
                _number(c.system_score),
                _number(c.gold_system_score),
                p,
                flag,
            )
        )
    widths = [max(len(row[i]) for row in (header, *body)) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(w) if i < 2 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in (header, *body)
    ]
    s = report.selection
    lines.append("")
    if report.best is not None:
        b = report.best
        lines.append(
            f"best: {b.name}  held-out r {_number(b.heldout_pearson)}, r {_number(b.pearson)} "
            f"[{_number(b.pearson_ci[0])}, {_number(b.pearson_ci[1])}], n {b.n}"
        )
    else:
        lines.append("best: none — no configuration has a defined correlation")
    lines.append(
        f"selection ({report.settings['folds_used']}-fold): in-sample r {_number(s['in_sample_r'])}, "
        f"held-out r {_number(s['heldout_r'])}, optimism {_number(s['optimism'])}"
    )
    for mode, value in report.human_ceiling.items():
        lines.append(f"human ceiling [{mode}] (leave-one-annotator-out r): {_number(value)}")
    for c in report.configs:
        if c.undefined_reason:
            lines.append(f"{c.name}: r undefined — {c.undefined_reason}")
    for source in report.sources:
        if source["missing"]:
            shown = ", ".join(source["missing"][:10]) + (" …" if len(source["missing"]) > 10 else "")
            lines.append(f"{source['source']}: missing {len(source['missing'])} gold responses: {shown}")
    lines += [f"note: {note}" for note in report.notes]
    lines.append(
        f"p vs best: one-sided Williams' test (Holm-adjusted); '(boot)' = paired bootstrap, used "
        f"across modes whose gold scores differ; ~best = not significantly worse at "
        f"alpha {report.settings['alpha']}"
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
    if args.project and judge_files:
        problems.append(
            Problem("<arguments>", None, judges_flag, f"{judges_flag} goes with --gold, not --project")
        )
    if args.gold and not judge_files:
        problems.append(Problem("<arguments>", None, judges_flag, f"--gold needs {judges_flag} FILE..."))
    return problems


def cmd_sweep(args) -> int:
    """Load records, run the sweep, print; any bad input → every problem on stderr, exit 2."""
    problems = sweep_argument_problems(args, args.judges, "--judges")
    if not problems:
        if args.project:
            gold, humans, judges = inputs_from_project_dir(args.project, problems)
        else:
            gold, humans, judges = inputs_from_files(args.gold, args.judges, problems)
    report = None
    if not problems:
        modes = PRECISION_MODES if args.precision == "all" else (args.precision,)
        try:
            report = run_sweep(
                gold,
                judges,
                modes=modes,
                humans=humans,
                n_boot=args.bootstrap,
                folds=args.folds,
                seed=args.seed,
            )
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return 2
    print(json.dumps(report.to_dict(), allow_nan=False) if args.json else format_sweep_table(report))
    return 0
