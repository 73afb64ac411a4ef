"""SHA-256 digests of a project's derived state — every gold value (all its fields, its sentence's
clusters), the gold records and the annotator records — to show that a change to the derivation
decides exactly as before: run it on copies of one project with each code and compare the lines.

    .venv/bin/python benchmarks/gold_digest.py --project DIR [--kept]

Without `--kept` every response is derived here (`derive_state(kept=False)`: the project file is
neither read for kept results nor written); with it, `project_state` reads and keeps results as the
app does (run it twice on a copy: derived, then read back). Prints the counts and digests, and the
CPU seconds of the derivation.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def canonical(value):
    """A form of `value` whose repr does not depend on set or dict order."""
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v) for v in value), key=repr)
    if isinstance(value, dict):
        return sorted(((repr(k), canonical(v)) for k, v in value.items()), key=repr)
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return repr(value)


def clusters_of(found):
    if found is None:
        return None
    return (
        found.sentence,
        found.decomposers,
        [
            (c.index, c.canonical, c.citations, [(m.author, m.text, m.fact.citations) for m in c.members])
            for c in found.clusters
        ],
        found.combinations,
        found.doubts,
    )


def digests(state) -> dict[str, str]:
    values = hashlib.sha256()
    for v in state.gold.values:
        fields = (
            v.response_id, v.sentence, v.fact, v.question, v.unit, v.task, v.values, v.spent_ms,
            v.value, v.provenance, v.agreement, v.ruling, v.segments, v.orphan, v.compared,
            v.gold_compared, v.citations, v.wordings, clusters_of(v.clusters), v.provenance_kind,
            v.disputed, v.needs_ruling,
        )  # fmt: skip
        values.update(repr(canonical(fields)).encode())

    def records(found) -> str:
        return hashlib.sha256(json.dumps([r.to_dict() for r in found], sort_keys=True).encode()).hexdigest()

    return {
        "gold values": f"{len(state.gold.values)} {values.hexdigest()}",
        "gold records": f"{len(state.gold.records)} {records(state.gold.records)}",
        "awaiting gold": f"{len(state.gold.awaiting)} "
        + records([w.record for _, w in sorted(state.gold.awaiting.items())])
        + " "
        + hashlib.sha256(
            repr(sorted((k, w.undecided) for k, w in state.gold.awaiting.items())).encode()
        ).hexdigest(),
        "annotator records": f"{len(state.annotators)} {records(state.annotators)}",
        "disputes": str(len(state.gold.disputes())),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", required=True, help="the project folder (use a copy with --kept)")
    parser.add_argument("--kept", action="store_true", help="read and keep results as the app does")
    args = parser.parse_args(argv)
    from annotation.state import derive_state, project_state
    from annotation.store.project_store import ProjectStore

    store = ProjectStore.open(Path(args.project))
    start = time.process_time()
    state = project_state(store) if args.kept else derive_state(store, kept=False)
    cpu = time.process_time() - start
    for name, digest in digests(state).items():
        print(f"{name}: {digest}")
    print(f"derived in {cpu:.2f} CPU s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
