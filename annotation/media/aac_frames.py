"""Random access to the AAC frames of an MP4/MOV/M4A file, without decoding the rest.

Why: decoding an hour of AAC takes seconds on two cores, so a whole-file sound view cannot
be drawn in under a second from decoded audio. The file's own sample tables (`moov`) say
where every AAC frame lies; a few frames per screen column, read directly and wrapped in
ADTS headers, let the bundled ffmpeg decode only those (a few percent of the audio).

Only plain AAC-LC in a non-fragmented MP4 is indexed; anything else gives None, and callers
decode the whole span instead (`annotation.media.clips.decode_audio`).
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from annotation.media.files import run_ffmpeg

SAMPLES_PER_FRAME = 1024  # AAC-LC: every frame decodes to 1024 samples per channel
_ADTS_RATES = (96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350)
_AAC_LC = 2
_MPEG4_AUDIO = 0x40
_CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts"}


class _NotIndexable(Exception):
    """The file is not a plain MP4 with an AAC-LC track (the caller decodes it whole)."""


@dataclass(frozen=True)
class AacTrack:
    """The first audio track's AAC-LC frames: frame k starts at `times_s[k]` in the media
    (the edit list's priming offset removed) and lies at bytes [offsets[k], offsets[k] + sizes[k])."""

    path: Path
    sample_rate: int
    channels: int
    times_s: np.ndarray
    offsets: np.ndarray
    sizes: np.ndarray

    def __len__(self) -> int:
        return int(self.sizes.size)


def _boxes(data, start: int, end: int):
    """(type, payload start, box end) of each box in data[start:end]."""
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, at)
        header = 8
        if size == 1:
            if at + 16 > end:
                raise _NotIndexable("truncated box header")
            size = struct.unpack_from(">Q", data, at + 8)[0]
            header = 16
        elif size == 0:
            size = end - at
        if size < header or at + size > end:
            raise _NotIndexable(f"box '{kind.decode('latin-1')}' runs past its parent")
        yield kind, at + header, at + size
        at += size


def _children(data, start: int, end: int) -> dict[bytes, list[tuple[int, int]]]:
    found: dict[bytes, list[tuple[int, int]]] = {}
    for kind, payload, box_end in _boxes(data, start, end):
        found.setdefault(kind, []).append((payload, box_end))
    return found


def _one(found: dict, kind: bytes) -> tuple[int, int]:
    if kind not in found:
        raise _NotIndexable(f"no '{kind.decode()}' box")
    return found[kind][0]


def _table(data, payload: int, dtype: str, columns: int, *, skip: int = 0) -> np.ndarray:
    """A full box's entry table: count after version/flags (+ `skip` bytes), then entries."""
    count = struct.unpack_from(">I", data, payload + 4 + skip)[0]
    first = payload + 8 + skip
    need = count * columns * np.dtype(dtype).itemsize
    if first + need > len(data):
        raise _NotIndexable("sample table runs past the file")
    return np.frombuffer(data, dtype=dtype, count=count * columns, offset=first).reshape(count, columns)


def _descriptor(data, at: int) -> tuple[int, int, int]:
    """(tag, payload start, payload end) of an MPEG-4 descriptor (length in 7-bit groups)."""
    tag, length, at = data[at], 0, at + 1
    for _ in range(4):
        byte = data[at]
        at += 1
        length = (length << 7) | (byte & 0x7F)
        if not byte & 0x80:
            break
    return tag, at, at + length


def _audio_specific_config(data, esds: tuple[int, int]) -> tuple[int, int, int]:
    """(audio object type, sample rate, channel configuration) from an esds box."""
    tag, at, end = _descriptor(data, esds[0] + 4)
    if tag != 0x03:
        raise _NotIndexable("esds without an ES descriptor")
    flags = data[at + 2]
    at += 3 + (2 if flags & 0x80 else 0) + (2 if flags & 0x20 else 0)
    if flags & 0x40:
        at += 1 + data[at]
    tag, at, end = _descriptor(data, at)
    if tag != 0x04 or data[at] != _MPEG4_AUDIO:
        raise _NotIndexable("not MPEG-4 audio")
    tag, at, end = _descriptor(data, at + 13)
    if tag != 0x05 or end - at < 2:
        raise _NotIndexable("no AudioSpecificConfig")
    bits = int.from_bytes(data[at : at + 2], "big")
    object_type, rate_index, channels = bits >> 11, (bits >> 7) & 0x0F, (bits >> 3) & 0x0F
    if object_type != _AAC_LC or rate_index >= len(_ADTS_RATES) or not 1 <= channels <= 7:
        raise _NotIndexable(
            f"AAC object type {object_type}, rate index {rate_index}, "
            f"channel configuration {channels}: only plain AAC-LC is indexed"
        )
    return object_type, _ADTS_RATES[rate_index], channels


def _sound_track(data, trak: tuple[int, int]):
    """The indexes of a 'soun' track's boxes, or None for any other track."""
    parts = _children(data, *trak)
    mdia = _children(data, *_one(parts, b"mdia"))
    hdlr = _one(mdia, b"hdlr")
    if bytes(data[hdlr[0] + 8 : hdlr[0] + 12]) != b"soun":
        return None
    return parts, mdia


def _frame_table(data, stbl: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start ticks, byte offsets, sizes) of every sample, from stts, stsz, stsc and stco/co64."""
    stsz = _one(stbl, b"stsz")
    fixed, count = struct.unpack_from(">II", data, stsz[0] + 4)
    sizes = (
        np.full(count, fixed, np.int64)
        if fixed
        else _table(data, stsz[0], ">u4", 1, skip=4)[:, 0].astype(np.int64)
    )
    stts = _table(data, _one(stbl, b"stts")[0], ">u4", 2).astype(np.int64)
    durations = np.repeat(stts[:, 1], stts[:, 0])
    if durations.size != count:
        raise _NotIndexable("stts and stsz disagree on the number of frames")
    ticks = np.concatenate([[0], np.cumsum(durations)[:-1]])
    if b"stco" in stbl:
        chunk_offsets = _table(data, stbl[b"stco"][0][0], ">u4", 1)[:, 0].astype(np.int64)
    else:
        chunk_offsets = _table(data, _one(stbl, b"co64")[0], ">u8", 1)[:, 0].astype(np.int64)
    stsc = _table(data, _one(stbl, b"stsc")[0], ">u4", 3).astype(np.int64)
    if stsc.size == 0 or chunk_offsets.size == 0:
        raise _NotIndexable("empty chunk tables")
    # Each stsc run applies from its first chunk (1-based) to the next run's first chunk.
    run_ends = np.append(stsc[1:, 0], chunk_offsets.size + 1)
    per_chunk = np.repeat(stsc[:, 1], run_ends - stsc[:, 0])
    chunk_of = np.repeat(np.arange(per_chunk.size), per_chunk)[:count]
    if chunk_of.size != count:
        raise _NotIndexable("stsc covers fewer frames than stsz")
    first_in_chunk = np.concatenate([[0], np.cumsum(per_chunk)[:-1]])
    before = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    offsets = chunk_offsets[chunk_of] + before - before[first_in_chunk[chunk_of]]
    return ticks, offsets, sizes


def _priming_ticks(data, parts: dict) -> int:
    """The media time the edit list starts at (AAC priming, usually 1024 or 2112 samples).
    Anything but one plain edit (a delayed start, several edits, another rate) is declined:
    the times would need the whole edit list, and the caller can decode the span instead."""
    if b"edts" not in parts:
        return 0
    edts = _children(data, *parts[b"edts"][0])
    if b"elst" not in edts:
        return 0
    payload = edts[b"elst"][0][0]
    version, count = data[payload], struct.unpack_from(">I", data, payload + 4)[0]
    fmt = ">QqhH" if version == 1 else ">IihH"
    if count != 1:
        raise _NotIndexable(f"an edit list of {count} edits")
    _, media_time, rate, fraction = struct.unpack_from(fmt, data, payload + 8)
    if media_time < 0 or (rate, fraction) != (1, 0):
        raise _NotIndexable("an edit list with a delayed start or another rate")
    return int(media_time)


def read_aac_track(path: Path) -> AacTrack | None:
    """The AAC-LC frame index of the first audio track of an MP4-family file, or None when
    the file is anything else (no moov, fragmented, another codec, HE-AAC, …)."""
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            top = _children(data, 0, len(data))
            if b"moov" not in top or b"moof" in top:
                return None
            moov = _children(data, *top[b"moov"][0])
            if b"mvex" in moov:
                return None
            for trak in moov.get(b"trak", []):
                found = _sound_track(data, trak)
                if found is None:
                    continue
                parts, mdia = found
                mdhd = _one(mdia, b"mdhd")[0]
                timescale = struct.unpack_from(">I", data, mdhd + (20 if data[mdhd] == 1 else 12))[0]
                stbl = _children(data, *_one(_children(data, *_one(mdia, b"minf")), b"stbl"))
                entry = _one(stbl, b"stsd")[0] + 8
                _, kind = struct.unpack_from(">I4s", data, entry)
                if kind != b"mp4a":
                    return None
                version = struct.unpack_from(">H", data, entry + 16)[0]
                extra = {0: 0, 1: 16, 2: 36}.get(version)
                if extra is None:
                    return None
                entry_end = entry + struct.unpack_from(">I", data, entry)[0]
                inner = _children(data, entry + 36 + extra, entry_end)
                if b"wave" in inner:
                    inner = _children(data, *inner[b"wave"][0])
                _, rate, channels = _audio_specific_config(data, _one(inner, b"esds"))
                ticks, offsets, sizes = _frame_table(data, stbl)
                if offsets.size and int((offsets + sizes).max()) > len(data):
                    return None
                times = (ticks - _priming_ticks(data, parts)) / timescale
                return AacTrack(Path(path), rate, channels, times.astype(np.float64), offsets, sizes)
            return None
    except (_NotIndexable, struct.error, IndexError, ValueError, OSError):
        return None


def adts_stream(track: AacTrack, frames: np.ndarray) -> bytes:
    """The chosen frames, in the given order, as an ADTS stream any AAC decoder reads."""
    # The 30 header bits before frame_length: syncword, MPEG-4, layer 0, no CRC, profile
    # (object type − 1), rate index, private bit, channel configuration, four zero flags.
    prefix = (
        (0xFFF << 18)
        | (1 << 14)
        | ((_AAC_LC - 1) << 12)
        | (_ADTS_RATES.index(track.sample_rate) << 8)
        | (track.channels << 4)
    )
    pieces = []
    with open(track.path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        for k in np.asarray(frames, dtype=np.int64):
            size, offset = int(track.sizes[k]), int(track.offsets[k])
            # frame_length (13 bits, header included), buffer fullness 0x7FF (VBR), one raw block.
            pieces.append(((prefix << 26) | ((size + 7) << 13) | (0x7FF << 2)).to_bytes(7, "big"))
            pieces.append(data[offset : offset + size])
    return b"".join(pieces)


def decode_frames(track: AacTrack, frames: np.ndarray, sample_rate: int) -> np.ndarray:
    """Mono float32 samples at `sample_rate` of the chosen frames decoded back to back
    (≈ len(frames) · 1024 · sample_rate / track.sample_rate samples). Where one run of
    consecutive frames follows another, the decoder's first frame after the join mixes both:
    callers drop it."""
    if len(frames) == 0:
        return np.zeros(0, np.float32)
    raw = run_ffmpeg(
        ["-f", "aac", "-i", "pipe:0", "-ac", "1", "-ar", str(sample_rate), "-f", "f32le", "-"],
        track.path,
        stdin=adts_stream(track, frames),
    )
    return np.frombuffer(raw, dtype="<f4").astype(np.float32)
