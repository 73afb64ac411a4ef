"""The one place that runs ffmpeg: find media, probe it, build proxies, cut clips, decode audio.

There is no system ffmpeg: the binary shipped with imageio-ffmpeg is used. Clips are cached on
disk under `cache_dir/<media_hash>/`, written to a temporary name and renamed, so a reader never
sees a half-written file and concurrent callers (threads or processes) are safe.

Why a proxy: re-encoding a 4 s clip of a 720p source takes 0.5–4 s; a stream copy takes ~20 ms
but starts at the previous keyframe. The proxy (480p, a keyframe every second) is made once per
media file; a stream copy from it with `-ss` before `-i` makes ffmpeg write an mp4 edit list
that skips the ≤ 1 s of leading frames, so a player that honours edit lists starts on the cited
frame. Checked for ffmpeg's decoder and for Chromium itself (tests/test_media.py,
benchmarks/clip_speed.py): within one frame; a player ignoring the edit list would start up to
1 s early. A 5-frame-GOP or all-intra proxy would only help such players, at 1.3× / 2× the size.
"""

from __future__ import annotations

import json
import math
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from annotation.media.files import (
    MediaError,
    MediaInfo,
    check_media_hash,
    probe_media,
    run_ffmpeg,
    temp_path_beside,
)

PROXY_HEIGHT = 480  # proxy and default clip height; clips are for a player, not for pixels
PROXY_KEYFRAME_S = 1.0  # ≤ 1 s of leading frames for a player to skip after a stream copy
AUDIO_POINT_S = 1.0  # an audio point citation `(audio, 0:12)` covers the cited second
CLIP_FORMAT = "v1"  # bump when the clip recipe changes, so old cache entries are ignored
_info_memo: dict[str, MediaInfo] = {}


def _info_for(source: Path, media_hash: str, cache_dir: Path) -> MediaInfo:
    """MediaInfo of `source`, memoised per media hash in memory and in `cache_dir`."""
    if (info := _info_memo.get(media_hash)) is not None:
        return info
    stored = Path(cache_dir) / media_hash / "info.json"
    try:
        info = MediaInfo.from_dict(json.loads(stored.read_text()))
    except (OSError, ValueError, TypeError):
        info = probe_media(source)
        stored.parent.mkdir(parents=True, exist_ok=True)
        tmp = temp_path_beside(stored)
        tmp.write_text(json.dumps(info.to_dict()))
        os.replace(tmp, stored)
    _info_memo[media_hash] = info
    return info


# ---------------------------------------------------------------------------- proxy


def make_proxy(source: Path, out: Path) -> Path:
    """Write a low-resolution copy of `source` to `out` that clips are cut from by stream copy.

    H.264 at most 480 lines high (aspect kept, even width, never upscaled), a keyframe every
    second, first audio track re-encoded as AAC. Written to a temporary name and renamed, so a
    half-written proxy is never used. Unreadable source → MediaError; nothing is left behind.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path_beside(out)
    try:
        run_ffmpeg(
            [
                "-i",
                str(source),
                "-map",
                "0:v:0?",
                "-map",
                "0:a:0?",
                "-sn",
                "-dn",
                "-vf",
                f"scale=w=-2:h='trunc(min({PROXY_HEIGHT},ih)/2)*2',setsar=1",
                "-c:v",
                "libx264",
                "-preset",
                "superfast",
                "-crf",
                "26",
                "-pix_fmt",
                "yuv420p",
                "-force_key_frames",
                f"expr:gte(t,n_forced*{PROXY_KEYFRAME_S})",
                "-c:a",
                "aac",
                "-b:a",
                "128k",
                "-f",
                "mp4",
                str(tmp),
            ],
            source,
        )
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out


# ---------------------------------------------------------------------------- clips


@dataclass(frozen=True)
class Clip:
    """A short file cut from a media file, and which part of the source it shows."""

    path: Path
    kind: str  # 'video' (muted mp4) | 'audio' (wav) | 'frame' (jpg)
    source_start_s: float
    source_end_s: float
    cited_start_s: float
    cited_end_s: float

    @property
    def cited_offsets_s(self) -> tuple[float, float]:
        """Where the cited span lies inside the clip, in seconds from the clip's start."""
        return (self.cited_start_s - self.source_start_s, self.cited_end_s - self.source_start_s)


_key_locks: dict[Path, threading.Lock] = {}
_key_locks_guard = threading.Lock()


def _lock_for(path: Path) -> threading.Lock:
    with _key_locks_guard:
        return _key_locks.setdefault(path, threading.Lock())


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


def _check_clip_args(
    media_hash: str,
    modality: str,
    start_s: float,
    end_s: float,
    pad_s: float,
    max_height: int | None,
    fps: float | None,
    max_clip_s: float | None,
) -> None:
    check_media_hash(media_hash)
    if modality not in ("visual", "audio"):
        raise ValueError(f"modality {modality!r} is neither 'visual' nor 'audio'")
    for name, value in (("start_s", start_s), ("end_s", end_s), ("pad_s", pad_s)):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite number ≥ 0, got {value!r}")
    if end_s < start_s:
        raise ValueError(f"end_s {end_s} is before start_s {start_s}")
    if max_height is not None and max_height < 2:
        raise ValueError(f"max_height must be ≥ 2, got {max_height}")
    for name, value in (("fps", fps), ("max_clip_s", max_clip_s)):
        if value is not None and not value > 0:
            raise ValueError(f"{name} must be > 0, got {value!r}")


def cut_clip(
    source: Path,
    media_hash: str,
    modality: str,
    start_s: float,
    end_s: float,
    pad_s: float,
    cache_dir: Path,
    *,
    proxy: Path | None = None,
    max_height: int | None = None,
    fps: float | None = None,
    max_clip_s: float | None = None,
) -> Clip:
    """The one clip function: the cited span of `source` as a short file the browser can play.

    visual → muted H.264 mp4 of [start − pad, end + pad] clamped to [0, duration];
    audio → 16-bit wav of the same span (an audio point covers the cited second);
    visual point (start == end) with pad 0 → one jpg frame (see `frame_for_citation`).
    Cached under `cache_dir/media_hash/` keyed by (modality, start, end, pad, limits): a repeated
    call only stats the file. Uses `proxy` by stream copy when it exists and the limits allow;
    otherwise re-encodes `source` (ultrafast, at most 480 lines unless `max_height` says more).
    Limits, for judges: `max_height` scales down, `fps` resamples, `max_clip_s` truncates.
    Bad arguments or a start beyond the media's end → ValueError; ffmpeg failure or a missing
    stream → MediaError naming the file.
    """
    _check_clip_args(media_hash, modality, start_s, end_s, pad_s, max_height, fps, max_clip_s)
    if modality == "visual" and start_s == end_s and pad_s == 0:
        return frame_for_citation(source, media_hash, start_s, cache_dir, proxy=proxy, max_height=max_height)
    info = _info_for(Path(source), media_hash, Path(cache_dir))
    if start_s > info.duration_s:
        raise ValueError(f"start {start_s:.3f} s is beyond the end of {source} ({info.duration_s:.3f} s)")
    span_end = end_s + AUDIO_POINT_S if modality == "audio" and start_s == end_s else end_s
    clip_start = max(0.0, start_s - pad_s)
    clip_end = min(info.duration_s, span_end + pad_s)
    if max_clip_s is not None:
        clip_end = min(clip_end, clip_start + max_clip_s)
    limits = "".join(
        [
            f"_h{max_height}" if max_height else "",
            f"_fps{fps:g}" if fps else "",
            f"_max{_ms(max_clip_s)}" if max_clip_s else "",
        ]
    )
    kind, suffix = ("video", ".mp4") if modality == "visual" else ("audio", ".wav")
    path = (
        Path(cache_dir)
        / media_hash
        / (f"{modality}_{_ms(start_s)}-{_ms(end_s)}_pad{_ms(pad_s)}{limits}_{CLIP_FORMAT}{suffix}")
    )
    clip = Clip(path, kind, clip_start, clip_end, start_s, end_s)
    if path.exists():
        return clip
    with _lock_for(path):  # a second thread asking for the same clip waits, then hits
        if path.exists():
            return clip
        if modality == "visual" and not info.has_video:
            raise MediaError(source, "has no video stream")
        if modality == "audio" and not info.has_audio:
            raise MediaError(source, "has no audio stream")
        seek = ["-ss", f"{clip_start:.3f}", "-t", f"{clip_end - clip_start:.3f}"]
        if modality == "audio":
            channels = ["-ac", "2"] if (info.audio_channels or 0) > 2 else []
            args = [
                *_audio_span_args(source, clip_start, clip_end, info.sample_rate or 48000),
                *channels,
                "-c:a",
                "pcm_s16le",
                "-f",
                "wav",
            ]
        else:
            args = _visual_args(Path(source), proxy, seek, max_height, fps)
        _write_via_temp(path, args, source)
    return clip


def _proxy_usable(proxy: Path | None, max_height: int | None) -> bool:
    return proxy is not None and Path(proxy).is_file() and (max_height is None or max_height >= PROXY_HEIGHT)


def _scale_filter(max_height: int | None) -> str:
    height = max_height or PROXY_HEIGHT
    return f"scale=w=-2:h='trunc(min({height},ih)/2)*2',setsar=1"


def _visual_args(
    source: Path, proxy: Path | None, seek: list[str], max_height: int | None, fps: float | None
) -> list[str]:
    if _proxy_usable(proxy, max_height) and fps is None:
        # Stream copy from the proxy: ffmpeg writes an edit list that starts at the seek point.
        return [
            *seek,
            "-i",
            str(proxy),
            "-map",
            "0:v:0",
            "-an",
            "-sn",
            "-dn",
            "-c:v",
            "copy",
            "-movflags",
            "+faststart",
            "-f",
            "mp4",
        ]
    media = proxy if _proxy_usable(proxy, max_height) else source
    filters = _scale_filter(max_height) + (f",fps={fps:g}" if fps else "")
    return [
        *seek,
        "-i",
        str(media),
        "-map",
        "0:v:0",
        "-an",
        "-sn",
        "-dn",
        "-vf",
        filters,
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-crf",
        "23",
        "-pix_fmt",
        "yuv420p",
        "-movflags",
        "+faststart",
        "-f",
        "mp4",
    ]


def _write_via_temp(path: Path, args: list[str], media: Path | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path_beside(path)
    try:
        run_ffmpeg([*args, "-y", str(tmp)], media)
        if not tmp.is_file() or tmp.stat().st_size == 0:
            raise MediaError(media, "ffmpeg wrote an empty clip (is the span inside the media?)")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def frame_for_citation(
    source: Path,
    media_hash: str,
    time_s: float,
    cache_dir: Path,
    *,
    proxy: Path | None = None,
    max_height: int | None = None,
) -> Clip:
    """One frame at `time_s` as a jpg (what a visual point citation shows); cached like clips.

    Reads the proxy when usable (fast seek), else the source; a time at or past the end shows
    the last frame. Errors as for `cut_clip`.
    """
    _check_clip_args(media_hash, "visual", time_s, time_s, 0.0, max_height, None, None)
    info = _info_for(Path(source), media_hash, Path(cache_dir))
    if time_s > info.duration_s:
        raise ValueError(f"time {time_s:.3f} s is beyond the end of {source} ({info.duration_s:.3f} s)")
    limits = f"_h{max_height}" if max_height else ""
    path = Path(cache_dir) / media_hash / f"frame_{_ms(time_s)}{limits}_{CLIP_FORMAT}.jpg"
    clip = Clip(path, "frame", time_s, time_s, time_s, time_s)
    if path.exists():
        return clip
    with _lock_for(path):
        if path.exists():
            return clip
        if not info.has_video:
            raise MediaError(source, "has no video stream")
        # Seeking to the very end decodes nothing: step back one frame.
        seek_s = min(time_s, max(0.0, info.duration_s - 1.0 / (info.fps or 25.0)))
        media = proxy if _proxy_usable(proxy, max_height) else source
        scale = [] if media == proxy and not max_height else ["-vf", _scale_filter(max_height)]
        _write_via_temp(
            path,
            [
                "-ss",
                f"{seek_s:.3f}",
                "-i",
                str(media),
                "-map",
                "0:v:0",
                "-frames:v",
                "1",
                *scale,
                "-q:v",
                "3",
                "-f",
                "image2",
            ],
            source,
        )
    return clip


# ---------------------------------------------------------------------------- audio samples

_AUDIO_PREROLL_S = 0.5  # decoded before the span and dropped: an AAC decoder needs a frame to warm up


def _audio_span_args(source: Path, start_s: float, end_s: float | None, sample_rate: int) -> list[str]:
    """ffmpeg input + filter arguments for exactly the samples of [start_s, end_s) at
    `sample_rate`: sample i lies at start_s + i / sample_rate.

    After a seek the decoder's first output comes up to ~50 ms late (and AAC priming delays a
    track's start), so the audio would arrive early by that much. Seek a little before, fill any
    gap at the start with silence (first_pts=0), then trim to the exact sample.
    """
    preroll_s = min(start_s, _AUDIO_PREROLL_S)
    first = round(preroll_s * sample_rate)
    trim = f"start_sample={first}" + (
        "" if end_s is None else f":end_sample={first + round((end_s - start_s) * sample_rate)}"
    )
    span = [] if end_s is None else ["-t", f"{end_s - start_s + preroll_s + 0.1:.6f}"]
    # No seek to 0: a seek makes the decoder drop its first frame, and there is no preroll to lose.
    seek = ["-ss", f"{start_s - preroll_s:.6f}"] if start_s > preroll_s else []
    return [
        *seek,
        *span,
        "-i",
        str(source),
        "-map",
        "0:a:0",
        "-vn",
        "-af",
        f"aresample={sample_rate}:async=1:first_pts=0,atrim={trim},asetpts=PTS-STARTPTS",
    ]


def decode_audio(
    source: Path, start_s: float = 0, end_s: float | None = None, sample_rate: int = 16000
) -> np.ndarray:
    """Samples of [start_s, end_s) of the first audio track: mono (downmixed) float32.

    A span past the end gives the samples that exist (possibly none). Negative start, end before
    start or a non-positive sample rate → ValueError; no audio track or unreadable file →
    MediaError naming the file; missing file → FileNotFoundError.
    """
    if not Path(source).is_file():
        raise FileNotFoundError(f"media file not found: {source}")
    if start_s < 0 or (end_s is not None and end_s < start_s) or sample_rate <= 0:
        raise ValueError(f"bad audio span [{start_s}, {end_s}) or sample rate {sample_rate}")
    raw = run_ffmpeg(
        [*_audio_span_args(source, start_s, end_s, sample_rate), "-ac", "1", "-f", "f32le", "-"],
        source,
        no_stream_reason="has no audio stream",
    )
    return np.frombuffer(raw, dtype="<f4").astype(np.float32)


# ---------------------------------------------------------------------------- prefetching


class ClipPrefetcher:
    """Prepares clips in background threads (e.g. the next item's) while a person works.

    `submit(cut_clip, ...)` returns a Future; errors stay in the Future. A foreground call for
    the same clip waits for the background one instead of running ffmpeg twice.
    """

    def __init__(self, max_workers: int = 2):
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="clip-prefetch")

    def submit(self, fn, *args, **kw) -> Future:
        return self._pool.submit(fn, *args, **kw)

    def shutdown(self, wait: bool = False) -> None:
        """Stop accepting work; drop queued jobs; running ffmpeg processes finish."""
        self._pool.shutdown(wait=wait, cancel_futures=True)

    def __enter__(self) -> ClipPrefetcher:
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown(wait=True)
