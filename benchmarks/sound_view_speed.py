"""Waveform + spectrogram for one hour of audio: first view, cached view, figure payload.

    .venv/bin/python benchmarks/sound_view_speed.py [--repeats 5]

Source: a generated hour of 48 kHz stereo AAC (benchmarks/out/, made once). Measured in this run:
- first view: load_sound_view with an empty cache (decode in two ffmpeg processes + envelope
  + mel spectrogram + write the .npz), and its parts; baselines: one-process decode and
  librosa's melspectrogram on the same samples with the same framing;
- cached view: load_sound_view again (reads the .npz);
- a cited 6 s span's view, cold (what the annotate page needs per citation);
- payload: the plotly JSON of a waveform (min/max band) + heatmap figure, with the heatmap as
  compact int8 decibels and, for comparison, as float32.
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

from annotation.media import decode_audio, file_sha256, probe_media
from annotation.soundview import (
    _decode_span,
    compact_db,
    load_sound_view,
    mel_spectrogram_db,
    waveform_envelope,
)


def sound_figure(view, z):
    """The figure a waveform widget would draw: a min/max band above a mel heatmap."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.4, 0.6], vertical_spacing=0.02)
    fig.add_trace(go.Scatter(x=view.envelope_times_s, y=view.envelope_maxs, mode="lines", line_width=0.5,
                             showlegend=False), row=1, col=1)
    fig.add_trace(go.Scatter(x=view.envelope_times_s, y=view.envelope_mins, mode="lines", line_width=0.5,
                             fill="tonexty", showlegend=False), row=1, col=1)
    fig.add_trace(go.Heatmap(x=view.spectrogram_times_s, y=view.mel_freqs_hz, z=z, colorscale="Magma",
                             showscale=False), row=2, col=1)
    fig.update_yaxes(type="log", row=2, col=1)
    return fig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    audio = hour_audio()
    duration_s = probe_media(audio).duration_s
    media_hash = file_sha256(audio)
    work = Path(tempfile.mkdtemp(prefix="sound_view_", dir=OUT))
    try:
        view, first_ms = timed_ms(load_sound_view, audio, media_hash, work / "cache")
        cached_ms = [timed_ms(load_sound_view, audio, media_hash, work / "cache")[1] for _ in range(args.repeats)]
        span_view, span_ms = timed_ms(load_sound_view, audio, media_hash, work / "cache", start_s=1800.0,
                                      end_s=1806.0)
        samples, decode2_ms = timed_ms(_decode_span, audio, 0.0, None, 16000)
        _, decode1_ms = timed_ms(decode_audio, audio)
        _, envelope_ms = timed_ms(waveform_envelope, samples, 16000)
        _, mel_ms = timed_ms(mel_spectrogram_db, samples, 16000)
        start = time.perf_counter()
        import librosa
        librosa.power_to_db(librosa.feature.melspectrogram(y=samples[:16384], sr=16000, n_fft=1024,
                                                           hop_length=1024, center=False, n_mels=64))
        librosa_first_ms = (time.perf_counter() - start) * 1000
        _, librosa_ms = timed_ms(lambda: librosa.power_to_db(librosa.feature.melspectrogram(
            y=samples, sr=16000, n_fft=1024, hop_length=1024, center=False, n_mels=64), ref=np.max, top_db=80))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    compact_json = sound_figure(view, compact_db(view.spectrogram_db)).to_json()
    float_json = sound_figure(view, view.spectrogram_db).to_json()
    cached_s = summary(cached_ms)
    figures = {
        "audio": {"duration_s": duration_s, "format": "AAC 48 kHz stereo"},
        "first_view_ms": round(first_ms, 1), "cached_view": cached_s,
        "span_6s_first_view_ms": round(span_ms, 1),
        "parts_ms": {"decode_two_processes": round(decode2_ms, 1), "decode_one_process": round(decode1_ms, 1),
                     "envelope": round(envelope_ms, 1), "mel_spectrogram": round(mel_ms, 1)},
        "baseline_librosa_melspectrogram_ms": round(librosa_ms, 1),
        "baseline_librosa_first_call_on_a_small_input_ms": round(librosa_first_ms, 1),
        "shape": {"envelope_columns": int(view.envelope_times_s.size),
                  "spectrogram": list(view.spectrogram_db.shape)},
        "payload_bytes": {"int8_heatmap": len(compact_json.encode()), "float32_heatmap": len(float_json.encode())},
        "targets_met": {"first_le_1s": first_ms <= 1000, "cached_le_100ms": cached_s["max_ms"] <= 100,
                        "payload_le_200KB": len(compact_json.encode()) <= 200_000},
    }
    rows = [
        ("first view (1 h)", f"{first_ms:.0f} ms"),
        ("  decode, 2 processes", f"{decode2_ms:.0f} ms (1 process: {decode1_ms:.0f} ms)"),
        ("  envelope / mel", f"{envelope_ms:.0f} ms / {mel_ms:.0f} ms "
                             f"(librosa melspectrogram: {librosa_ms:.0f} ms, first call {librosa_first_ms:.0f} ms)"),
        ("cached view", f"median {cached_s['median_ms']:.1f} ms, max {cached_s['max_ms']:.1f} ms"),
        ("6 s span, first view", f"{span_ms:.0f} ms"),
        ("payload int8 heatmap", f"{len(compact_json.encode()) / 1000:.0f} KB"),
        ("payload float32 heatmap", f"{len(float_json.encode()) / 1000:.0f} KB"),
        ("targets met", ", ".join(f"{k}={v}" for k, v in figures["targets_met"].items())),
    ]
    report("sound view speed (benchmarks/sound_view_speed.py)", rows, figures)


if __name__ == "__main__":
    main()
