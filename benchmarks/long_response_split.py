"""Time of the sentence splitter (`split_response`) on one very long response, 3.5k → 350k sentences.

    .venv/bin/python benchmarks/long_response_split.py [--sizes 3500 35000 70000 350000]
        [--splitter PATH]

The text is the one QA reported: `'Reasoning: ' + 'A red square (visual, 0:01). ' * n + ' Answer: A'`
(29 characters a sentence, so 35k sentences is 1 MB). For each size it prints the splitter's time
(best of 3 when one run takes under a second, else that one run), the baseline's time on the same text, and their
ratio. The baseline, run in the same script: `str.split` on '. ', a linear floor; a linear
splitter keeps a steady ratio to it. Last, the growth exponent k of time ∝ sentences^k from a
least-squares fit of log time on log size: about 1 for a linear (or n·log n) scan, 2 for a
quadratic one (before the fix it was quadratic: 1.6 s at 3.5k, 112 s at 35k sentences as QA ran it).

`--splitter PATH` times the `split_response` of another file instead of the project's, e.g. a
copy of an older `annotation/protocol/sentences.py`, to measure a before and after on one machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from annotation.protocol.sentences import split_response


def long_response(sentences: int) -> str:
    return "Reasoning: " + "A red square (visual, 0:01). " * sentences + " Answer: A"


def splitter_from(path: str):
    spec = importlib.util.spec_from_file_location("splitter_under_test", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module.split_response


def timed(work, text: str):
    """(seconds, result) of `work(text)`: best of 3 when one run takes under a second."""
    best, result = float("inf"), None
    for _ in range(3):
        started = time.perf_counter()
        result = work(text)
        best = min(best, time.perf_counter() - started)
        if best >= 1:
            break
    return best, result


def growth_exponent(sizes: list[int], seconds: list[float]) -> float:
    """Slope of the least-squares line through (log size, log seconds)."""
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in seconds]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    covariance = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    return covariance / sum((x - mean_x) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3500, 35000, 70000, 350000])
    parser.add_argument("--splitter", help="a .py file whose split_response is timed instead")
    args = parser.parse_args()
    split = splitter_from(args.splitter) if args.splitter else split_response
    print(f"splitter: {args.splitter or 'annotation.protocol.sentences.split_response'}")
    print(
        f"  {'sentences':>9} {'MB':>6} {'split (s)':>10} {'str.split (s)':>14} {'ratio':>8} {'ms / 1k sent.':>14}"
    )
    split_times, floor_times = [], []
    for sentences in args.sizes:
        text = long_response(sentences)
        seconds, result = timed(split, text)
        assert len(result.sentences) == sentences and result.answer == "A", "wrong split"
        split_times.append(seconds)
        floor_times.append(timed(lambda t: t.split(". "), text)[0])
        print(
            f"  {sentences:>9} {len(text) / 1e6:>6.2f} {split_times[-1]:>10.3f} {floor_times[-1]:>14.5f}"
            f" {split_times[-1] / floor_times[-1]:>8.0f} {split_times[-1] / sentences * 1e6:>14.1f}"
        )
    if len(args.sizes) > 1:
        print(
            f"growth exponent (time ∝ sentences^k): split k = {growth_exponent(args.sizes, split_times):.2f},"
            f" str.split k = {growth_exponent(args.sizes, floor_times):.2f}"
        )


if __name__ == "__main__":
    main()
