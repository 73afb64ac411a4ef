"""How well each fact similarity tells rewordings from different facts, on the labelled set of
tests/annotation/agreement/paraphrase_pairs.py.

    .venv/bin/python benchmarks/paraphrase_alignment.py

Three similarities, each at its own best threshold on the set (`paraphrase.choose_threshold`:
best F0.5, precision weighing double) the first two also at the threshold the code uses, the last also at a strict 0.9:
- paraphrase: `annotation.agreement.paraphrase.paraphrase_similarity` (the fact clusters');
- token F1: `annotation.agreement.alignment.fact_similarity`, the fact alignment before it (0.5);
- token-set ratio: rapidfuzz's `fuzz.token_set_ratio` on the normalised texts (the issue's idea).
For each: precision and recall of "same fact", the different-fact pairs taken for one (false
merges, by kind) and the rewordings missed. The baseline is token F1 at 0.5, run in the same script.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "annotation" / "agreement"))

from paraphrase_pairs import LABELLED_PAIRS
from rapidfuzz import fuzz

from annotation.agreement.alignment import fact_similarity, normalise_fact_text
from annotation.agreement.paraphrase import SAME_FACT_THRESHOLD, choose_threshold, paraphrase_similarity


def token_set_ratio(a: str, b: str) -> float:
    return fuzz.token_set_ratio(normalise_fact_text(a), normalise_fact_text(b)) / 100


def evaluate(similarity, threshold: float) -> dict:
    counts = Counter()
    merged, missed = Counter(), []
    for a, b, same, kind in LABELLED_PAIRS:
        taken = similarity(a, b) >= threshold
        counts[taken, same] += 1
        if taken and not same:
            merged[kind] += 1
        if same and not taken:
            missed.append(kind)
    tp, fp, fn = counts[True, True], counts[True, False], counts[False, True]
    return {
        "threshold": threshold,
        "precision": tp / (tp + fp) if tp + fp else 0.0,
        "recall": tp / (tp + fn) if tp + fn else 0.0,
        "false merges": dict(merged),
        "missed": missed,
    }


def main() -> int:
    measures = {
        "paraphrase": paraphrase_similarity,
        "token F1": fact_similarity,
        "token-set ratio": token_set_ratio,
    }
    n_same = sum(same for *_, same, _ in LABELLED_PAIRS)
    print(
        f"labelled set: {len(LABELLED_PAIRS)} pairs, {n_same} rewordings, {len(LABELLED_PAIRS) - n_same} different"
    )
    rows = []
    for name, similarity in measures.items():
        best = choose_threshold([(similarity(a, b), same) for a, b, same, _ in LABELLED_PAIRS])
        rows.append((f"{name} @ best", evaluate(similarity, best)))
    rows.insert(1, ("paraphrase @ code", evaluate(paraphrase_similarity, SAME_FACT_THRESHOLD)))
    rows.insert(3, ("token F1 @ 0.5 (baseline)", evaluate(fact_similarity, 0.5)))
    rows.append(("token-set ratio @ 0.9", evaluate(token_set_ratio, 0.9)))  # a strict cut does not help
    baseline = dict(rows)["token F1 @ 0.5 (baseline)"]
    print(f"{'similarity':28} {'thresh':>7} {'P':>6} {'R':>6} {'P/base':>7}  false merges / missed")
    for label, row in rows:
        ratio = row["precision"] / baseline["precision"] if baseline["precision"] else float("nan")
        print(
            f"{label:28} {row['threshold']:7.3f} {row['precision']:6.3f} {row['recall']:6.3f} {ratio:7.2f}  "
            f"{sum(row['false merges'].values())} {row['false merges']} / {len(row['missed'])} {row['missed']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
