"""Requests a 3×3×3 judge configuration sweep makes with the shared call cache, against the naive count.

    .venv/bin/python benchmarks/judge_sweep_calls.py [--responses 12]

Nine judges (verifiers v0–v2, decomposers d0–d2, entailers e0–e2, each its own model) on the
test server (tests/judge_server.py, on 127.0.0.1), which answers differently per model so the
stages really differ: v1 calls only sentences with a visual citation verifiable; d0 splits at
"and", d1 keeps the sentence whole, d2 words its facts its own way.
- shared: all 27 configurations in one project, one run — requests counted at the server.
- naive: each configuration alone in a fresh project (no cache shared between pipelines) —
  the V·D·E pipelines' own calls, counted the same way.
Requests are also broken down by stage: with the cache, stage 1 costs V·(sentences), stage 2
D·(sentences some verifier passes on), stage 3 E·(distinct fact × citation-set questions) — the
issue's V·S + D·Sv + D·E·F shape — instead of V·D·E times everything.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from judge_server import JudgeServer, make_project, make_video, scripted_answer, varied_responses

from calibration.judges.judges_file import JudgeConfig, parse_configuration
from calibration.judges.runner import run_configurations

VERIFIERS, DECOMPOSERS, ENTAILERS = ("v0", "v1", "v2"), ("d0", "d1", "d2"), ("e0", "e1", "e2")


def answer_by_model(stage: str, prompt: str, part_kinds: list[str], model: str | None) -> str:
    if stage == "verifiability" and model == "v1":
        sentence = prompt.split("Sentence to judge:")[1].split("\n\n")[0]
        return json.dumps({"verifiable": "(visual" in sentence, "reason": "visual only"})
    if stage == "decompose" and model in ("d1", "d2"):
        sentence = prompt.split("\nSentence:\n")[1].split("\n\n")[0]
        text = sentence.split(" (")[0].rstrip(".") + "."
        if model == "d2":
            facts = [
                {"text": f"It can be seen that {part.strip().rstrip('.').lower()}.", "citations": []}
                for part in text.split(" and ")
            ]
        else:
            facts = [{"text": text, "citations": []}]
        return json.dumps({"facts": facts})
    return scripted_answer(stage, prompt, part_kinds, model)


def judges_at(url: str) -> dict[str, JudgeConfig]:
    return {
        name: JudgeConfig(name, "openai", name, (url,), max_concurrency=16, backoff_base_s=0.001)
        for name in VERIFIERS + DECOMPOSERS + ENTAILERS
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--responses", type=int, default=12)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="judge-sweep-"))
    video = make_video(work / "clip.mp4", duration_s=8.0)
    responses = varied_responses(args.responses, vary_spans=True)
    ids = [f"{v}+{d}+{e}" for v in VERIFIERS for d in DECOMPOSERS for e in ENTAILERS]

    try:
        result = sweep(work, video, responses, ids)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{'configurations':<28}{len(ids)} (3 verifiers × 3 decomposers × 3 entailers)")
    print(f"{'responses':<28}{args.responses}")
    print(f"{'requests, shared cache':<28}{result['requests_shared_cache']}")
    print(f"{'requests, naive pipelines':<28}{result['requests_naive']}")
    for stage in ("verifiability", "decompose", "entailment"):
        print(
            f"{'  ' + stage:<28}{result['shared_by_stage'][stage]} shared vs {result['naive_by_stage'][stage]} naive"
        )
    print(f"{'naive / shared':<28}{result['saving_factor']}×")
    print(json.dumps(result))
    return 0


def sweep(work: Path, video: Path, responses: dict[str, str], ids: list[str]) -> dict:
    """Run the sweep with a shared cache, then each configuration alone; count requests."""
    with JudgeServer(answer_by_model) as server:
        judges = judges_at(server.base_url)
        configurations = [parse_configuration(i, judges) for i in ids]
        store = make_project(work / "shared", video, responses)
        start = time.perf_counter()
        report = run_configurations(store, judges, configurations, responses="all", concurrency=16)
        shared_s = time.perf_counter() - start
        shared = len(server.log)
        shared_by_stage = Counter(r.stage for r in server.log)
        assert not report.incomplete, report.incomplete[:3]

        naive_start = len(server.log)
        for n, configuration in enumerate(configurations):
            alone = make_project(work / f"naive{n}", video, responses)
            run_configurations(alone, judges, [configuration], responses="all", concurrency=16)
        naive = len(server.log) - naive_start
        naive_by_stage = Counter(r.stage for r in server.log[naive_start:])

    return {
        "configurations": len(ids),
        "responses": len(responses),
        "requests_shared_cache": shared,
        "requests_naive": naive,
        "shared_by_stage": dict(shared_by_stage),
        "naive_by_stage": dict(naive_by_stage),
        "saving_factor": round(naive / shared, 2),
        "shared_run_s": round(shared_s, 2),
    }


if __name__ == "__main__":
    sys.exit(main())
