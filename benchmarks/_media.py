"""Shared by the media benchmarks: generated long media (made once into benchmarks/out/),
timing and reporting helpers.

The long video is the test video's recipe (tests/media_fixtures.py) at benchmark scale: every
frame shows its index in a strip of blocks, so a clip's first frame can be checked exactly.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from media_fixtures import make_indexed_video, run_ffmpeg

OUT = ROOT / "benchmarks" / "out"
LONG_W, LONG_H, LONG_FPS = 1280, 720, 25
LONG_DURATION_S = 600.0
LONG_KEYFRAME_EVERY_S = 10.0
LONG_INDEX_BITS = 14  # 15 000 frames


def long_video() -> Path:
    """10-minute 1280×720 25 fps H.264 + AAC, a keyframe every 10 s (≈ 2 min to make once)."""
    path = OUT / f"long_{LONG_W}x{LONG_H}_{int(LONG_DURATION_S)}s.mp4"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        print(f"making {path.name} (once) …", file=sys.stderr, flush=True)
        tmp = path.with_name(".making-" + path.name)
        make_indexed_video(
            tmp,
            width=LONG_W,
            height=LONG_H,
            fps=LONG_FPS,
            duration_s=LONG_DURATION_S,
            keyframe_every_s=LONG_KEYFRAME_EVERY_S,
            preset="veryfast",
            crf=26,
            index_bits=LONG_INDEX_BITS,
        )
        tmp.rename(path)
    return path


def hour_audio() -> Path:
    """One hour of 48 kHz stereo AAC: a tone that changes every 5 s over pink noise (≈ 1 min once)."""
    path = OUT / "hour_48k_stereo.m4a"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        print(f"making {path.name} (once) …", file=sys.stderr, flush=True)
        tmp = path.with_name(".making-" + path.name)
        run_ffmpeg(
            "-f",
            "lavfi",
            "-i",
            "aevalsrc='0.3*sin(2*PI*(300+100*mod(floor(t/5),20))*t)':s=48000:d=3600",
            "-f",
            "lavfi",
            "-i",
            "anoisesrc=color=pink:sample_rate=48000:duration=3600:amplitude=0.05",
            "-filter_complex",
            "[0][1]amix=inputs=2,aformat=channel_layouts=stereo",
            "-c:a",
            "aac",
            "-b:a",
            "128k",
            "-f",
            "mp4",
            str(tmp),
        )
        tmp.rename(path)
    return path


def timed_ms(fn, *args, **kw):
    """(result, milliseconds) of one call."""
    start = time.perf_counter()
    result = fn(*args, **kw)
    return result, (time.perf_counter() - start) * 1000


def summary(values_ms: list[float]) -> dict:
    ordered = sorted(values_ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "n": len(ordered),
        "median_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(p95, 3),
        "max_ms": round(ordered[-1], 3),
    }


def report(title: str, rows: list[tuple[str, str]], figures: dict) -> None:
    """A two-column table for people, then the figures as one JSON object. The machine's load
    average goes with them: other work on the 2 cores slows every figure here."""
    figures = {**figures, "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()]}
    rows = [*rows, ("load average (1/5/15 min)", " ".join(f"{x:.1f}" for x in os.getloadavg()))]
    width = max(len(name) for name, _ in rows)
    print(f"\n{title}\n" + "-" * len(title))
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")
    print("\n" + json.dumps(figures, indent=1))
