"""`python -m annotation agreement` and `python -m annotation gold` (registered in __main__).

Exit codes: 0 success, 2 invalid input (located problems on stderr, nothing on stdout).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from annotation.protocol.errors import InputError
from annotation.protocol.ids import source_kind


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _open_store(directory: str):
    from annotation.store.project_store import ProjectStore

    return ProjectStore.open(directory)


def _human_records(args):
    """(the `human:*` records, the rulings in force) of a project, or (those records, None) of a
    records file; raises FileNotFoundError / InputError. The rulings hold the adjudicator's "Same
    fact?" answers, which agreement clusters with as gold does."""
    if args.project:
        from annotation.project import export_records
        from annotation.state import project_state

        store = _open_store(args.project)
        return export_records(store, "human"), project_state(store).rulings
    from annotation.formats.readers import read_records_file

    if not Path(args.file).is_file():
        raise FileNotFoundError(f"{args.file}: no such file")
    return [r for r in read_records_file(args.file).items if source_kind(r.source) == "human"], None


def _number(value) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


def _print_table(results) -> None:
    print(f"{'stage':<20} {'alpha':>7} {'95% CI':>17} {'units':>6} {'annot.':>6}")
    for stage, result in results.items():
        ci = f"[{_number(result.ci_low)}, {_number(result.ci_high)}]" if result.ci_low is not None else "—"
        line = f"{stage:<20} {_number(result.alpha):>7} {ci:>17} {result.n_units:>6} {result.n_annotators:>6}"
        if result.alpha is None:
            line += f"  undefined: {result.reason}"
        elif result.n_degenerate_resamples:
            line += f"  ({result.n_degenerate_resamples} degenerate resamples skipped)"
        print(line)
    decomposition = results["decomposition"]
    if decomposition.n_pairs:
        print(
            f"fact sets (pooled over {decomposition.n_pairs} annotator pair(s)): precision "
            f"{_number(decomposition.precision)}, recall {_number(decomposition.recall)}, "
            f"F1 {_number(decomposition.f1)}"
        )


def cmd_agreement(args) -> int:
    from annotation.agreement.reliability import agreement_json, measure_agreement

    if bool(args.project) == bool(args.file):
        return _fail("give either --project DIR or a records FILE")
    if args.resamples < 1:
        return _fail(f"--resamples must be at least 1, got {args.resamples}")
    try:
        records, rulings = _human_records(args)
    except FileNotFoundError as exc:
        return _fail(str(exc))
    except InputError as exc:
        print(f"error: invalid input ({len(exc.problems)} problem(s))", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    if not records:
        print("note: no labelled human:* records found; every stage is undefined", file=sys.stderr)
    results = measure_agreement(records, rulings=rulings, n_resamples=args.resamples, seed=args.seed)
    if args.json:
        print(json.dumps(agreement_json(results), indent=2))
    else:
        _print_table(results)
    return 0


def add_agreement_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "agreement",
        help="inter-annotator agreement per stage (Krippendorff's alpha)",
        description="Krippendorff's alpha per stage with bootstrap CIs, and fact-set P/R/F1 of the "
        "decomposition, from a project's annotators or the human:* records of a file.",
    )
    p.add_argument("file", nargs="?", metavar="FILE.jsonl", help="evaluation records (human:* used)")
    p.add_argument("--project", help="project directory (labels from the event log)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.set_defaults(func=cmd_agreement)


def cmd_gold(args) -> int:
    from annotation.formats.atomic_file import check_output_path
    from annotation.formats.gold_csv import write_gold_csv
    from annotation.formats.readers import write_records_jsonl
    from annotation.state import project_state

    for output in filter(None, (args.out, args.csv)):  # both refused before either is written
        check_output_path(output)
    try:
        store = _open_store(args.project)
        gold = project_state(store).gold
    except (FileNotFoundError, ValueError) as exc:
        return _fail(str(exc))
    try:
        count = write_records_jsonl(gold.records, Path(args.out))
    except ValueError as exc:  # a record that is not strict JSON; --out is left as it was
        return _fail(f"nothing written to {args.out}: {exc}")
    counts = ", ".join(f"{kind} {n}" for kind, n in sorted(gold.counts().items()))
    print(f"wrote {count} gold record(s) to {args.out} (rule: {gold.rule}; values: {counts or 'none'})")
    if gold.awaiting_note():
        print(f"note: {gold.awaiting_note()}", file=sys.stderr)
    if args.csv:
        rows = write_gold_csv(gold.values, Path(args.csv))
        print(f"wrote {rows} row(s) to {args.csv}")
    print(f"open disputes: {len(gold.disputes(open_only=True))}")
    return 0


def add_gold_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "gold",
        help="derive the gold set (with provenance) and export it",
        description="Derive gold from the annotators' labels by the project's gold_rule, with the "
        "adjudicators' rulings winning; write evaluation records and optionally CSV. "
        "Nothing needs publishing: every command and page derives the same gold from the "
        "current labels.",
    )
    p.add_argument("--project", required=True, help="project directory")
    p.add_argument("--out", required=True, help="output JSONL file (source: gold)")
    p.add_argument("--csv", help="also write one CSV row per gold value")
    p.set_defaults(func=cmd_gold)
