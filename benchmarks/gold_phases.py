"""Where gold cold's CPU goes, phase by phase: one derivation of every response of a built project
(`annotation.state.derive_state(kept=False)`), with the CPU seconds (time.process_time) of each
phase, then the cost of keeping the results as `derived_results` does (encoding them) and of
reading them back (decoding them).

    .venv/bin/python benchmarks/gold_phases.py --project DIR/scale-4000

The phases are timed by wrapping the functions that do them (each wrap costs ≈ 1 µs a call, so the
figures are a little above an unwrapped run's): reading the current labels, the responses'
sentences, the annotators' records (indexing their labels, then building the records), the fact
clusters, the gold decisions (`derive_gold` without its clustering), and the staged campaign's
check. The rest of the derivation is the state's own bookkeeping. Nothing is written: the project
may be the one `benchmarks/project_scale.py --keep` keeps.
"""

from __future__ import annotations

import argparse
import functools
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed(owner, name: str, phase: str, spent: dict[str, float]) -> None:
    """Replace `owner.name` by a wrapper that adds its CPU seconds to `spent[phase]`."""
    inner = getattr(owner, name)

    @functools.wraps(inner)
    def wrapper(*args, **kwargs):
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[phase] = spent.get(phase, 0.0) + time.process_time() - start

    setattr(owner, name, wrapper)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", required=True, help="a built project's folder (only read)")
    args = parser.parse_args(argv)
    from annotation import state
    from annotation.agreement import gold
    from annotation.store import derived_results
    from annotation.store.project_store import ProjectStore
    from annotation.work.labels import ResponseLabels

    spent: dict[str, float] = {}
    timed(state, "_labels_of", "reading the current labels", spent)
    timed(ProjectStore, "responses_sentences", "reading the sentences", spent)
    timed(ResponseLabels, "__init__", "annotator records: labels indexed", spent)
    timed(ResponseLabels, "records", "annotator records: built", spent)
    timed(ResponseLabels, "judge_gold_facts", "staged campaign check", spent)
    timed(gold, "response_clusters", "fact clusters", spent)
    timed(gold, "_derive_gold", "gold decisions (with clusters)", spent)
    store = ProjectStore.open(Path(args.project))
    start = time.process_time()
    derived = state.derive_state(store, kept=False)
    total = time.process_time() - start
    spent["gold decisions"] = spent.pop("gold decisions (with clusters)") - spent["fact clusters"]
    spent["the state's own bookkeeping"] = total - sum(spent.values())
    results = [(part.annotators, part.gold) for part in derived.responses.values()]
    gc.disable()  # as when the state keeps and reads them (annotation.state._long_lived)
    start = time.process_time()
    blobs = [derived_results.encode(result) for result in results]
    encoding = time.process_time() - start
    start = time.process_time()
    for blob in blobs:
        derived_results.decode(blob)
    decoding = time.process_time() - start
    print(f"{len(results):,} responses, {len(derived.gold.values):,} gold values; CPU seconds:")
    for phase, seconds in spent.items():
        print(f"  {phase:40s} {seconds:6.2f}")
    print(f"derived in {total:.2f}, and {encoding:.2f} to encode the results as they are kept")
    print(
        f"kept: {sum(map(len, blobs)) / 1e6:.1f} MB; decoding them all (a later process's read) {decoding:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
