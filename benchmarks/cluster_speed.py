"""How long fact clustering and gold take for a 1,000-response campaign with 3 annotators (target ≤ 5 s).

    .venv/bin/python benchmarks/cluster_speed.py [--responses 1000]

The campaign is built in memory: each response has 4 sentences of 2 facts; the three annotators word
each fact differently, taking the two wordings of a rewording pair of tests/data/fact_pairs.jsonl
(alice the first, bob the second, carol one or the other), made distinct per response by a place
name and number ("… near gate 17"), so full-text caches cannot reuse one response's work for
another; now and then carol leaves a fact out. Every fact is judged supported. Measured in this
process: `derive_gold` on the annotators' records — clustering, the "Same fact?" doubts and gold —
cold (the wordllama model loaded and every vector embedded on the way) and again warm (the vectors
cached by text), with how many clusters and gold values came out. The baseline is the same run
with the similarity replaced by exact text equality (no model, no alignment), run in the same
script: the ratio is what matching by meaning costs.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "annotation" / "agreement"))

from paraphrase_pairs import fact_pairs

from annotation.agreement import clusters, gold
from annotation.protocol.citations import Citation
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence

PLACES = ("gate", "stall", "platform", "table", "court", "stage", "booth", "pier")


def campaign(n_responses: int, seed: int = 0) -> list[EvaluationRecord]:
    rng = random.Random(seed)
    pairs = [(r["a"], r["b"]) for r in fact_pairs() if r["same"]]
    records = []
    for r in range(n_responses):
        by_name = {name: [] for name in ("alice", "bob", "carol")}
        for s in range(4):
            citations = [Citation("visual", float(s), float(s)), Citation("audio", float(s), float(s) + 1)]
            facts = {name: [] for name in by_name}
            for f in range(2):
                a, b = rng.choice(pairs)
                where = f" near {PLACES[(r + s + f) % len(PLACES)]} {r % 97 + 1}."
                a, b = a.rstrip(".") + where, b.rstrip(".") + where
                for name, text in (("alice", a), ("bob", b), ("carol", rng.choice((a, b)))):
                    if name == "carol" and rng.random() < 0.05:
                        continue  # a fact carol left out: a real disagreement
                    facts[name].append(Fact(text, [f], Entailment(True, [True], [False])))
            for name in by_name:
                by_name[name].append(Sentence(f"Sentence {s} of response {r}.", True, citations, facts[name]))
        records += [
            EvaluationRecord(f"r{r}", f"human:{name}", sentences) for name, sentences in by_name.items()
        ]
    return records


def timed(records) -> tuple[float, float, gold.GoldSet]:
    """(wall s, CPU s of this process, the gold set): the machine's cores are shared, so the wall
    time can run far above the CPU time."""
    started, cpu = time.perf_counter(), time.process_time()
    result = gold.derive_gold(records)
    return time.perf_counter() - started, time.process_time() - cpu, result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--responses", type=int, default=1000)
    args = parser.parse_args()
    records = campaign(args.responses)
    cold, cold_cpu, result = timed(records)
    warm, warm_cpu, _ = timed(records)
    n_clusters = sum(len(v.clusters.clusters) for v in result.values if v.question == "facts" and v.clusters)
    print(f"campaign: {args.responses} responses × 3 annotators, {len(records)} records")
    print(
        f"clustering and gold (derive_gold), cold: {cold:6.2f} s wall, {cold_cpu:6.2f} s CPU   (target ≤ 5 s)"
    )
    print(f"clustering and gold (derive_gold), warm: {warm:6.2f} s wall, {warm_cpu:6.2f} s CPU")
    print(
        f"  {n_clusters} fact clusters, {len(result.values)} gold values, {len(result.disputes())} disputes"
    )
    # baseline: the same derivation with exact text equality as the similarity
    exact = clusters.paraphrase_similarity

    def equal(a: str, b: str) -> float:
        return 1.0 if a.strip().casefold() == b.strip().casefold() else 0.0

    clusters.paraphrase_similarity = equal
    try:
        base, base_cpu, _ = timed(records)
    finally:
        clusters.paraphrase_similarity = exact
    print(
        f"baseline (exact text equality):    {base:6.2f} s wall, {base_cpu:6.2f} s CPU; "
        f"meaning-based cold / baseline CPU = {cold_cpu / base_cpu:4.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
