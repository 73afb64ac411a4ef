"""Data for looking at sound: a min/max waveform envelope and a mel spectrogram in dB.

Pure numpy, no plotting: a widget turns these arrays into a figure. Both are reduced to a fixed
number of columns, so the figure for an hour of audio is as small as for ten seconds.
`load_sound_view` decodes a media file once and keeps the arrays on disk per media hash.
The mel filters come from librosa; the STFT is done here in blocks (bounded memory for an hour
of audio, two threads) and averaged into a fixed number of columns.
"""
from __future__ import annotations

import functools
import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path

import librosa
import numpy as np
import scipy.fft

from annotation.media import check_media_hash, decode_audio, probe_media, temp_path_beside

TOP_DB = 80.0                # dynamic range shown; quieter is drawn at −80 dB
_SILENCE_POWER = 1e-10       # below this everywhere, the audio is digital silence
_FRAMES_PER_BLOCK = 4096     # bounds memory while transforming an hour of audio
_PARALLEL_DECODE_S = 120.0   # longer spans are decoded by two ffmpeg processes at once


def downmix(samples: np.ndarray) -> np.ndarray:
    """Mono float32 samples. 2-D input is (channels, n) as librosa returns or (n, channels):
    the shorter axis is taken as channels and averaged. More than 2 dimensions → ValueError."""
    samples = np.asarray(samples, dtype=np.float32)
    if samples.ndim == 1:
        return samples
    if samples.ndim != 2:
        raise ValueError(f"samples must be 1-D or 2-D, got shape {samples.shape}")
    channel_axis = 0 if samples.shape[0] <= samples.shape[1] else 1
    return samples.mean(axis=channel_axis, dtype=np.float32)


def waveform_envelope(samples: np.ndarray, sample_rate: int, width: int = 1200
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(times_s, mins, maxs): the lowest and highest sample in each of at most `width` equal
    columns; `times_s` are column centres from the first sample. Fewer samples than `width` →
    one column per sample; none → three empty arrays. width < 1 or sample_rate ≤ 0 → ValueError.
    """
    if width < 1 or sample_rate <= 0:
        raise ValueError(f"width ({width}) and sample_rate ({sample_rate}) must be positive")
    mono = downmix(samples)
    n = mono.size
    if n == 0:
        empty = np.zeros(0, dtype=np.float32)
        return empty, empty, empty
    columns = min(width, n)
    edges = (np.arange(columns + 1, dtype=np.int64) * n) // columns
    mins = np.minimum.reduceat(mono, edges[:-1])
    maxs = np.maximum.reduceat(mono, edges[:-1])
    times = ((edges[:-1] + edges[1:]) / 2 / sample_rate).astype(np.float32)
    return times, mins, maxs


def _fft_size(sample_rate: int) -> int:
    """A power of two near 64 ms, the usual window for speech and music."""
    return 2 ** max(6, round(math.log2(sample_rate * 0.064)))


@functools.lru_cache(maxsize=16)
def _mel_filterbank(sample_rate: int, n_fft: int, n_mels: int) -> np.ndarray:
    """(1 + n_fft // 2, n_mels) librosa mel filters (Slaney scale, unit area), memoised: the
    first call in a process costs ~1 s while librosa loads, later ones nothing."""
    return np.ascontiguousarray(librosa.filters.mel(sr=sample_rate, n_fft=n_fft, n_mels=n_mels).T,
                                dtype=np.float32)


def _mel_centres_hz(n_mels: int, sample_rate: int) -> np.ndarray:
    """The centre frequency of each mel band (librosa's band edges without the outer two)."""
    return librosa.mel_frequencies(n_mels=n_mels + 2, fmin=0.0, fmax=sample_rate / 2)[1:-1]


def _mel_power_per_frame(mono: np.ndarray, n_frames: int, n_fft: int, hop: int,
                         mel_basis: np.ndarray) -> np.ndarray:
    """(n_frames, n_mels) mel power of Hann-windowed frames starting every `hop` samples; the
    last frame is zero-padded when it runs past the end. Blocks run on two threads (numpy and
    scipy release the GIL), which halves the time for an hour of audio on two cores."""
    window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)).astype(np.float32)  # periodic
    whole = n_frames if (n_frames - 1) * hop + n_fft <= mono.size else n_frames - 1
    frames = np.lib.stride_tricks.sliding_window_view(mono, n_fft)[::hop][:whole] if whole else None
    mel_power = np.empty((n_frames, mel_basis.shape[1]), dtype=np.float32)

    def transform(first: int) -> None:
        if first == whole:                      # the one zero-padded frame at the end
            block = np.zeros((1, n_fft), dtype=np.float32)
            tail = mono[first * hop:]
            block[0, :tail.size] = tail
        else:
            block = frames[first:min(first + _FRAMES_PER_BLOCK, whole)]
        spectrum = scipy.fft.rfft(block * window, axis=1)
        mel_power[first:first + len(block)] = (spectrum.real ** 2 + spectrum.imag ** 2) @ mel_basis

    starts = list(range(0, whole, _FRAMES_PER_BLOCK)) + ([whole] if whole < n_frames else [])
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(transform, starts))
    return mel_power


def mel_spectrogram_db(samples: np.ndarray, sample_rate: int, n_mels: int = 64,
                       max_columns: int = 600) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(times_s, mel_freqs_hz, db): a mel power spectrogram of at most `max_columns` columns.

    Short audio gets one column per STFT frame (hop ≥ a quarter window); long audio is cut into
    back-to-back windows whose power is averaged into `max_columns` columns, so every sample
    counts. `db` is float32 (n_mels × columns), 0 dB at the loudest cell, floored at −80 dB;
    digital silence is −80 everywhere. No samples → zero columns. Bad sizes → ValueError.
    """
    if n_mels < 1 or max_columns < 1 or sample_rate <= 0:
        raise ValueError("n_mels, max_columns and sample_rate must be positive")
    mono = downmix(samples)
    n_fft = _fft_size(sample_rate)
    mel_freqs = _mel_centres_hz(n_mels, sample_rate)
    if mono.size == 0:
        return np.zeros(0, np.float32), mel_freqs.astype(np.float32), np.zeros((n_mels, 0), np.float32)
    hop = int(min(n_fft, max(n_fft // 4, math.ceil(mono.size / max_columns))))
    n_frames = 1 + math.ceil(max(mono.size - n_fft, 0) / hop)
    mel_power = _mel_power_per_frame(mono, n_frames, n_fft, hop,
                                     _mel_filterbank(sample_rate, n_fft, n_mels))
    columns = min(max_columns, n_frames)
    edges = (np.arange(columns + 1, dtype=np.int64) * n_frames) // columns
    pooled = np.add.reduceat(mel_power, edges[:-1], axis=0) / np.diff(edges)[:, None]
    # A column's time is the middle of the samples its frames cover, within the audio.
    first_sample = edges[:-1] * hop
    last_sample = np.minimum((edges[1:] - 1) * hop + n_fft, mono.size)
    times = ((first_sample + last_sample) / 2 / sample_rate).astype(np.float32)
    peak = float(pooled.max())
    if peak <= _SILENCE_POWER:
        db = np.full((n_mels, columns), -TOP_DB, dtype=np.float32)
    else:
        db = np.maximum(10 * np.log10(np.maximum(pooled.T, _SILENCE_POWER) / peak), -TOP_DB)
    return times, mel_freqs.astype(np.float32), db.astype(np.float32)


def compact_db(db: np.ndarray) -> np.ndarray:
    """dB values rounded to whole decibels as int8 (range −80..0), so a heatmap costs one byte
    a cell when a figure serialises it (plotly sends typed arrays as base64)."""
    return np.clip(np.rint(db), -128, 127).astype(np.int8)


@dataclass(frozen=True)
class SoundView:
    """Everything a waveform + spectrogram widget draws. Times are seconds in the media;
    the view covers [start_s, start_s + duration_s) (duration = the samples decoded)."""

    start_s: float
    duration_s: float
    envelope_times_s: np.ndarray
    envelope_mins: np.ndarray
    envelope_maxs: np.ndarray
    spectrogram_times_s: np.ndarray
    mel_freqs_hz: np.ndarray
    spectrogram_db: np.ndarray


def _decode_span(source: Path, start_s: float, end_s: float | None, sample_rate: int) -> np.ndarray:
    """decode_audio, split across two ffmpeg processes for long spans (two cores, half the wait)."""
    if end_s is None:
        end_s = probe_media(source).duration_s
    if end_s - start_s < _PARALLEL_DECODE_S:
        return decode_audio(source, start_s, end_s, sample_rate)
    middle = start_s + round((end_s - start_s) / 2 * sample_rate) / sample_rate
    with ThreadPoolExecutor(max_workers=2) as pool:
        halves = list(pool.map(lambda span: decode_audio(source, *span, sample_rate),
                               [(start_s, middle), (middle, end_s)]))
    return np.concatenate(halves)


def load_sound_view(source: Path, media_hash: str, cache_dir: Path, *, start_s: float = 0.0,
                    end_s: float | None = None, sample_rate: int = 16000, width: int = 1200,
                    n_mels: int = 64, max_columns: int = 600) -> SoundView:
    """The sound view of [start_s, end_s) of `source` (None = to the end), cached on disk.

    First call decodes the audio and computes both views; later calls with the same arguments
    load `cache_dir/media_hash/sound_….npz` (~1 ms). Decoding dominates the first call (an
    hour of AAC takes 3–6 s on two idle cores), so call it once for the whole file at import,
    in the background next to `make_proxy`; a cited span's view is ~0.1 s cold.
    Errors as for `decode_audio`; a media_hash that is not a plain name → ValueError.
    """
    check_media_hash(media_hash)
    end_tag = "end" if end_s is None else str(round(end_s * 1000))
    path = Path(cache_dir) / media_hash / (
        f"sound_{round(start_s * 1000)}-{end_tag}_sr{sample_rate}_w{width}_m{n_mels}"
        f"_c{max_columns}.npz")
    try:
        with np.load(path) as stored:
            arrays = {f.name: stored[f.name] for f in fields(SoundView)}
        return SoundView(**{**arrays, "start_s": float(arrays["start_s"]),
                            "duration_s": float(arrays["duration_s"])})
    except (OSError, KeyError, ValueError):
        pass                                  # not cached yet (or unreadable): compute it
    samples = _decode_span(Path(source), start_s, end_s, sample_rate)
    env_times, mins, maxs = waveform_envelope(samples, sample_rate, width)
    spec_times, mel_freqs, db = mel_spectrogram_db(samples, sample_rate, n_mels, max_columns)
    view = SoundView(float(start_s), samples.size / sample_rate, env_times + start_s, mins, maxs,
                     spec_times + start_s, mel_freqs, db)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path_beside(path)
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **{fl.name: getattr(view, fl.name) for fl in fields(SoundView)})
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return view
