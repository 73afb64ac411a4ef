"""`python -m calibration estimate`: every model's mean MURGAT-S (or a part) three ways —
judge-only (biased, no CI claimed), human-only over the gold subset, and prediction-powered
(PPI++) — the pairwise differences, and with `--plan` the gold each model still needs for a
target CI half-width (`--queue NAME` stores a stratified random sample of it as an annotation
queue). `--json` prints one object: {models: […], differences: […]} (+ plan), keys as
`calibration.estimates.models` writes them.
Exit codes: 0 done, 2 bad input (every problem on stderr, nothing on stdout).
"""

from __future__ import annotations

import json
import math
import sys

from annotation.cli.options import finite_float
from annotation.protocol.errors import Problem
from calibration.estimates.inputs import METRIC_NAMES, METRICS
from calibration.scoring.murgat_s import PRECISION_MODES

NO_MODEL = "(no model)"


def add_estimate_parser(subparsers) -> None:
    """Register `estimate` on an argparse subparsers object; the handler is `args.func`."""
    parser = subparsers.add_parser(
        "estimate",
        help="model scores with valid confidence intervals (prediction-powered inference)",
        description="Per model: the judge's mean over every judged response (biased: no CI), the "
        "human-only mean over the gold subset with its CI, and the PPI++ mean (power-tuned "
        "lambda) with its CI and effective-sample-size gain; pairwise differences (paired when "
        "two models answered the same questions). Undetermined responses are left out.",
    )
    parser.add_argument("--project", required=True, metavar="DIR", help="project directory")
    parser.add_argument(
        "--source",
        metavar="judge:NAME",
        help="the judge whose scores are corrected (default: the judge source with the most responses)",
    )
    parser.add_argument(
        "--precision",
        choices=PRECISION_MODES,
        default="individual",
        help="precision mode (default individual)",
    )
    parser.add_argument(
        "--metric", choices=METRICS, default="murgat_s", help="what to estimate (default murgat_s)"
    )
    parser.add_argument(
        "--alpha", type=finite_float, default=0.05, help="error level: (1 − alpha) CIs (default 0.05)"
    )
    parser.add_argument(
        "--plan",
        type=finite_float,
        metavar="HALF_WIDTH",
        help="how many more gold responses each model needs for a PPI CI of this half-width",
    )
    parser.add_argument(
        "--queue",
        metavar="NAME",
        help="with --plan: store a stratified random sample of the responses to label as annotation queue NAME",
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="seed of the --queue sample (default 0)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    parser.set_defaults(func=cmd_estimate)


def _argument_problems(args) -> list[Problem]:
    found = []
    if not 0 < args.alpha < 1:
        found.append(("--alpha", f"must lie in (0, 1), got {args.alpha}"))
    if args.plan is not None and not (math.isfinite(args.plan) and args.plan > 0):
        found.append(("--plan", f"the half-width must be a positive number, got {args.plan}"))
    if args.queue is not None and args.plan is None:
        found.append(("--queue", "goes with --plan (the sample is drawn from the plan)"))
    if args.queue is not None and not args.queue.strip():
        found.append(("--queue", "must name the queue"))
    return [Problem("<arguments>", None, flag, message) for flag, message in found]


def _chosen_source(store, wanted: str | None, problems: list[Problem]) -> str | None:
    from calibration.estimates.inputs import judge_sources

    sources = dict(judge_sources(store))
    if not sources:
        problems.append(Problem(str(store.directory), None, "source", "the project has no judge records yet"))
        return None
    if wanted is None:
        return next(iter(sources))
    if wanted not in sources:
        problems.append(
            Problem(
                "<arguments>",
                None,
                "--source",
                f"no records from '{wanted}'; the project has: {', '.join(sources)}",
            )
        )
        return None
    return wanted


def run_estimate(store, args, problems: list[Problem], notes: list[str]):
    """(source, report, samples in report order, plan or None); problems are appended instead."""
    from calibration.estimates.inputs import scored_responses
    from calibration.estimates.models import estimate_models, model_samples
    from calibration.estimates.planning import create_plan_queue, plan_more_gold

    source = _chosen_source(store, args.source, problems)
    if source is None:
        return None
    try:
        rows = scored_responses(store, source, args.precision)
    except ValueError as exc:
        problems.append(Problem(str(store.directory), None, "records", str(exc)))
        return None
    report = estimate_models(rows, args.metric, args.alpha)
    by_model = model_samples(rows, args.metric)
    samples = [by_model[m.model] for m in report.models]
    for sample in samples:
        if sample.n_left_out:
            notes.append(
                f"note: {sample.model or NO_MODEL}: {sample.n_left_out} response(s) left out "
                "(undetermined, or not judged by this source)"
            )
    plan = None if args.plan is None else plan_more_gold(samples, args.plan, args.alpha)
    if args.queue is not None:
        try:
            summary = create_plan_queue(store, args.queue, samples, plan, args.seed)
        except ValueError as exc:
            problems.append(Problem("<arguments>", None, "--queue", str(exc)))
            return None
        counts = ", ".join(f"{model or NO_MODEL}: {n}" for model, n in summary.strata.items())
        notes.append(f"queue '{summary.name}' created: {summary.size} response(s) to label ({counts})")
    return source, report, samples, plan


def cmd_estimate(args) -> int:
    """Estimate, print; bad input → every problem on stderr, exit 2."""
    from annotation.store.project_store import ProjectStore

    problems = _argument_problems(args)
    if problems:
        _print_problems(problems)
        return 2
    try:
        store = ProjectStore.open(args.project)
    except FileNotFoundError as exc:
        _print_problems([Problem(args.project, None, None, str(exc).removeprefix(f"{args.project}: "))])
        return 2
    notes: list[str] = []
    try:
        result = run_estimate(store, args, problems, notes)
    finally:
        store.close()
    if problems:
        _print_problems(problems)
        return 2
    source, report, _, plan = result
    print(f"note: {METRIC_NAMES[args.metric]} of {source} [{args.precision}]", file=sys.stderr)
    for note in notes:
        print(note, file=sys.stderr)
    if args.json:
        out = report.to_dict()
        if plan is not None:
            out["plan"] = [row.to_dict() for row in plan]
        print(json.dumps(out))
    else:
        print(format_estimate_tables(report, plan))
    return 0


def _print_problems(problems: list[Problem]) -> None:
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)


def _number(value, digits: int = 3) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _interval(estimate) -> str:
    if estimate is None:
        return "—"
    return f"{_number(estimate.mean)} [{_number(estimate.ci[0])}, {_number(estimate.ci[1])}]"


def _table(header: tuple, body: list[tuple]) -> list[str]:
    widths = [max(len(row[i]) for row in (header, *body)) for i in range(len(header))]
    return [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in (header, *body)
    ]


def _models_table(report) -> list[str]:
    level = f"{100 * (1 - report.alpha):g} %"
    header = ("model", "judged", "gold", "judge-only*", f"human-only [{level} CI]", f"PPI++ [{level} CI]")
    return _table(
        (*header, "lambda", "ESS gain"),
        [
            (
                m.model or NO_MODEL,
                str(m.n_judged),
                str(m.n_human),
                _number(m.judge_mean),
                _interval(m.human),
                _interval(m.ppi),
                _number(None if m.ppi is None else m.ppi.lam, 2),
                "—" if m.ess_gain is None else f"{m.ess_gain:.2f}x",
            )
            for m in report.models
        ],
    )


def format_estimate_tables(report, plan) -> str:
    """The models, the differences and the plan as text tables."""
    lines = [
        *_models_table(report),
        "* judge-only means inherit the judge's systematic error: no CI is claimed.",
    ]
    if report.differences:
        rows = [
            (
                f"{d.a or NO_MODEL} − {d.b or NO_MODEL}",
                "paired" if d.paired else "independent",
                _interval(d.estimate),
            )
            for d in report.differences
        ]
        lines += ["", *_table(("difference", "design", f"PPI [{100 * (1 - report.alpha):g} % CI]"), rows)]
    if plan is not None:
        rows = [
            (
                r.model or NO_MODEL,
                "out of reach" if r.more_gold_needed is None else str(r.more_gold_needed),
                str(r.unlabelled),
            )
            for r in plan
        ]
        lines += ["", *_table(("model", "more gold needed", "unlabelled"), rows)]
    return "\n".join(lines)
