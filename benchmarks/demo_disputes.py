"""Disputes and agreement on the demo project, this tree against a baseline commit, run in one script.

    .venv/bin/python benchmarks/demo_disputes.py [--baseline e9653e6] [--dana 3] [--resamples 200]

The demo is built twice, once with each code (`git archive` of the baseline into a temporary folder,
the same script run there with `--measure-only --code DIR`). Its three simulated annotators' labels
are the same in both (seeded); the adjudicator's rulings differ, since each code rules where its own
gold misses the ground truth. Measured on each:
- disputes on the annotators' work alone: gold derived from the annotators' records with no ruling
  (`derive_gold(annotator_records(store), {})`), disputes per stage, the gold values people answer
  (the share disputed; a fact gold loses takes its stage-3 values, and their disputes, with it), and
  how many disputes no majority settles (they need a ruling);
- the demo as built: every dispute whether ruled or not, and the open ones (no ruling);
- agreement: Krippendorff's α per stage and the decomposition's fact-set F1 (`measure_agreement`);
- the same after dana — a fresh annotator who rewords often — labels the first `--dana` responses
  (simulated with the demo's own labeller, seeded);
- this tree only: the disputes an oracle alignment leaves — wordings grouped by what the simulated
  person meant (the claims behind each fact) instead of by paraphrase similarity — i.e. the fewest
  disputes any rewording-proof alignment can leave on these labels.
Only functions both codes have are called on the baseline.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DANA_RATES = (0.05, 0.1, 0.1, 0.6, 0.05, 0.1)  # verify, merge, split, reword, drop, entail (Labeller)
STAGES = ("verifiable", "decomposition", "entailment_all", "entailment_alone", "entailment_without")


def demo_names(*names: str) -> list:
    """The demo's simulation names from where this code keeps them: `labellers` and `ground_truth`,
    or `project` in a baseline older than their split (the baseline runs this same script)."""
    homes = []
    for module in ("annotation.demo.labellers", "annotation.demo.ground_truth", "annotation.demo.project"):
        try:
            homes.append(importlib.import_module(module))
        except ModuleNotFoundError:
            continue
    return [next(getattr(home, name) for home in homes if hasattr(home, name)) for name in names]


def simulated_labels(store, people: dict, responses: int | None = None, seed: int = 0):
    """(name, response id, labeller, labels, rng) of each of `people` ({name: Labeller}) on the first
    `responses` labelled responses (all by default), as the demo simulates them (same seeds)."""
    from annotation.demo.project import RESPONSES_PER_VIDEO, VIDEO_NAMES
    from annotation.demo.texts import make_response
    from annotation.demo.videos import make_video_truth

    align_plan, label_response = demo_names("align_plan", "label_response")

    index = 0
    for name in VIDEO_NAMES:
        truth = make_video_truth(name, random.Random(f"{seed}:video:{name}"))
        for k in range(RESPONSES_PER_VIDEO):
            rid = f"{Path(name).stem}-{k + 1:02d}"
            plan = make_response(rid, truth, index, random.Random(f"{seed}:response:{rid}"))
            index += 1
            if responses is not None and index > responses:
                return
            gold = align_plan(plan, store.response_sentences(rid))
            for person, who in people.items():
                rng = random.Random(f"{seed}:human:{person}:{rid}")
                yield person, rid, who, label_response(truth, gold, who, rng), rng


def label_as_dana(store, responses: int, seed: int = 0) -> None:
    """dana labels the first `responses` responses the way the demo's annotators do."""
    Labeller, write_label_events = demo_names("Labeller", "write_label_events")
    dana = {"dana": Labeller(*DANA_RATES)}
    for name, rid, who, labels, rng in simulated_labels(store, dana, responses, seed):
        write_label_events(store, name, rid, who, labels, rng)


def by_stage(values) -> dict[str, int]:
    return {stage: Counter(v.stage for v in values)[stage] for stage in STAGES}


def oracle_disputes(store, dana: int) -> dict:
    """Disputes on the annotators' work when facts are aligned by what each simulated person meant
    (the claims behind each wording) instead of by paraphrase similarity: what a perfect
    rewording-proof alignment leaves. Only this tree's demo keeps the claims."""
    from annotation.agreement import clusters
    from annotation.agreement.alignment import normalise_fact_text
    from annotation.agreement.gold import derive_gold
    from annotation.demo.labellers import ANNOTATORS, Labeller
    from annotation.work.labels import annotator_records

    meaning: dict[str, frozenset] = {}
    people = [(ANNOTATORS, None)] + ([({"dana": Labeller(*DANA_RATES)}, dana)] if dana else [])
    for group, responses in people:
        for *_, labels, _ in simulated_labels(store, group, responses):
            for sentence in labels:
                for fact in sentence.facts or []:
                    text, claims = normalise_fact_text(fact.text), frozenset(fact.claims)
                    if meaning.setdefault(text, claims) != claims:
                        raise RuntimeError(f"the demo words two different facts alike: {fact.text!r}")

    def same_meaning(a: str, b: str) -> float:
        known = meaning.get(normalise_fact_text(a))
        return float(known is not None and known == meaning.get(normalise_fact_text(b)))

    paraphrase_similarity, clusters.paraphrase_similarity = clusters.paraphrase_similarity, same_meaning
    try:
        alone = derive_gold(annotator_records(store), {}).disputes()
    finally:
        clusters.paraphrase_similarity = paraphrase_similarity
    return {
        "oracle disputes": len(alone),
        "oracle per stage": by_stage(alone),
        "oracle ruling": sum(v.value is None for v in alone),
    }


def project_gold(store):
    """The project's gold set, in this tree or one before the project state."""
    try:
        from annotation.state import project_state
    except ImportError:
        from annotation.agreement.gold import gold_from_store

        return gold_from_store(store)
    return project_state(store).gold


def figures(store, resamples: int) -> dict:
    from annotation.agreement.gold import derive_gold
    from annotation.agreement.reliability import measure_agreement
    from annotation.work.labels import annotator_records

    records = annotator_records(store)
    gold = derive_gold(records, {})
    alone = gold.disputes()
    asked = [v for v in gold.values if v.task is not None]  # what people answer (not derived)
    built = project_gold(store).disputes()
    agreement = measure_agreement(records, n_resamples=resamples)
    return {
        "disputes, annotators alone": len(alone),
        "per stage": by_stage(alone),
        "gold values": len(asked),
        "values per stage": by_stage(asked),
        "needing a ruling (no majority)": sum(v.value is None for v in alone),
        "disputes as built (ruled or not)": len(built),
        "open disputes as built": sum(v.ruling is None for v in built),
        "alpha": {stage: agreement[stage].alpha for stage in STAGES},
        "fact-set F1": agreement["decomposition"].f1,
    }


def measure(dana: int, resamples: int, oracle: bool = False) -> dict:
    """This code's figures on its demo; `oracle` adds `oracle_disputes` (this tree only)."""
    from annotation.demo.project import build_demo

    with tempfile.TemporaryDirectory() as folder:
        store = build_demo(Path(folder) / "demo")
        out = {"annotators finished": figures(store, resamples)}
        if oracle:
            out["annotators finished"].update(oracle_disputes(store, 0))
        label_as_dana(store, dana)
        out[f"after dana labels {dana}"] = figures(store, resamples)
        if oracle:
            out[f"after dana labels {dana}"].update(oracle_disputes(store, dana))
        store.close()
    return out


def baseline_run(commit: str, dana: int, resamples: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        reply = subprocess.run(
            [sys.executable, __file__, "--measure-only", "--code", folder, "--dana", str(dana)]
            + ["--resamples", str(resamples)],
            check=True,
            capture_output=True,
            text=True,
            cwd=folder,
        )
    return json.loads(reply.stdout)


def show(before: dict, after: dict) -> None:
    def number(value) -> str:
        return "—" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)

    for moment in after:
        b, a = before[moment], after[moment]
        print(f"\n{moment}:                                   before    after   after/before")
        rows = [(k, b[k], a[k]) for k in ("disputes, annotators alone",)]
        rows += [(f"  {s}", b["per stage"][s], a["per stage"][s]) for s in STAGES]
        rows += [("gold values, of which the above disputed", b["gold values"], a["gold values"])]
        rows += [(f"  {s}", b["values per stage"][s], a["values per stage"][s]) for s in STAGES]
        rows += [(k, b[k], a[k]) for k in ("needing a ruling (no majority)",)]
        rows += [(k, b[k], a[k]) for k in ("disputes as built (ruled or not)", "open disputes as built")]
        rows += [(f"alpha {s}", b["alpha"][s], a["alpha"][s]) for s in STAGES]
        rows += [("fact-set F1", b["fact-set F1"], a["fact-set F1"])]
        if "oracle per stage" in a:  # this tree only; "before" is the baseline's own alignment
            rows += [("oracle alignment: disputes", b["disputes, annotators alone"], a["oracle disputes"])]
            rows += [(f"  {s}", b["per stage"][s], a["oracle per stage"][s]) for s in STAGES]
            rows += [("oracle: needing a ruling", b["needing a ruling (no majority)"], a["oracle ruling"])]
        for label, x, y in rows:
            ratio = (
                f"{y / x:8.2f}"
                if isinstance(x, int | float) and isinstance(y, int | float) and x
                else "       —"
            )
            print(f"  {label:40} {number(x):>8} {number(y):>8} {ratio}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default="e9653e6", help="the commit to compare with (default e9653e6)")
    parser.add_argument("--dana", type=int, default=3, help="responses dana labels (default 3)")
    parser.add_argument("--resamples", type=int, default=200, help="bootstrap resamples of α (default 200)")
    parser.add_argument("--measure-only", action="store_true", help="print this code's figures as JSON")
    parser.add_argument("--code", help="the tree whose code to measure (default: this one)")
    args = parser.parse_args(argv)
    sys.path.insert(0, args.code or str(ROOT))
    if args.measure_only:
        print(json.dumps(measure(args.dana, args.resamples)))
        return 0
    before = baseline_run(args.baseline, args.dana, args.resamples)
    after = measure(args.dana, args.resamples, oracle=True)
    print(f"baseline {args.baseline} against this tree (demo seed 0; dana labels {args.dana} responses)")
    show(before, after)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
