"""How fast a cited 4 s visual segment becomes a playable clip, and whether it starts on the cited frame.

    .venv/bin/python benchmarks/clip_speed.py [--clips 20] [--baseline-clips 3] [--seed 0]
        [--reuse-proxy] [--chromium-clips 5]

Source: a generated 10-minute 1280×720 25 fps H.264 + AAC file with a keyframe every 10 s,
every frame showing its index (benchmarks/out/, made once). Measured in this one run:
- proxy build time against the media's duration (make_proxy; skipped with --reuse-proxy);
- cut_clip from the proxy at random offsets: cold (proxy exists, clip not cached) and cached;
- baselines on the same offsets: a default-preset libx264 re-encode of the original, moviepy's
  write_videofile, and cut_clip without a proxy (ultrafast re-encode, the fallback);
- start-frame accuracy: the index on the first frame ffmpeg decodes from each clip (edit lists
  honoured, as a browser does) minus cited time × fps; the same ignoring the edit list (what
  a player without edit-list support would show); and, when /usr/bin/chromium exists, the first
  frame Chromium itself paints.
Targets: cold ≤ 100 ms, cached ≤ 5 ms, ≥ 20× the default-preset baseline, start within ±1 frame.
"""

from __future__ import annotations

import argparse
import functools
import random
import shutil
import tempfile
from pathlib import Path

from _media import LONG_FPS, LONG_H, LONG_INDEX_BITS, LONG_W, OUT, long_video, report, summary, timed_ms
from media_fixtures import CHROMIUM, first_frame_indices_in_chromium, frame_index_of, run_ffmpeg

from annotation.media.clips import cut_clip, make_proxy
from annotation.media.files import file_sha256, probe_media

SEGMENT_S = 4.0


def default_preset_reencode(source: Path, start_s: float, out: Path) -> None:
    run_ffmpeg(
        "-ss",
        f"{start_s:.3f}",
        "-i",
        str(source),
        "-t",
        str(SEGMENT_S),
        "-an",
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        str(out),
    )


def moviepy_write(source: Path, start_s: float, out: Path) -> None:
    from moviepy import VideoFileClip

    with VideoFileClip(str(source), audio=False) as video:
        video.subclipped(start_s, start_s + SEGMENT_S).write_videofile(
            str(out), codec="libx264", audio=False, logger=None
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=20)
    parser.add_argument("--baseline-clips", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reuse-proxy", action="store_true")
    parser.add_argument("--chromium-clips", type=int, default=5)
    args = parser.parse_args()

    source = long_video()
    duration_s = probe_media(source).duration_s
    media_hash, hash_ms = timed_ms(file_sha256, source)
    proxy = OUT / f"proxy_{source.name}"
    proxy_build_s = None
    if not (args.reuse_proxy and proxy.exists()):
        _, build_ms = timed_ms(make_proxy, source, proxy)
        proxy_build_s = build_ms / 1000
    rng = random.Random(args.seed)
    offsets = [round(rng.uniform(0, duration_s - SEGMENT_S - 1), 3) for _ in range(args.clips)]
    work = Path(tempfile.mkdtemp(prefix="clip_speed_", dir=OUT))
    try:
        cache = work / "cache"
        _, first_ms = timed_ms(
            cut_clip, source, media_hash, "visual", 1.0, 1.0 + SEGMENT_S, 0.0, cache, proxy=proxy
        )  # the first call of a process also probes the media
        cold, cached, clips = [], [], []
        for t in offsets:
            clip, ms = timed_ms(
                cut_clip, source, media_hash, "visual", t, t + SEGMENT_S, 0.0, cache, proxy=proxy
            )
            cold.append(ms)
            clips.append(clip)
            cached.append(
                timed_ms(cut_clip, source, media_hash, "visual", t, t + SEGMENT_S, 0.0, cache, proxy=proxy)[1]
            )
        long_index = functools.partial(
            frame_index_of, width=LONG_W, height=LONG_H, index_bits=LONG_INDEX_BITS
        )
        errors = [long_index(c.path) - t * LONG_FPS for c, t in zip(clips, offsets, strict=True)]
        errors_no_edl = [
            long_index(c.path, honour_edit_list=False) - t * LONG_FPS
            for c, t in zip(clips, offsets, strict=True)
        ]
        chromium_errors = None
        if CHROMIUM.exists() and args.chromium_clips:
            shown = first_frame_indices_in_chromium(
                [c.path for c in clips[: args.chromium_clips]],
                width=LONG_W,
                height=LONG_H,
                index_bits=LONG_INDEX_BITS,
            )
            chromium_errors = [i - t * LONG_FPS for i, t in zip(shown, offsets[: len(shown)], strict=True)]
        frame_ms = [
            timed_ms(cut_clip, source, media_hash, "visual", t, t, 0.0, cache, proxy=proxy)[1]
            for t in offsets[:5]
        ]
        audio_ms = [
            timed_ms(cut_clip, source, media_hash, "audio", t, t + SEGMENT_S, 0.0, cache)[1]
            for t in offsets[:5]
        ]

        base = offsets[: args.baseline_clips]
        fallback_ms = [
            timed_ms(cut_clip, source, media_hash, "visual", t, t + SEGMENT_S, 0.0, work / "direct")[1]
            for t in base
        ]
        default_ms = [
            timed_ms(default_preset_reencode, source, t, work / f"default_{i}.mp4")[1]
            for i, t in enumerate(base)
        ]
        moviepy_ms = [
            timed_ms(moviepy_write, source, t, work / f"moviepy_{i}.mp4")[1] for i, t in enumerate(base)
        ]
        proxy_size_mb = proxy.stat().st_size / 1e6
    finally:
        shutil.rmtree(work, ignore_errors=True)

    cold_s, cached_s = summary(cold), summary(cached)
    default_s, moviepy_s, fallback_s = summary(default_ms), summary(moviepy_ms), summary(fallback_ms)
    max_err = max(abs(e) for e in errors)
    figures = {
        "source": {
            "duration_s": duration_s,
            "size": f"{LONG_W}x{LONG_H}",
            "fps": LONG_FPS,
            "keyframe_every_s": 10,
            "sha256_ms": round(hash_ms, 1),
        },
        "proxy": {
            "build_s": proxy_build_s,
            "x_real_time": proxy_build_s and round(duration_s / proxy_build_s, 2),
            "size_mb": round(proxy_size_mb, 1),
        },
        "first_call_with_probe_ms": round(first_ms, 1),
        "cold_from_proxy": cold_s,
        "cached": cached_s,
        "frame_jpg_from_proxy": summary(frame_ms),
        "audio_wav": summary(audio_ms),
        "baseline_no_proxy_ultrafast": fallback_s,
        "baseline_default_preset": default_s,
        "baseline_moviepy": moviepy_s,
        "speedup_vs_default_preset": round(default_s["median_ms"] / cold_s["median_ms"], 1),
        "speedup_vs_moviepy": round(moviepy_s["median_ms"] / cold_s["median_ms"], 1),
        "start_frame_error_frames": {
            "min": round(min(errors), 2),
            "max": round(max(errors), 2),
            "within_1_frame": sum(abs(e) <= 1 for e in errors),
            "n": len(errors),
        },
        "start_frame_error_ignoring_edit_list_frames": {
            "min": round(min(errors_no_edl), 2),
            "max": round(max(errors_no_edl), 2),
        },
        "chromium_start_frame_error_frames": chromium_errors and [round(e, 2) for e in chromium_errors],
        "targets_met": {
            "cold_le_100ms": cold_s["median_ms"] <= 100,
            "cached_le_5ms": cached_s["max_ms"] <= 5,
            "ge_20x_default": default_s["median_ms"] / cold_s["median_ms"] >= 20,
            "start_within_1_frame": max_err <= 1,
        },
    }
    rows = [
        (
            "proxy build",
            f"{proxy_build_s:.1f} s for {duration_s:.0f} s of media ({duration_s / proxy_build_s:.1f}× real time)"
            if proxy_build_s
            else "reused",
        ),
        ("proxy size", f"{proxy_size_mb:.1f} MB"),
        (
            "cold clip from proxy",
            f"median {cold_s['median_ms']:.1f} ms, p95 {cold_s['p95_ms']:.1f} ms (n={len(cold)})",
        ),
        ("cached clip", f"median {cached_s['median_ms']:.3f} ms, max {cached_s['max_ms']:.3f} ms"),
        ("frame jpg from proxy", f"median {summary(frame_ms)['median_ms']:.1f} ms"),
        ("audio wav", f"median {summary(audio_ms)['median_ms']:.1f} ms"),
        ("no proxy (ultrafast 480p)", f"median {fallback_s['median_ms']:.0f} ms"),
        (
            "default-preset re-encode",
            f"median {default_s['median_ms']:.0f} ms "
            f"→ {figures['speedup_vs_default_preset']}× slower than cold",
        ),
        (
            "moviepy write_videofile",
            f"median {moviepy_s['median_ms']:.0f} ms → {figures['speedup_vs_moviepy']}× slower",
        ),
        (
            "start frame error",
            f"{min(errors):+.2f} … {max(errors):+.2f} frames "
            f"({figures['start_frame_error_frames']['within_1_frame']}/{len(errors)} within ±1)",
        ),
        ("  ignoring edit list", f"{min(errors_no_edl):+.2f} … {max(errors_no_edl):+.2f} frames"),
        ("  in Chromium", ", ".join(f"{e:+.2f}" for e in chromium_errors) if chromium_errors else "not run"),
        ("targets met", ", ".join(f"{k}={v}" for k, v in figures["targets_met"].items())),
    ]
    report("clip speed (benchmarks/clip_speed.py)", rows, figures)


if __name__ == "__main__":
    main()
