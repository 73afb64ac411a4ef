"""How well fact matching tells rewordings from different facts, on the hand-written labelled set
tests/data/fact_pairs.jsonl: thresholds chosen on its tuning half, reported on both halves.

    .venv/bin/python benchmarks/paraphrase_alignment.py

Each pair gets a verdict (`paraphrase.verdict`): joined (surely the same), asked (a "Same fact?"
question for the adjudicator) or apart (surely different). Per kind of rewording or near-miss, and
per half: how many were joined / asked / kept apart. The targets, on the held-out half: rewordings
joined ≥ 95 %, near-misses never joined. The baseline is token F1 at 0.5 (`alignment.fact_similarity`,
the fact alignment before the clusters), run in the same script.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "annotation" / "agreement"))

from paraphrase_pairs import fact_pairs

from annotation.agreement.alignment import fact_similarity
from annotation.agreement.paraphrase import (
    ASK,
    ASK_THRESHOLD,
    DIFFERENT,
    SAME,
    SAME_FACT_THRESHOLD,
    choose_thresholds,
    paraphrase_similarity,
    verdict,
)


def table(rows: list[dict]) -> dict[tuple[bool, str], Counter]:
    out: dict[tuple[bool, str], Counter] = defaultdict(Counter)
    for row in rows:
        out[row["same"], row["kind"]][verdict(paraphrase_similarity(row["a"], row["b"]))] += 1
    return out


def main() -> int:
    tune, held = fact_pairs("tune"), fact_pairs("held-out")
    chosen = choose_thresholds([(paraphrase_similarity(r["a"], r["b"]), r["same"]) for r in tune])
    print(f"labelled set: {len(tune)} tuning pairs, {len(held)} held-out pairs")
    print(f"thresholds chosen on the tuning half: same ≥ {chosen[0]:.3f}, ask ≥ {chosen[1]:.3f}")
    print(
        f"thresholds in the code:               same ≥ {SAME_FACT_THRESHOLD:.3f}, ask ≥ {ASK_THRESHOLD:.3f}"
    )
    tables = {"tune": table(tune), "held-out": table(held)}
    print()
    print(f"| {'kind':40} | tune: joined / asked / apart | held-out: joined / asked / apart |")
    print(f"|{'-' * 42}|{'-' * 30}|{'-' * 35}|")
    for same in (True, False):
        kinds = sorted({k for (s, k) in tables["tune"] | tables["held-out"] if s == same})
        for kind in kinds:
            cells = []
            for half in ("tune", "held-out"):
                c = tables[half][same, kind]
                cells.append(f"{c[SAME]:>3} / {c[ASK]:>2} / {c[DIFFERENT]:>2} of {sum(c.values()):>2}")
            label = ("rewording: " if same else "near-miss: ") + kind
            print(f"| {label:40} | {cells[0]:>28} | {cells[1]:>33} |")
    print()
    for half in ("tune", "held-out"):
        rewordings = sum((c for (s, _), c in tables[half].items() if s), Counter())
        near = sum((c for (s, _), c in tables[half].items() if not s), Counter())
        n_r, n_n = sum(rewordings.values()), sum(near.values())
        rows = tune if half == "tune" else held
        base_r = sum(fact_similarity(r["a"], r["b"]) >= 0.5 for r in rows if r["same"]) / n_r
        base_n = sum(fact_similarity(r["a"], r["b"]) < 0.5 for r in rows if not r["same"]) / n_n
        print(
            f"{half:8}: rewordings joined {rewordings[SAME] / n_r:6.1%} ({rewordings[SAME]}/{n_r}), "
            f"asked {rewordings[ASK]}, split {rewordings[DIFFERENT]}; near-misses kept apart "
            f"{(n_n - near[SAME]) / n_n:6.1%} ({n_n - near[SAME]}/{n_n}, {near[ASK]} of them asked) | "
            f"baseline token F1 @ 0.5: joined {base_r:6.1%}, kept apart {base_n:6.1%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
