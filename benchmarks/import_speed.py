"""Import throughput of `python -m annotation import`, before and after, in one run.

    .venv/bin/python benchmarks/import_speed.py [--rows 20000] [--kind generation|metric|both]
                                                [--baseline e9653e6] [--repeats 1]

Builds a ~20 MB JSONL file of `--rows` rows (each ~1 KB: a cited response of five sentences,
its question and options; metric rows also carry the judge's evaluations) over one small
generated video, then times the whole command (`--no-prepare`, into a new project) twice:
- baseline: the tree at `--baseline` (default e9653e6, the commit before issue 12: responses in
  one transaction, then one transaction per record), extracted with `git archive`;
- current: this tree (one transaction for the whole call, strict JSON reading).
Both run as subprocesses of this script on the same file, alternately, and the ratio
current / baseline is reported (below 1.0 = faster). Target: current not slower than baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from media_fixtures import make_pattern_video

SENTENCES = (
    "The presenter lifts a red folder above the desk while the audience watches closely ({cite}).",
    "A voice off screen announces the next speaker and the room applauds for a moment ({cite}).",
    "On the whiteboard the number 42 is written in blue marker beside a small diagram ({cite}).",
    "The camera pans left to show a window with rain running down the glass outside ({cite}).",
    "Therefore the folder most likely holds the quarterly report the question asks about.",
)
CITES = ("visual, 0:02", "audio, 0:03-0:05", "visual, 0:07", "visual, 0:01-0:04; audio, 0:06")


def generation_row(index: int, rng: random.Random) -> dict:
    text = " ".join(s.format(cite=rng.choice(CITES)) for s in SENTENCES) + "\nAnswer: B"
    return {
        "id": f"bench-{index:06d}",
        "video": "clip.mp4",
        "question": f"Question {index}: what does the presenter hold up while the room listens?",
        "options": ["A. A blue umbrella", "B. A red folder", "C. A laptop", "D. Nothing at all"],
        "answer": "B",
        "model_generation": "Reasoning: " + text,
    }


def metric_row(index: int, rng: random.Random) -> dict:
    row = generation_row(index, rng)
    sentence = SENTENCES[0].format(cite="visual, 0:02")
    row["evaluations"] = {
        sentence: {
            "verification_worthy": {"prediction": True, "prediction_raw": "yes"},
            "atomic_facts": [
                {
                    "fact": "- A presenter lifts a red folder (visual, 0:02)",
                    "scores": {
                        "precision": 1.0,
                        "recall": 1.0,
                        "citation_judgments": {"(visual, 0:02)": True},
                    },
                }
            ],
        },
        SENTENCES[4]: {"verification_worthy": {"prediction": False, "prediction_raw": "no"}},
    }
    row["response_score"] = {
        "coverage": 1.0,
        "attribution_precision": 1.0,
        "attribution_recall": 1.0,
        "citation_f1": 1.0,
        "final_score": 1.0,
    }
    return row


def write_input(path: Path, rows: int, kind: str) -> int:
    rng = random.Random(0)
    make = metric_row if kind == "metric" else generation_row
    with path.open("w", encoding="utf-8") as out:
        for index in range(rows):
            row = make(index, rng)
            row["notes"] = "x" * max(0, 1000 - len(json.dumps(row)))  # pad every row to ~1 KB
            out.write(json.dumps(row) + "\n")
    return path.stat().st_size


def baseline_tree(commit: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True)
    tar_path = into / "baseline.tar"
    tar_path.write_bytes(archive.stdout)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into / "baseline", filter="data")
    return into / "baseline"


def timed_import(tree: Path, project: Path, data: Path, media: Path) -> tuple[float, int]:
    cmd = [sys.executable, "-m", "annotation", "import", "--project", str(project), str(data)]
    cmd += ["--media-root", str(media), "--no-prepare"]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"import failed in {tree}:\n{done.stderr[-2000:]}")
    with sqlite3.connect(project / "project.db") as conn:
        responses = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    return elapsed, responses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--kind", choices=("generation", "metric", "both"), default="both")
    parser.add_argument("--baseline", default="e9653e6")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    kinds = ("generation", "metric") if args.kind == "both" else (args.kind,)
    with tempfile.TemporaryDirectory(prefix="import-bench-") as tmp:
        tmp = Path(tmp)
        media = tmp / "media"
        media.mkdir()
        make_pattern_video(
            media / "clip.mp4",
            width=160,
            height=120,
            fps=10,
            duration_s=10,
            pattern="testsrc2",
            sample_rate=16000,
        )
        trees = {"baseline": baseline_tree(args.baseline, tmp), "current": ROOT}
        for kind in kinds:
            data = tmp / f"{kind}.jsonl"
            size = write_input(data, args.rows, kind)
            times: dict[str, list[float]] = {"baseline": [], "current": []}
            for repeat in range(args.repeats):
                for name, tree in trees.items():
                    elapsed, count = timed_import(tree, tmp / f"p-{kind}-{name}-{repeat}", data, media)
                    assert count == args.rows, (name, count)
                    times[name].append(elapsed)
            base, current = (statistics.median(times[n]) for n in ("baseline", "current"))
            print(
                f"{kind} file: {args.rows} rows, {size / 1e6:.1f} MB | baseline ({args.baseline}) "
                f"{base:.2f} s ({args.rows / base:.0f} rows/s) | current {current:.2f} s "
                f"({args.rows / current:.0f} rows/s) | ratio current/baseline {current / base:.2f}"
            )


if __name__ == "__main__":
    main()
