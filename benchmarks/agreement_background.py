"""What the Agreement page's background work costs, on a copy of a project: the first revision a
server process sees, and the revision after one new label.

    .venv/bin/python benchmarks/agreement_background.py --project DIR [--resamples 1000] [--json]

Steps, in one process, CPU seconds each (time.process_time, every thread: there is one):
- state: `project_state` (a copy of the project, so the label below is never written to DIR);
- inputs: the project's `AgreementIndex` (every stage's units, the annotators' rows and rates);
- alpha: `measure_units` on those units (α and its bootstrap CI for the five stages);
- tables: `agreement_tables` (confusion counts, each annotator against the others).
Then one new label (a verifiable decision of an annotator who labelled nothing) and the same
steps again: what a label costs the background. α per stage with its CI is printed, so a look
shows every stage measured. The machine's load (1 minute) is printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def cpu(call):
    """(result, CPU seconds) of `call()`."""
    start = time.process_time()
    found = call()
    return found, time.process_time() - start


def revision_costs(store, index, resamples: int) -> tuple[dict, dict]:
    """(CPU seconds per step, α results) of the store's current revision."""
    from annotation.agreement.reliability import measure_units
    from annotation.state import project_state
    from pages.widgets.agreement_tables import agreement_tables

    state, state_s = cpu(lambda: project_state(store))
    inputs, inputs_s = cpu(lambda: index.inputs(state))
    results, alpha_s = cpu(lambda: measure_units(inputs.units, n_resamples=resamples))
    _, tables_s = cpu(lambda: agreement_tables(store, state))
    return {"state": state_s, "inputs": inputs_s, "alpha": alpha_s, "tables": tables_s}, results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", required=True, help="a project folder (copied, never written)")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from annotation.agreement.agreement_index import AgreementIndex
    from annotation.protocol.ids import Unit
    from annotation.store.project_store import ProjectStore
    from benchmarks.project_scale import ANNOTATOR_WITH_WORK, copied

    with tempfile.TemporaryDirectory() as folder:
        store = ProjectStore.open(copied(Path(args.project), Path(folder) / "project"))
        index = AgreementIndex()
        out = {"load before": os.getloadavg()[0]}
        out["first revision"], results = revision_costs(store, index, args.resamples)
        response = store.response_ids()[0]
        store.events.append(
            ANNOTATOR_WITH_WORK, response, Unit.of_sentence(0), "verifiable", True, spent_ms=1000
        )
        out["after one label"], results = revision_costs(store, index, args.resamples)
        out["load after"] = os.getloadavg()[0]
        out["alpha"] = {stage: [r.alpha, r.ci_low, r.ci_high, r.n_units] for stage, r in results.items()}
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"load {out['load before']:.1f} → {out['load after']:.1f} (1 minute)")
    for part in ("first revision", "after one label"):
        costs = out[part]
        print(
            f"{part}: "
            + ", ".join(f"{step} {seconds:.2f}" for step, seconds in costs.items())
            + f" CPU s; background (inputs + alpha + tables) {sum(costs.values()) - costs['state']:.2f}"
        )
    for stage, (alpha, low, high, units) in out["alpha"].items():
        shown = "undefined" if alpha is None else f"{alpha:.3f} [{low:.3f}, {high:.3f}]"
        print(f"  α {stage}: {shown} over {units:,} units")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
