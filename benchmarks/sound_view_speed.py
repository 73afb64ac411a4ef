"""Waveform + spectrogram for one hour of audio: first view, cached view, figure payload.

    .venv/bin/python benchmarks/sound_view_speed.py [--repeats 5]

Source: a generated hour of 48 kHz stereo AAC (benchmarks/out/, made once). Measured in this run,
in a process whose libraries are loaded (the mel filter bank's first build is reported on its own):
- first view: load_sound_view(overview_first=True) with an empty cache: an overview from short
  runs of AAC frames read straight from the MP4 while the exact view is computed in the
  background; also the overview alone, repeated, and the time until the exact view is cached;
- baseline: the exact first view (decode the whole hour in two ffmpeg processes + envelope +
  mel spectrogram), its parts, and librosa's melspectrogram on the same samples;
- how close the overview is to the exact view (dB correlation, mean |ΔdB|, envelope peaks);
- cached view: load_sound_view again (reads the .npz);
- a cited 6 s span's view, cold (what the annotate page needs per citation);
- payload: the plotly JSON of the annotate page's figure of the whole media's sound (the citation
  timeline, no citation on it, with the waveform's min/max band and the heatmap below), with the
  heatmap as compact int8 decibels (as the page sends it) and, for comparison, as float32.
Targets: first ≤ 1 s, then ≤ 100 ms; payload ≤ 200 KB.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from _media import OUT, hour_audio, report, summary, timed_ms

from annotation.media.aac_frames import read_aac_track
from annotation.media.clips import decode_audio
from annotation.media.files import file_sha256, probe_media
from annotation.media.sound_cache import decode_span, load_sound_view, wait_for_exact_views
from annotation.media.soundview import (
    mel_filterbank,
    mel_spectrogram_db,
    sampled_sound_view,
    waveform_envelope,
)


def sound_figure(view, heatmap=None):
    """The annotate page's figure of the whole media's sound: the citation timeline with the
    waveform and spectrogram below (pages/widgets/timeline.py), no citation on it; `heatmap`
    replaces its int8 dB."""
    from pages.widgets.timeline import timeline_figure

    figure = timeline_figure([], view.start_s + view.duration_s, view)
    if heatmap is not None:
        figure.update_traces(z=heatmap, selector={"type": "heatmap"})
    return figure


def closeness(overview, exact) -> dict:
    """How far the overview is from the exact view of the same span and shape."""
    return {
        "db_correlation": round(
            float(np.corrcoef(overview.spectrogram_db.ravel(), exact.spectrogram_db.ravel())[0, 1]), 4
        ),
        "mean_abs_db_difference": round(
            float(np.abs(overview.spectrogram_db - exact.spectrogram_db).mean()), 2
        ),
        "envelope_peak_ratio_median": round(
            float(np.median(overview.envelope_maxs / exact.envelope_maxs)), 3
        ),
        "decoded_fraction": round(overview.decoded_fraction, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    audio = hour_audio()
    duration_s = probe_media(audio).duration_s
    media_hash = file_sha256(audio)
    _, filterbank_ms = timed_ms(mel_filterbank, 16000, 1024, 64)  # once per process
    work = Path(tempfile.mkdtemp(prefix="sound_view_", dir=OUT))
    try:
        track = read_aac_track(audio)
        overview_ms = [timed_ms(sampled_sound_view, track, 0.0, duration_s)[1] for _ in range(args.repeats)]
        start = time.perf_counter()
        overview = load_sound_view(audio, media_hash, work / "cache", overview_first=True)
        first_ms = (time.perf_counter() - start) * 1000
        wait_for_exact_views()
        exact_ready_ms = (time.perf_counter() - start) * 1000
        cached_ms = [
            timed_ms(load_sound_view, audio, media_hash, work / "cache", overview_first=True)[1]
            for _ in range(args.repeats)
        ]
        view, exact_first_ms = timed_ms(load_sound_view, audio, media_hash, work / "baseline")
        span_view, span_ms = timed_ms(
            load_sound_view, audio, media_hash, work / "cache", start_s=1800.0, end_s=1806.0
        )
        samples, decode2_ms = timed_ms(decode_span, audio, 0.0, None, 16000)
        _, decode1_ms = timed_ms(decode_audio, audio)
        _, envelope_ms = timed_ms(waveform_envelope, samples, 16000)
        _, mel_ms = timed_ms(mel_spectrogram_db, samples, 16000)
        import librosa

        _, librosa_ms = timed_ms(
            lambda: librosa.power_to_db(
                librosa.feature.melspectrogram(
                    y=samples, sr=16000, n_fft=1024, hop_length=1024, center=False, n_mels=64
                ),
                ref=np.max,
                top_db=80,
            )
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    compact_json = sound_figure(view).to_json()
    float_json = sound_figure(view, view.spectrogram_db).to_json()
    cached_s, overview_s = summary(cached_ms), summary(overview_ms)
    close = closeness(overview, view)
    figures = {
        "audio": {"duration_s": duration_s, "format": "AAC 48 kHz stereo"},
        "first_view_ms": round(first_ms, 1),
        "overview_alone": overview_s,
        "exact_view_cached_after_ms": round(exact_ready_ms, 1),
        "baseline_exact_first_view_ms": round(exact_first_ms, 1),
        "first_view_speedup_vs_exact": round(exact_first_ms / first_ms, 1),
        "overview_vs_exact": close,
        "cached_view": cached_s,
        "mel_filterbank_once_per_process_ms": round(filterbank_ms, 1),
        "span_6s_first_view_ms": round(span_ms, 1),
        "parts_ms": {
            "decode_two_processes": round(decode2_ms, 1),
            "decode_one_process": round(decode1_ms, 1),
            "envelope": round(envelope_ms, 1),
            "mel_spectrogram": round(mel_ms, 1),
        },
        "baseline_librosa_melspectrogram_ms": round(librosa_ms, 1),
        "shape": {
            "envelope_columns": int(view.envelope_times_s.size),
            "spectrogram": list(view.spectrogram_db.shape),
        },
        "payload_bytes": {
            "int8_heatmap": len(compact_json.encode()),
            "float32_heatmap": len(float_json.encode()),
        },
        "targets_met": {
            "first_le_1s": first_ms <= 1000,
            "cached_le_100ms": cached_s["max_ms"] <= 100,
            "payload_le_200KB": len(compact_json.encode()) <= 200_000,
        },
    }
    rows = [
        (
            "first view (1 h, overview)",
            f"{first_ms:.0f} ms; overview alone median {overview_s['median_ms']:.0f} ms, "
            f"max {overview_s['max_ms']:.0f} ms",
        ),
        ("  exact view cached after", f"{exact_ready_ms:.0f} ms (in the background)"),
        (
            "  overview vs exact",
            f"dB r {close['db_correlation']}, mean |ΔdB| {close['mean_abs_db_difference']}, "
            f"peaks {close['envelope_peak_ratio_median']:.0%}, "
            f"decoded {close['decoded_fraction']:.1%} of the audio",
        ),
        (
            "baseline: exact first view",
            f"{exact_first_ms:.0f} ms ({exact_first_ms / first_ms:.1f}× the first view)",
        ),
        ("  decode, 2 processes", f"{decode2_ms:.0f} ms (1 process: {decode1_ms:.0f} ms)"),
        (
            "  envelope / mel",
            f"{envelope_ms:.0f} ms / {mel_ms:.0f} ms (librosa melspectrogram: {librosa_ms:.0f} ms)",
        ),
        ("mel filter bank, once per process", f"{filterbank_ms:.0f} ms"),
        ("cached view", f"median {cached_s['median_ms']:.1f} ms, max {cached_s['max_ms']:.1f} ms"),
        ("6 s span, first view", f"{span_ms:.0f} ms"),
        ("payload int8 heatmap", f"{len(compact_json.encode()) / 1000:.0f} KB"),
        ("payload float32 heatmap", f"{len(float_json.encode()) / 1000:.0f} KB"),
        ("targets met", ", ".join(f"{k}={v}" for k, v in figures["targets_met"].items())),
    ]
    report("sound view speed (benchmarks/sound_view_speed.py)", rows, figures)


if __name__ == "__main__":
    main()
