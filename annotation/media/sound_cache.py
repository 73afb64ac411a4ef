"""The sound view of a media file, cached on disk per media hash: decode, compute
(`annotation.media.soundview`), write `cache_dir/<hash>/sound_….npz`, read it back in ~1 ms.

Decoding an hour of AAC takes seconds, so `load_sound_view(..., overview_first=True)` answers
a long span that is not cached yet with an overview (`soundview.sampled_sound_view`, well
under a second) and computes the exact view in a background thread for the next call.
"""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import fields
from pathlib import Path

import numpy as np

from annotation.media.aac_frames import SAMPLES_PER_FRAME, read_aac_track
from annotation.media.clips import decode_audio
from annotation.media.files import check_media_hash, probe_media, temp_path_beside
from annotation.media.soundview import SoundView, mel_spectrogram_db, sampled_sound_view, waveform_envelope

log = logging.getLogger(__name__)
_PARALLEL_DECODE_S = 120.0  # longer spans are decoded by two ffmpeg processes at once


def decode_span(source: Path, start_s: float, end_s: float | None, sample_rate: int) -> np.ndarray:
    """decode_audio, split across two ffmpeg processes for long spans (two cores, half the wait)."""
    if end_s is None:
        end_s = probe_media(source).duration_s
    if end_s - start_s < _PARALLEL_DECODE_S:
        return decode_audio(source, start_s, end_s, sample_rate)
    middle = start_s + round((end_s - start_s) / 2 * sample_rate) / sample_rate
    with ThreadPoolExecutor(max_workers=2) as pool:
        halves = list(
            pool.map(
                lambda span: decode_audio(source, *span, sample_rate), [(start_s, middle), (middle, end_s)]
            )
        )
    return np.concatenate(halves)


def _exact_view(
    source: Path,
    start_s: float,
    end_s: float | None,
    sample_rate: int,
    width: int,
    n_mels: int,
    max_columns: int,
) -> SoundView:
    samples = decode_span(Path(source), start_s, end_s, sample_rate)
    env_times, mins, maxs = waveform_envelope(samples, sample_rate, width)
    spec_times, mel_freqs, db = mel_spectrogram_db(samples, sample_rate, n_mels, max_columns)
    return SoundView(
        float(start_s),
        samples.size / sample_rate,
        env_times + start_s,
        mins,
        maxs,
        spec_times + start_s,
        mel_freqs,
        db,
    )


def _read_view(path: Path) -> SoundView | None:
    try:
        with np.load(path) as stored:
            arrays = {f.name: stored[f.name] for f in fields(SoundView)}
    except (OSError, KeyError, ValueError):
        return None  # not cached yet (or unreadable, or an older format)
    scalars = ("start_s", "duration_s", "decoded_fraction")
    return SoundView(**{**arrays, **{name: float(arrays[name]) for name in scalars}})


def _write_view(path: Path, view: SoundView) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path_beside(path)
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **{fl.name: getattr(view, fl.name) for fl in fields(SoundView)})
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


# Exact views being computed after an overview was shown, by cache path: one job per view.
_background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sound-view")
_pending: dict[Path, Future] = {}
_pending_lock = threading.Lock()
_overviews: dict[Path, SoundView] = {}  # shown while their exact view is pending


def _compute_and_store(path: Path, *args) -> None:
    try:
        _write_view(path, _exact_view(*args))
    except Exception:
        log.exception("the exact sound view for %s could not be computed", path)
    finally:
        with _pending_lock:
            _pending.pop(path, None)
            _overviews.pop(path, None)


def wait_for_exact_views(timeout_s: float | None = None) -> None:
    """Block until every exact view started after an overview is on disk (tests, benchmarks)."""
    with _pending_lock:
        futures = list(_pending.values())
    for future in futures:
        future.result(timeout=timeout_s)


def load_sound_view(
    source: Path,
    media_hash: str,
    cache_dir: Path,
    *,
    start_s: float = 0.0,
    end_s: float | None = None,
    sample_rate: int = 16000,
    width: int = 1200,
    n_mels: int = 64,
    max_columns: int = 600,
    overview_first: bool = False,
) -> SoundView:
    """The sound view of [start_s, end_s) of `source` (None = to the end), cached on disk.

    First call decodes the audio and computes both views; later calls with the same arguments
    load `cache_dir/media_hash/sound_….npz` (~1 ms). Decoding dominates the first call (an
    hour of AAC takes 3–6 s on two idle cores): `annotation.project.prepare_media` computes
    the whole file's view at import. With `overview_first`, a long span of an MP4/AAC file
    that is not cached yet gives an overview at once (`sampled_sound_view`, well under a
    second for an hour) and the exact view is computed in the background for the next call.
    Errors as for `decode_audio`; a media_hash that is not a plain name → ValueError.
    """
    check_media_hash(media_hash)
    end_tag = "end" if end_s is None else str(round(end_s * 1000))
    path = (
        Path(cache_dir)
        / media_hash
        / (f"sound_{round(start_s * 1000)}-{end_tag}_sr{sample_rate}_w{width}_m{n_mels}_c{max_columns}.npz")
    )
    view = _read_view(path)
    if view is not None:
        return view
    args = (Path(source), start_s, end_s, sample_rate, width, n_mels, max_columns)
    if overview_first:
        with _pending_lock:
            shown = _overviews.get(path)
        if shown is not None:
            return shown
        overview = _overview(Path(source), start_s, end_s, sample_rate, width, n_mels, max_columns)
        if overview is not None:
            with _pending_lock:
                if path not in _pending:
                    _overviews[path] = overview
                    _pending[path] = _background.submit(_compute_and_store, path, *args)
            return overview
    view = _exact_view(*args)
    _write_view(path, view)
    return view


def _overview(
    source: Path,
    start_s: float,
    end_s: float | None,
    sample_rate: int,
    width: int,
    n_mels: int,
    max_columns: int,
) -> SoundView | None:
    """An overview when the file can be sampled and the span is long; otherwise None."""
    track = read_aac_track(source)
    if track is None or len(track) == 0:
        return None
    end = float(track.times_s[-1]) + SAMPLES_PER_FRAME / track.sample_rate if end_s is None else end_s
    try:
        return sampled_sound_view(track, start_s, end, sample_rate, width, n_mels, max_columns)
    except Exception:  # an odd file: the exact decode still works
        log.exception("no sampled overview of %s; decoding it whole", source)
        return None
