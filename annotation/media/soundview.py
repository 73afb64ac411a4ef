"""Data for looking at sound: a min/max waveform envelope and a mel spectrogram in dB.

Pure numpy, no plotting: a widget turns these arrays into a figure. Both are reduced to a fixed
number of columns, so the figure for an hour of audio is as small as for ten seconds.
`annotation.media.sound_cache.load_sound_view` decodes a media file and keeps these arrays on disk.
The mel filters are librosa's (Slaney scale, unit area), written here in numpy: importing librosa
compiles its numba functions in each fresh process (≈ 30 CPU s until cached). The STFT is done here
in blocks (bounded memory for an hour of audio, two threads) and averaged into a fixed number of
columns.

`sampled_sound_view` builds an *overview* of a long span from a short run of AAC frames under
each screen column, read straight from the MP4 (`annotation.media.aac_frames`): a few percent of the
audio decoded. `SoundView.decoded_fraction` tells it from the exact view.
"""

from __future__ import annotations

import functools
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.fft

from annotation.media.aac_frames import SAMPLES_PER_FRAME, AacTrack, decode_frames

TOP_DB = 80.0  # dynamic range shown; quieter is drawn at −80 dB
_SILENCE_POWER = 1e-10  # below this everywhere, the audio is digital silence
_FRAMES_PER_BLOCK = 4096  # bounds memory while transforming an hour of audio
SAMPLED_MIN_SPAN_S = 300.0  # shorter spans decode whole in well under a second: no overview
_RUN_MARGIN = 16  # output samples dropped at each end of a run (resampler smear)


def downmix(samples: np.ndarray) -> np.ndarray:
    """Mono float32 samples. 2-D input is (channels, n) or (n, channels):
    the shorter axis is taken as channels and averaged. More than 2 dimensions → ValueError."""
    samples = np.asarray(samples, dtype=np.float32)
    if samples.ndim == 1:
        return samples
    if samples.ndim != 2:
        raise ValueError(f"samples must be 1-D or 2-D, got shape {samples.shape}")
    channel_axis = 0 if samples.shape[0] <= samples.shape[1] else 1
    return samples.mean(axis=channel_axis, dtype=np.float32)


def waveform_envelope(
    samples: np.ndarray, sample_rate: int, width: int = 1200
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


# Slaney's mel scale (librosa's default, htk=False): linear below 1 kHz, logarithmic above.
_MEL_HZ_PER_MEL = 200.0 / 3  # the linear part's step
_MEL_LOG_START_HZ = 1000.0
_MEL_LOG_START = _MEL_LOG_START_HZ / _MEL_HZ_PER_MEL
_MEL_LOG_STEP = math.log(6.4) / 27.0


def _hz_to_mel(hz: float) -> float:
    if hz < _MEL_LOG_START_HZ:
        return hz / _MEL_HZ_PER_MEL
    return _MEL_LOG_START + math.log(hz / _MEL_LOG_START_HZ) / _MEL_LOG_STEP


def mel_frequencies(n_mels: int, fmin: float, fmax: float) -> np.ndarray:
    """`n_mels` frequencies (Hz) equally spaced on the Slaney mel scale from fmin to fmax,
    as librosa.mel_frequencies(htk=False)."""
    mels = np.linspace(_hz_to_mel(fmin), _hz_to_mel(fmax), n_mels)
    return np.where(
        mels < _MEL_LOG_START,
        mels * _MEL_HZ_PER_MEL,
        _MEL_LOG_START_HZ * np.exp(_MEL_LOG_STEP * (mels - _MEL_LOG_START)),
    )


@functools.lru_cache(maxsize=16)
def mel_filterbank(sample_rate: int, n_fft: int, n_mels: int) -> np.ndarray:
    """(1 + n_fft // 2, n_mels) mel filters as librosa.filters.mel makes them (Slaney scale,
    0 Hz to Nyquist, triangles scaled to unit area), memoised."""
    band_edges = mel_frequencies(n_mels + 2, 0.0, sample_rate / 2)
    fft_freqs = np.fft.rfftfreq(n=n_fft, d=1.0 / sample_rate)
    ramps = np.subtract.outer(band_edges, fft_freqs)  # (n_mels + 2, bins)
    widths = np.diff(band_edges)
    rising = -ramps[:-2] / widths[:-1, None]
    falling = ramps[2:] / widths[1:, None]
    weights = np.maximum(0, np.minimum(rising, falling)).astype(np.float32)
    weights *= (2.0 / (band_edges[2:] - band_edges[:-2]))[:, None]
    return np.ascontiguousarray(weights.T, dtype=np.float32)


@functools.lru_cache(maxsize=8)
def _hann(n_fft: int) -> np.ndarray:
    """The periodic Hann window every STFT frame here is multiplied by."""
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)).astype(np.float32)


def _mel_centres_hz(n_mels: int, sample_rate: int) -> np.ndarray:
    """The centre frequency of each mel band (the band edges without the outer two)."""
    return mel_frequencies(n_mels + 2, 0.0, sample_rate / 2)[1:-1]


def _mel_power_per_frame(
    mono: np.ndarray, n_frames: int, n_fft: int, hop: int, mel_basis: np.ndarray
) -> np.ndarray:
    """(n_frames, n_mels) mel power of Hann-windowed frames starting every `hop` samples; the
    last frame is zero-padded when it runs past the end. Blocks run on two threads (numpy and
    scipy release the GIL), which halves the time for an hour of audio on two cores."""
    window = _hann(n_fft)
    whole = n_frames if (n_frames - 1) * hop + n_fft <= mono.size else n_frames - 1
    frames = np.lib.stride_tricks.sliding_window_view(mono, n_fft)[::hop][:whole] if whole else None
    mel_power = np.empty((n_frames, mel_basis.shape[1]), dtype=np.float32)

    def transform(first: int) -> None:
        if first == whole:  # the one zero-padded frame at the end
            block = np.zeros((1, n_fft), dtype=np.float32)
            tail = mono[first * hop :]
            block[0, : tail.size] = tail
        else:
            block = frames[first : min(first + _FRAMES_PER_BLOCK, whole)]
        spectrum = scipy.fft.rfft(block * window, axis=1)
        mel_power[first : first + len(block)] = (spectrum.real**2 + spectrum.imag**2) @ mel_basis

    starts = list(range(0, whole, _FRAMES_PER_BLOCK)) + ([whole] if whole < n_frames else [])
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(transform, starts))
    return mel_power


def mel_spectrogram_db(
    samples: np.ndarray, sample_rate: int, n_mels: int = 64, max_columns: int = 600
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    mel_power = _mel_power_per_frame(mono, n_frames, n_fft, hop, mel_filterbank(sample_rate, n_fft, n_mels))
    columns = min(max_columns, n_frames)
    edges = (np.arange(columns + 1, dtype=np.int64) * n_frames) // columns
    pooled = np.add.reduceat(mel_power, edges[:-1], axis=0) / np.diff(edges)[:, None]
    # A column's time is the middle of the samples its frames cover, within the audio.
    first_sample = edges[:-1] * hop
    last_sample = np.minimum((edges[1:] - 1) * hop + n_fft, mono.size)
    times = ((first_sample + last_sample) / 2 / sample_rate).astype(np.float32)
    return times, mel_freqs.astype(np.float32), _power_to_db(pooled)


def _power_to_db(pooled: np.ndarray) -> np.ndarray:
    """(n_mels × columns) float32 dB of a (columns × n_mels) mel power array: 0 dB at the
    loudest cell, floored at −80 dB; digital silence is −80 everywhere."""
    peak = float(pooled.max()) if pooled.size else 0.0
    if peak <= _SILENCE_POWER:
        return np.full(pooled.T.shape, -TOP_DB, dtype=np.float32)
    return np.maximum(10 * np.log10(np.maximum(pooled.T, _SILENCE_POWER) / peak), -TOP_DB).astype(np.float32)


def compact_db(db: np.ndarray) -> np.ndarray:
    """dB values rounded to whole decibels as int8 (range −80..0), so a heatmap costs one byte
    a cell when a figure serialises it (plotly sends typed arrays as base64)."""
    return np.clip(np.rint(db), -128, 127).astype(np.int8)


@dataclass(frozen=True)
class SoundView:
    """Everything a waveform + spectrogram widget draws. Times are seconds in the media;
    the view covers [start_s, start_s + duration_s). `decoded_fraction` is 1.0 for the exact
    view; an overview built from sampled frames says how much of the audio it decoded."""

    start_s: float
    duration_s: float
    envelope_times_s: np.ndarray
    envelope_mins: np.ndarray
    envelope_maxs: np.ndarray
    spectrogram_times_s: np.ndarray
    mel_freqs_hz: np.ndarray
    spectrogram_db: np.ndarray
    decoded_fraction: float = 1.0

    @property
    def exact(self) -> bool:
        return self.decoded_fraction >= 1.0


# ---------------------------------------------------------------------------- overview of a long span


def _runs_for(track: AacTrack, start_s: float, end_s: float, runs: int, frames_per_run: int) -> np.ndarray:
    """(runs, frames_per_run) frame indices: a run of consecutive frames centred in each of
    `runs` equal parts of [start_s, end_s), kept inside the span and the track."""
    centres = start_s + (np.arange(runs) + 0.5) * (end_s - start_s) / runs
    lowest = int(np.searchsorted(track.times_s, start_s))
    highest = max(lowest, int(np.searchsorted(track.times_s, end_s)) - frames_per_run)
    first = np.clip(np.searchsorted(track.times_s, centres) - frames_per_run // 2, lowest, highest)
    return first[:, None] + np.arange(frames_per_run)


def sampled_sound_view(
    track: AacTrack,
    start_s: float,
    end_s: float,
    sample_rate: int = 16000,
    width: int = 1200,
    n_mels: int = 64,
    max_columns: int = 600,
) -> SoundView | None:
    """An overview of [start_s, end_s) from `width` short runs of AAC frames, one per envelope
    column, decoded by two ffmpeg processes; None when the span is too short to be worth it
    (decode it whole instead). Each run's first frame is decoded and dropped: an AAC frame
    needs its predecessor. Spectrogram columns average the runs under them."""
    n_fft = _fft_size(sample_rate)
    out_per_frame = SAMPLES_PER_FRAME * sample_rate / track.sample_rate
    frames_per_run = 1 + math.ceil((n_fft + 2 * _RUN_MARGIN) / out_per_frame)
    span_frames = int(np.searchsorted(track.times_s, end_s) - np.searchsorted(track.times_s, start_s))
    if end_s - start_s < SAMPLED_MIN_SPAN_S or width * frames_per_run * 4 > span_frames:
        return None
    runs = _runs_for(track, start_s, end_s, width, frames_per_run)
    halves = [half for half in np.array_split(runs, 2) if len(half)]  # one run: one process
    with ThreadPoolExecutor(max_workers=2) as pool:
        decoded = list(pool.map(lambda half: decode_frames(track, half.ravel(), sample_rate), halves))
    # A run's usable samples: after its first frame, within the margins, equal length for all.
    usable = int((frames_per_run - 1) * out_per_frame) - 2 * _RUN_MARGIN
    blocks = []
    for half, samples in zip(halves, decoded, strict=True):
        starts = (
            np.rint((np.arange(len(half)) * frames_per_run + 1) * out_per_frame).astype(np.int64)
            + _RUN_MARGIN
        )
        if samples.size < starts[-1] + usable:
            return None  # the decoder gave up on a frame: decode whole
        blocks.append(samples[starts[:, None] + np.arange(usable)])
    run_samples = np.concatenate(blocks)  # (width, usable)
    run_times = track.times_s[runs[:, 1]] + (_RUN_MARGIN + usable / 2) / sample_rate
    window = _hann(n_fft)
    # Two windows per run, at its start and its end, averaged: every usable sample counts.
    windows = np.stack([run_samples[:, :n_fft], run_samples[:, usable - n_fft :]], axis=1) * window
    spectrum = scipy.fft.rfft(windows, axis=2)
    run_power = ((spectrum.real**2 + spectrum.imag**2) @ mel_filterbank(sample_rate, n_fft, n_mels)).mean(
        axis=1
    )
    columns = min(max_columns, width)
    edges = (np.arange(columns + 1, dtype=np.int64) * width) // columns
    counts = np.diff(edges)
    pooled = np.add.reduceat(run_power, edges[:-1], axis=0) / counts[:, None]
    spec_times = (np.add.reduceat(run_times, edges[:-1]) / counts).astype(np.float32)
    fraction = runs.size / max(span_frames, 1)
    return SoundView(
        float(start_s),
        float(end_s - start_s),
        run_times.astype(np.float32),
        run_samples.min(axis=1),
        run_samples.max(axis=1),
        spec_times,
        _mel_centres_hz(n_mels, sample_rate).astype(np.float32),
        _power_to_db(pooled),
        decoded_fraction=min(fraction, 0.999),
    )
