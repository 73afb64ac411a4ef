"""`python -m calibration judge …`: run MLLM judge configurations over a project.

    judge run      --project DIR --judges FILE.toml --config V+D+E [--config …]
                   [--responses gold|all] [--concurrency N] [--max-calls N] [--max-cost USD] [--dry-run]
    judge assemble --project DIR --judges FILE.toml --config V+D+E …   (records from the cache, no calls)
    judge list     --judges FILE.toml [--project DIR]                   (judges, and cached calls)

Exit codes: 0 every selected response got its record; 1 some did not (failed calls, budget,
stop: rerun to continue, nothing answered is asked again); 2 bad input (every problem on
stderr); 130 interrupted with Ctrl-C (what finished is kept). API keys are never printed.
"""

from __future__ import annotations

import sys
import threading

from annotation.cli.options import finite_float
from annotation.protocol.errors import InputError


def add_judge_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "judge",
        help="run MLLM judge configurations over a project",
        description="Run candidate judge configurations (verifier + decomposer + "
        "entailment judge) over a project's responses; calls are "
        "cached in the project, so reruns cost nothing.",
    )
    commands = parser.add_subparsers(dest="judge_command", required=True)

    def common(sub, *, project_required=True):
        sub.add_argument("--project", required=project_required, metavar="DIR", help="project directory")
        sub.add_argument(
            "--judges", required=True, metavar="FILE.toml", help="judges file ([judges.NAME] tables)"
        )

    run = commands.add_parser(
        "run",
        help="make the calls and store the records",
        description="Each --config is V+D+E: judge names from the judges file, or "
        "'gold' for the gold labels of that stage. Records are stored "
        "with source judge:V+D+E and exported by `annotation export`.",
    )
    common(run)
    run.add_argument("--config", action="append", required=True, metavar="V+D+E", help="repeatable")
    run.add_argument(
        "--responses",
        default="gold",
        choices=("gold", "all"),
        help="responses with a gold record (default) or all responses",
    )
    run.add_argument(
        "--concurrency", type=int, default=8, metavar="N", help="calls in flight at most (default 8)"
    )
    run.add_argument("--max-calls", type=int, default=None, metavar="N", help="stop after N new calls")
    run.add_argument(
        "--max-cost", type=finite_float, default=None, metavar="USD", help="stop before spending more"
    )
    run.add_argument(
        "--dry-run", action="store_true", help="count the calls needed and their cost; call nothing"
    )
    run.add_argument("--no-progress", action="store_true", help="no progress bar")

    assemble = commands.add_parser("assemble", help="rebuild the records from cached calls (zero calls)")
    common(assemble)
    assemble.add_argument("--config", action="append", required=True, metavar="V+D+E")
    assemble.add_argument("--responses", default="gold", choices=("gold", "all"))

    listing = commands.add_parser("list", help="the configured judges (no keys) and cached calls")
    common(listing, project_required=False)
    parser.set_defaults(func=cmd_judge)


def _problems(exc: InputError) -> int:
    for problem in exc.problems:
        print(f"error: {problem}", file=sys.stderr)
    return 2


def cmd_judge(args) -> int:
    from annotation.store.project_store import NoProjectError, ProjectStore
    from calibration.judges.judges_file import load_judges, parse_configuration

    try:
        judges = load_judges(args.judges)
        configurations = []
        for text in getattr(args, "config", None) or []:
            configurations.append(parse_configuration(text, judges))
        if getattr(args, "concurrency", 1) < 1:
            raise InputError("must be at least 1", field="--concurrency")
        store = None
        if args.project:
            try:
                store = ProjectStore.open(args.project)
            except NoProjectError as exc:
                raise InputError(exc.problem, path=args.project, field="--project") from None
        if args.judge_command == "list":
            return _list(judges, store)
        if args.judge_command == "assemble":
            return _assemble(store, judges, configurations, args)
        return _run(store, judges, configurations, args)
    except InputError as exc:
        return _problems(exc)


def _list(judges, store) -> int:
    for judge in judges.values():
        key = f"key from ${judge.api_key_env}" if judge.api_key_env else "no key"
        urls = ", ".join(judge.base_urls) or "(default endpoint)"
        print(
            f"{judge.name}: {judge.adapter} {judge.model} at {urls}; {key}; "
            f"max {judge.max_concurrency} at once; ${judge.price_in_per_1k:g}/${judge.price_out_per_1k:g} per 1k in/out"
        )
    if store is not None:
        from calibration.judges.cache import CallCache

        for row in CallCache(store).totals():
            print(
                f"  cached {row['judge']} {row['stage']}: {row['answered']} answered, {row['failed']} failed, "
                f"{row['tokens_in'] or 0} tokens in, {row['tokens_out'] or 0} out, ${row['cost'] or 0:.4f}"
            )
    return 0


def _print_plan(plan) -> None:
    print(f"configurations: {', '.join(plan.configurations)}; {plan.pipelines} response run(s)")
    for stage, counts in plan.by_stage.items():
        estimated = (
            f", about {counts['estimated']:.0f} more once earlier answers are known"
            if counts["estimated"]
            else ""
        )
        print(f"  {stage}: {counts['needed']} call(s) needed, {counts['cached']} cached{estimated}")
    for name, counts in plan.by_judge.items():
        print(
            f"  judge {name}: {counts['needed']} needed + ~{counts['estimated']:.0f} estimated, "
            f"estimated cost ${counts['cost']:.4f}"
        )
    print(
        f"total: {plan.needed} call(s) known to be needed, ~{plan.calls_to_make} in all; "
        f"estimated cost ${plan.estimated_cost:.4f}"
    )
    for config_id, response_id, reason in plan.skipped:
        print(f"  skipped {config_id} on {response_id}: {reason}")


def _print_report(report) -> None:
    from calibration.judges.pipeline import undetermined_reasons

    print(
        f"calls made {report.calls_made}, cache hits {report.cache_hits}, failed {report.failed}, "
        f"retries {report.retries}; tokens {report.tokens_in} in / {report.tokens_out} out; "
        f"cost ${report.cost:.4f}; {report.elapsed_s:.1f} s"
    )
    if report.call_errors:  # why calls failed, whatever else stopped the run
        print(f"failed calls ({report.failed}), by error:")
        for error, count in sorted(report.call_errors.items(), key=lambda item: -item[1]):
            print(f"  {count} × {error}")
    print(f"records: {len(report.records)} complete, {report.records_written} new or changed stored")
    unread = undetermined_reasons(report.records)
    if unread:  # the run went through, but these values are null: say so, not only in the records
        print(
            f"values the judges' answers did not give ({sum(unread.values())}; null in the records: a null "
            "'verifiable' scores as not verifiable, another null leaves its fact undetermined), by reason:"
        )
        for reason, count in unread.most_common(5):
            print(f"  {count} × {reason}")
        if len(unread) > 5:
            print(f"  … and {len(unread) - 5} other reason(s)")
    if report.stopped:
        print(f"stopped early: {report.stopped}")
    if report.incomplete:
        print(f"left without a record ({len(report.incomplete)}); rerun to continue:")
        for config_id, response_id, reason in report.incomplete[:50]:
            print(f"  {config_id} on {response_id}: {reason}")
        if len(report.incomplete) > 50:
            print(f"  … and {len(report.incomplete) - 50} more")


def _assemble(store, judges, configurations, args) -> int:
    from calibration.judges.runner import assemble_records

    report = assemble_records(store, judges, configurations, responses=args.responses)
    _print_report(report)
    return 1 if report.incomplete else 0


def _run(store, judges, configurations, args) -> int:
    from calibration.judges.plan import plan_run
    from calibration.judges.runner import run_configurations

    plan = plan_run(store, judges, configurations, responses=args.responses)
    _print_plan(plan)
    if args.dry_run:
        return 0
    stop = threading.Event()
    bar = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=plan.calls_to_make, unit="call", file=sys.stderr, dynamic_ncols=True)

    def progress(state) -> None:
        if bar is None:
            return
        if state.calls_done > bar.total:
            bar.total = state.calls_done + state.calls_left
        bar.n = state.calls_done
        bar.set_postfix_str(
            f"left ~{state.calls_left} hits {state.cache_hits} failed {state.failed} "
            f"${state.cost:.4f} responses {state.pipelines_done}/{state.pipelines_total}",
            refresh=True,
        )

    report = run_configurations(
        store,
        judges,
        configurations,
        responses=args.responses,
        concurrency=args.concurrency,
        max_calls=args.max_calls,
        max_cost=args.max_cost,
        progress=progress,
        stop=stop,
        plan=plan,
    )
    if bar is not None:
        bar.total = bar.n  # the plan's total was partly an estimate
        bar.refresh()
        bar.close()
    _print_report(report)
    if report.stopped and "Ctrl-C" in report.stopped:
        return 130
    return 1 if report.incomplete else 0
