"""The calibrated configuration at the command line: `export` writes it, `score --config` uses it.

    python -m calibration export (--project DIR | --gold FILE --judges-records FILE...)
        --judges FILE.toml [--choose heldout|cheapest] [--precision MODE|all]
        [--bootstrap N] [--folds K] [--seed S] --out calibrated.json
    python -m calibration score --config calibrated.json --project DIR --judges FILE.toml FILE...

`export` sweeps the exportable configurations only (judge:V+D+E with every stage a judge of
the judges file; the others are listed on stderr and left out, since new responses have no
human labels), chooses one, and writes it with its evidence (assets/calibrated-config.md).
`score --config` imports the generation files into the project, runs the calibrated judges on
exactly those responses through the judge runner (cached, so a rerun costs nothing) and scores
the records in the calibrated precision mode.
Exit codes: 0 done, 1 some responses got no record (failed calls: rerun), 2 bad input.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from annotation.protocol.errors import InputError, Problem
from calibration.cli.sweep import sweep_argument_problems
from calibration.scoring.murgat_s import PRECISION_MODES


def add_export_parser(subparsers) -> None:
    """Register `export` on an argparse subparsers object; the handler is `args.func`."""
    parser = subparsers.add_parser(
        "export",
        help="choose the calibrated MURGAT-SCORE configuration and write it as JSON",
        description="Sweep the exportable judge configurations against gold, choose one (highest "
        "held-out r, or the cheapest not significantly worse) and write it with its "
        "evidence to --out (schema: assets/calibrated-config.md).",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--project", metavar="DIR", help="project directory (gold, human:* and judge:* records)"
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
        choices=("heldout", "cheapest"),
        default="heldout",
        help="highest held-out r (default), or the cheapest configuration not "
        "significantly worse than it (prices × recorded tokens; needs --project)",
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


def cmd_export(args) -> int:
    """Sweep, choose, write --out; bad input → every problem on stderr, exit 2, nothing written."""
    from calibration.config.calibrated import (
        build_calibrated_config,
        exportable_configuration,
        write_calibrated_config,
    )
    from calibration.config.costs import cheapest_choice
    from calibration.judges.judges_file import load_judges
    from calibration.sweep.inputs import inputs_from_files, inputs_from_project_dir
    from calibration.sweep.run import run_sweep

    problems = _argument_problems(args)
    judges = {}
    try:
        judges = load_judges(args.judges)
    except InputError as exc:
        problems.extend(exc.problems)
    if problems:
        _print_problems(problems)
        return 2
    if args.project:
        gold, humans, judge_records = inputs_from_project_dir(args.project, problems)
    else:
        gold, humans, judge_records = inputs_from_files(args.gold, args.judges_records, problems)
    left_out = {}
    for record in judge_records:
        if record.source not in left_out:
            left_out[record.source] = exportable_configuration(record.source, judges)[1]
    exportable = [r for r in judge_records if left_out[r.source] is None]
    if not problems and not exportable:
        where = args.project or ", ".join(args.judges_records)
        problems.append(
            Problem(
                where,
                None,
                "source",
                "no exportable judge configuration (judge:V+D+E with "
                f"every stage a judge of {args.judges}) among: {', '.join(left_out) or 'none'}",
            )
        )
    if problems:
        _print_problems(problems)
        return 2
    for source, why in left_out.items():
        if why is not None:
            print(f"note: {source} left out: {why}", file=sys.stderr)
    modes = PRECISION_MODES if args.precision == "all" else (args.precision,)
    try:
        report = run_sweep(
            gold,
            exportable,
            modes=modes,
            humans=humans,
            n_boot=args.bootstrap,
            folds=args.folds,
            seed=args.seed,
        )
        choice = None
        if args.choose == "cheapest":
            from annotation.store.project_store import ProjectStore

            store = ProjectStore.open(args.project)
            try:
                choice = cheapest_choice(report, judges, store)
            finally:
                store.close()
        cfg = build_calibrated_config(report, choice, judges, gold, chosen_by=args.choose)
        write_calibrated_config(cfg, args.out)
    except InputError as exc:
        _print_problems(exc.problems)
        return 2
    except ValueError as exc:
        _print_problems([Problem("<arguments>", None, "--choose", str(exc))])
        return 2
    except OSError as exc:
        _print_problems([Problem(args.out, None, "--out", exc.strerror or str(exc))])
        return 2
    e = cfg.evidence
    print(
        f"exported {cfg.source} [{cfg.precision_mode}] to {args.out}: r {_number(e['pearson'])} "
        f"[{_number(e['pearson_ci'][0])}, {_number(e['pearson_ci'][1])}], held-out r "
        f"{_number(e['heldout_pearson'])}, n {e['n']}, chosen by {e['chosen_by']}"
    )
    if e.get("runner_up"):
        r = e["runner_up"]
        print(
            f"runner-up: {r['source']} [{r['precision_mode']}] r {_number(r['pearson'])}, "
            f"p vs best {_number(r['p_vs_best'], 4)}"
        )
    return 0


def _number(value, digits: int = 3) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


# ---------------------------------------------------------------- score --config


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


def _score_config_inputs(args, problems: list[Problem]) -> tuple:
    """(calibrated configuration, judges) of `score --config`, each None when it has problems
    (appended to `problems`, with those of the other arguments)."""
    from calibration.config.calibrated import read_calibrated_config
    from calibration.judges.judges_file import load_judges

    for flag, value in (("--project", args.project), ("--judges", args.judges)):
        if not value:
            problems.append(Problem("<arguments>", None, flag, "--config needs it"))
    for flag, given in (("--format", args.format != "auto"), ("--source", args.source)):
        if given:
            problems.append(Problem("<arguments>", None, flag, "does not go with --config"))
    if args.concurrency < 1:
        problems.append(
            Problem("<arguments>", None, "--concurrency", f"must be at least 1, got {args.concurrency}")
        )
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


def score_with_config(args, problems: list[Problem], notes: list[str]) -> tuple[list, bool]:
    """`score --config`: (scores, whether some responses got no record). Problems found are
    appended (then nothing is run); notes go to stderr after a run."""
    from annotation.project import import_into
    from calibration.judges.judges_file import parse_configuration
    from calibration.judges.runner import run_configurations
    from calibration.scoring.murgat_s import score_records

    cfg, judges = _score_config_inputs(args, problems)
    paths = [Path(name) for name in args.files]
    ids = _response_ids(paths, problems)
    if problems:
        return [], False
    root = Path(args.media_root).resolve() if args.media_root else None
    if root is not None and not root.is_dir():
        problems.append(Problem("<arguments>", None, "--media-root", f"{args.media_root}: not a directory"))
        return [], False
    try:  # the project is created (and its media root set) only when the import is accepted
        store, _ = import_into(Path(args.project), paths, media_root=root)
    except InputError as exc:
        problems.extend(exc.problems)
        return [], False
    try:
        configuration = parse_configuration(cfg.configuration, judges)
        used = {name: judges[name] for name in configuration.judge_names}
        report = run_configurations(store, used, [configuration], responses=ids, concurrency=args.concurrency)
    except InputError as exc:  # e.g. an API key variable that is not set
        problems.extend(exc.problems)
        return [], False
    finally:
        store.close()
    notes.append(
        f"note: {cfg.source}: calls made {report.calls_made}, cache hits {report.cache_hits}, "
        f"failed {report.failed}; cost ${report.cost:.4f}"
    )
    for _, response_id, why in report.incomplete:
        notes.append(f"warning: {response_id}: no record ({why}); rerun to continue")
    by_id = {r.response_id: r for r in report.records}
    return score_records([by_id[i] for i in ids if i in by_id], (cfg.precision_mode,)), bool(
        report.incomplete
    )
