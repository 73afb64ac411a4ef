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
from calibration.estimates.planning import ASSURANCE
from calibration.scoring.murgat_s import PRECISION_MODES
from calibration.stats.numbers import interval, number, share

NO_MODEL = "(no model)"


def add_estimate_parser(subparsers) -> None:
    """Register `estimate` on an argparse subparsers object; the handler is `args.func`."""
    parser = subparsers.add_parser(
        "estimate",
        help="model scores with confidence intervals (prediction-powered inference)",
        description="Per model: the judge's mean over every judged response (biased: no CI), the "
        "human-only mean over the gold subset with its CI, and the PPI++ mean (power-tuned "
        "lambda) with its CI and effective-sample-size gain, and the correction PPI++ − judge-only; "
        "pairwise differences (paired when two models answered the same questions). CIs are t "
        "intervals that held their level from 8 gold responses a model on in simulation "
        "(benchmarks/ppi_coverage.py); with fewer a model gets its means and no CI. Undetermined "
        "responses are left out.",
    )
    parser.add_argument("--project", required=True, metavar="DIR", help="project directory")
    parser.add_argument(
        "--source",
        metavar="judge:NAME",
        help="the judge whose scores are corrected (default: the judge source with the most responses; "
        "not with --calibrated, which names it)",
    )
    parser.add_argument(
        "--precision",
        choices=PRECISION_MODES,
        help="precision mode (default individual; not with --calibrated, which names it)",
    )
    parser.add_argument(
        "--calibrated",
        metavar="FILE",
        help="the calibrated configuration (from `export`): its judge and precision mode are estimated "
        "(so not with --source or --precision); "
        "when it was chosen on gold responses the estimate uses too, each model's PPI++ mean is "
        "cross-fitted (chosen on 4 of 5 folds of the gold, corrected on the fifth: gold used once) "
        "and the output says so",
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
        help="how many more gold responses each model needs to reach a PPI CI of this half-width "
        "with 80%% probability (the probability is printed)",
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
    if args.calibrated is not None:  # it names both: either given too would be silently overridden
        for flag, value, what in (
            ("--source", args.source, "judge"),
            ("--precision", args.precision, "precision mode"),
        ):
            if value is not None:
                found.append((flag, f"not with --calibrated: the calibrated configuration names the {what}"))
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
    from annotation.state import project_state
    from calibration.estimates.inputs import scored_responses
    from calibration.estimates.models import estimate_models, model_samples
    from calibration.estimates.planning import create_plan_queue, plan_more_gold

    calibrated = None
    if args.calibrated is not None:
        from annotation.protocol.errors import InputError
        from calibration.config.calibrated import read_calibrated_config

        try:
            calibrated = read_calibrated_config(args.calibrated)
        except InputError as exc:
            problems.extend(exc.problems)
            return None
        args.source, args.precision = calibrated.source, calibrated.precision_mode
    elif args.precision is None:
        args.precision = "individual"
    source = _chosen_source(store, args.source, problems)
    if source is None:
        return None
    try:
        rows = scored_responses(store, source, args.precision)
    except ValueError as exc:
        problems.append(Problem(str(store.directory), None, "records", str(exc)))
        return None
    report = estimate_models(rows, args.metric, args.alpha, judge=source, precision=args.precision)
    if calibrated is not None:
        report = _gold_used_once(store, calibrated, rows, report, args, notes)
    by_model = model_samples(rows, args.metric)
    samples = [by_model[m.model] for m in report.models]
    waiting = project_state(store).gold.awaiting_note()
    if waiting:
        notes.append(f"note: gold: {waiting} (here they count as not labelled)")
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


def _gold_used_once(store, calibrated, rows, report, args, notes: list[str]):
    """The report with cross-fitted PPI++ means where the calibrated configuration was chosen on
    gold this estimate uses (its evidence names those responses), and a note saying which."""
    from calibration.estimates.crossfit import cross_fit_report
    from calibration.estimates.inputs import judge_sources, scored_responses

    used = set(calibrated.evidence.get("gold", {}).get("response_ids") or [])
    labelled = {r.response_id for r in rows if r.gold is not None}
    if not used & labelled:
        notes.append(
            "note: gold used once — the calibrated configuration was chosen on other gold responses "
            + (
                "(its evidence names them)"
                if used
                else "(its evidence does not name them: export it again to check)"
            )
            + "; PPI++ as usual"
        )
        return report
    modes = calibrated.evidence.get("settings", {}).get("modes") or PRECISION_MODES
    candidates = {f"{s} [{m}]": scored_responses(store, s, m) for s, _ in judge_sources(store) for m in modes}
    report, outcomes = cross_fit_report(report, rows, candidates, used, args.metric, args.alpha)
    notes.extend(_cross_fit_note(model, outcome, len(used)) for model, outcome in outcomes.items())
    return report


def _cross_fit_note(model: str | None, outcome, n_used: int) -> str:
    """The note on one model's PPI++ mean: how many of its own gold responses the configuration
    (chosen on `n_used` in all) was chosen on, and whether, how or why not it was cross-fitted."""
    from calibration.estimates.crossfit import MIN_GOLD

    chosen = (
        f"{outcome.chosen_on} of its {outcome.gold} gold responses are among the {n_used} the "
        "configuration was chosen on"
    )
    if outcome.cross_fitted:
        how = (
            f"PPI++ cross-fitted (chosen by highest r on {outcome.folds - 1} of {outcome.folds} folds "
            f"among the {len(outcome.candidates)} configurations that score all its responses, corrected "
            "on the held-out fold; Zrnic & Candès 2024): gold used once; differences are not cross-fitted"
        )
    elif not outcome.chosen_on:
        how = "PPI++ as usual: gold used once"
    elif not outcome.candidates:
        how = "not cross-fitted: no candidate configuration scores all its responses (gold used twice)"
    else:
        how = f"not cross-fitted: two folds need {MIN_GOLD} gold responses (gold used twice)"
    return f"note: {model or NO_MODEL}: {chosen} — {how}"


def cmd_estimate(args) -> int:
    """Estimate, print; bad input → every problem on stderr, exit 2."""
    from annotation.store.project_store import NoProjectError, ProjectStore

    problems = _argument_problems(args)
    if problems:
        _print_problems(problems)
        return 2
    try:
        store = ProjectStore.open(args.project)
    except NoProjectError as exc:
        _print_problems([Problem(args.project, None, None, exc.problem)])
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


def _interval(estimate) -> str:
    if estimate is None:
        return "—"
    if estimate.ci is None:
        return f"{number(estimate.mean)} [no CI]"
    return f"{number(estimate.mean)} {interval(*estimate.ci)}"


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
        (*header, "correction", "lambda", "ESS gain"),
        [
            (
                m.model or NO_MODEL,
                str(m.n_judged),
                str(m.n_human),
                number(m.judge_mean),
                _interval(m.human),
                _interval(m.ppi),
                number(m.correction),
                number(None if m.ppi is None else m.ppi.lam, 2),
                "—" if m.ess_gain is None else f"{number(m.ess_gain, 2)}x",
            )
            for m in report.models
        ],
    )


def format_estimate_tables(report, plan) -> str:
    """The models, the differences and the plan as text tables."""
    lines = [
        *_models_table(report),
        "* judge-only means inherit the judge's systematic error: no CI is claimed. correction = "
        "PPI++ − judge-only: what the gold changes.",
        *[f"{m.model or NO_MODEL}: no CI — {m.no_ci_reason}" for m in report.models if m.no_ci_reason],
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
                share(r.assurance),
                str(r.unlabelled),
            )
            for r in plan
        ]
        lines += [
            "",
            *_table(("model", "more gold needed", "P(reaching it)", "unlabelled"), rows),
            f"more gold needed: the fewest that reach the half-width with probability ≥ {share(ASSURANCE)} "
            "(P(reaching it): that probability at the planned count; at all the unlabelled when out of reach)",
        ]
    return "\n".join(lines)
