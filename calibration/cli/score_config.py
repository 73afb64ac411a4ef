"""`python -m calibration score --config`: run a calibrated configuration on new responses and score them.

    python -m calibration score --config calibrated.json --project DIR --judges FILE.toml
        [--media-root DIR] [--concurrency N] [--json] generation.json...

The generation files are imported into the project; the calibrated judges run on exactly those
responses through the judge runner (cached, so a rerun costs nothing) and the records are scored in
the calibrated precision mode. A judges file or a prompt that no longer matches the calibrated
configuration is refused, every difference located.
Exit codes: 0 done, 1 some responses got no record (failed calls: rerun), 2 bad input.
"""

from __future__ import annotations

from pathlib import Path

from annotation.protocol.errors import InputError, Problem


def add_score_config_arguments(parser) -> None:
    """The `score` options that run a calibrated configuration on new responses."""
    parser.add_argument(
        "--config",
        metavar="CALIBRATED.json",
        help="run this calibrated configuration on the responses of the generation FILE(s) "
        "(needs --project and --judges) and score them in its precision mode",
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="with --config: project the responses are imported into (created if missing)",
    )
    parser.add_argument(
        "--judges",
        metavar="FILE.toml",
        help="with --config: judges file with the endpoints; "
        "each stage's judge must match the calibrated one",
    )
    parser.add_argument(
        "--media-root",
        metavar="DIR",
        help="with --config: folder the rows' `video` names resolve in (default: the project's)",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=8,
        metavar="N",
        help="with --config: judge calls in flight at most (default 8)",
    )


def config_only_problems(args) -> list[Problem]:
    """The --config companions given without --config (they would be silently ignored)."""
    return [
        Problem("<arguments>", None, flag, "goes with --config")
        for flag, value in (
            ("--project", args.project),
            ("--judges", args.judges),
            ("--media-root", args.media_root),
        )
        if value
    ]


def judge_problems(cfg, judges: dict, judges_path: str) -> list[Problem]:
    """Where the judges file or the prompts differ from the calibrated configuration: a missing
    stage judge, another adapter/model/parameter, or a changed prompt file (located)."""
    from calibration.judges.judges_file import line_index

    try:
        text = Path(judges_path).read_text(encoding="utf-8")
    except OSError:
        text = ""
    headers, key_lines = line_index(text)
    problems = []
    for stage in cfg.stages:
        judge = judges.get(stage.name)
        if judge is None:
            problems.append(
                Problem(
                    judges_path,
                    None,
                    f"judges.{stage.name}",
                    f"missing: the calibrated {stage.stage} is judge '{stage.name}' "
                    f"({stage.adapter}, {stage.model})",
                )
            )
            continue
        for key, message in stage.mismatches(judge):
            line = key_lines.get((stage.name, key), headers.get(stage.name))
            problems.append(
                Problem(
                    judges_path,
                    line,
                    f"judges.{stage.name}.{key}",
                    f"{message}; the calibrated {stage.stage} must be run as calibrated",
                )
            )
        why = stage.prompt_mismatch()
        if why:
            problems.append(Problem(stage.prompt_file, None, f"{stage.stage}.prompt_hash", why))
    return list(dict.fromkeys(problems))  # one judge may run several stages


def _response_ids(paths: list[Path], problems: list[Problem]) -> list[str]:
    from annotation.formats.readers import read_any

    ids = []
    for path in paths:
        try:
            fmt, read = read_any(path)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        except OSError as exc:
            problems.append(Problem(str(path), None, None, exc.strerror or str(exc)))
            continue
        if fmt == "records":
            problems.append(
                Problem(
                    str(path),
                    None,
                    None,
                    "a records file already carries judgements; "
                    "score --config takes generation files (responses to judge)",
                )
            )
            continue
        ids += [item.response_id if fmt == "generation" else item.response.response_id for item in read.items]
    return list(dict.fromkeys(ids))


def _usage_problems(args) -> list[Problem]:
    problems = [
        Problem("<arguments>", None, flag, "--config needs it")
        for flag, value in (("--project", args.project), ("--judges", args.judges))
        if not value
    ]
    problems += [
        Problem("<arguments>", None, flag, "does not go with --config")
        for flag, given in (("--format", args.format != "auto"), ("--source", args.source))
        if given
    ]
    if args.concurrency < 1:
        problems.append(
            Problem("<arguments>", None, "--concurrency", f"must be at least 1, got {args.concurrency}")
        )
    return problems


def _configuration_and_judges(args, problems: list[Problem]):
    """(calibrated configuration, judges) read and checked against each other; None where unread."""
    from calibration.config.calibrated import read_calibrated_config
    from calibration.judges.judges_file import load_judges

    cfg = judges = None
    try:
        cfg = read_calibrated_config(args.config)
    except InputError as exc:
        problems.extend(exc.problems)
    if args.judges:
        try:
            judges = load_judges(args.judges)
        except InputError as exc:
            problems.extend(exc.problems)
    if cfg is not None and args.precision not in (None, "all", cfg.precision_mode):
        problems.append(
            Problem(
                "<arguments>",
                None,
                "--precision",
                f"the calibrated configuration scores in '{cfg.precision_mode}' mode, not '{args.precision}'",
            )
        )
    if cfg is not None and judges is not None:
        problems.extend(judge_problems(cfg, judges, args.judges))
    return cfg, judges


def _import_and_run(
    args, cfg, judges, paths: list[Path], ids: list[str], problems: list[Problem], notes: list[str]
):
    """Import the files into the project and run the calibrated judges on `ids`: the runner's
    report, or None with the problems appended. A note says how many of `ids` already had a record
    of the configuration: the run's records take their place (latest wins)."""
    from annotation.project import import_into
    from calibration.judges.judges_file import parse_configuration
    from calibration.judges.runner import run_configurations

    root = Path(args.media_root).resolve() if args.media_root else None
    if root is not None and not root.is_dir():
        problems.append(Problem("<arguments>", None, "--media-root", f"{args.media_root}: not a directory"))
        return None
    try:  # the project is created (and its media root set) only when the import is accepted
        store, _ = import_into(Path(args.project), paths, media_root=root)
    except InputError as exc:
        problems.extend(exc.problems)
        return None
    had = store.latest_record_ids(cfg.source, ids)
    if had:  # an imported record, or one judged before: what a sweep or an export read until now
        notes.append(
            f"note: {len(had)} of these {len(ids)} responses already had a record of {cfg.source}: "
            "this run's records are now the ones in force (a sweep or export made before read the earlier ones)"
        )
    try:
        configuration = parse_configuration(cfg.configuration, judges)
        used = {name: judges[name] for name in configuration.judge_names}
        return run_configurations(store, used, [configuration], responses=ids, concurrency=args.concurrency)
    except InputError as exc:  # a bad generation file, or e.g. an API key variable that is not set
        problems.extend(exc.problems)
        return None
    finally:
        store.close()


def score_with_config(args, problems: list[Problem], notes: list[str]) -> tuple[list, bool]:
    """`score --config`: (scores, whether some responses got no record). Problems found are
    appended (then nothing is run); notes go to stderr after a run."""
    from calibration.scoring.murgat_s import score_records

    problems.extend(_usage_problems(args))
    cfg, judges = _configuration_and_judges(args, problems)
    paths = [Path(name) for name in args.files]
    ids = _response_ids(paths, problems)
    report = None if problems else _import_and_run(args, cfg, judges, paths, ids, problems, notes)
    if report is None:
        return [], False
    notes.append(
        f"note: {cfg.source}: calls made {report.calls_made}, cache hits {report.cache_hits}, "
        f"failed {report.failed}; cost ${report.cost:.4f}"
    )
    for _, response_id, why in report.incomplete:
        notes.append(f"warning: {response_id}: no record ({why}); rerun to continue")
    by_id = {r.response_id: r for r in report.records}
    scores = score_records([by_id[i] for i in ids if i in by_id], (cfg.precision_mode,))
    return scores, bool(report.incomplete)
