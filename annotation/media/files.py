"""Finding and probing media files, and the single ffmpeg runner every media function uses.

Split from `annotation/media.py` (which re-exports all of it) so each file holds one concept;
`media.py` is still the place callers go to.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import stat
import subprocess
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

_SAFE_HASH_RE = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


def check_media_hash(media_hash: str) -> None:
    """A media hash names a cache folder: letters, digits, '-' or '_' only, else ValueError."""
    if not isinstance(media_hash, str) or not _SAFE_HASH_RE.match(media_hash):
        raise ValueError(f"media_hash {media_hash!r} must be letters, digits, '-' or '_'")


class MediaError(Exception):
    """ffmpeg failed or the media is unreadable. The message names the file and says why."""

    def __init__(self, path: Path | str, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


@functools.cache
def ffmpeg_exe() -> str:
    """Path of the ffmpeg binary (imageio-ffmpeg's; it honours IMAGEIO_FFMPEG_EXE)."""
    import imageio_ffmpeg

    return imageio_ffmpeg.get_ffmpeg_exe()


def _stderr_reason(stderr: bytes) -> str:
    """The last few meaningful stderr lines, without ffmpeg's `[in#0 @ 0x…]` prefixes."""
    lines = [
        re.sub(r"^\[[^\]]*@ 0x[0-9a-f]+\]\s*", "", ln).strip()
        for ln in stderr.decode("utf-8", "replace").splitlines()
    ]
    lines = [ln for ln in lines if ln and not ln.startswith("At least one output file")]
    return "; ".join(lines[-3:])[:400] or "ffmpeg failed without a message"


def run_ffmpeg(
    args: list[str], media: Path | str, *, no_stream_reason: str = "", stdin: bytes | None = None
) -> bytes:
    """Run ffmpeg quietly, feeding it `stdin` (for a `pipe:0` input); return stdout. Any failure
    → MediaError naming `media`; when a `-map` found no stream, the reason is `no_stream_reason`
    (e.g. "has no audio stream")."""
    cmd = [ffmpeg_exe(), "-hide_banner", "-nostdin", "-v", "error", *args]
    done = subprocess.run(cmd, input=stdin, capture_output=True)
    if done.returncode != 0:
        if no_stream_reason and b"matches no streams" in done.stderr:
            raise MediaError(media, no_stream_reason)
        raise MediaError(media, _stderr_reason(done.stderr))
    return done.stdout


def temp_path_beside(final: Path) -> Path:
    """A unique hidden name next to `final`, same suffix, for write-then-rename."""
    return final.with_name(f".{final.stem}.{os.getpid()}.{uuid.uuid4().hex[:8]}{final.suffix}")


# ---------------------------------------------------------------------------- finding media


def _named(name: str) -> str:
    """`name` as a message quotes it (a hostile name may be thousands of characters long)."""
    return repr(name if len(name) <= 80 else f"{name[:38]}…{name[-38:]}")


def _checked_relative(name: str) -> None:
    if not isinstance(name, str) or not name.strip():
        raise ValueError("media name is empty")
    if "\0" in name:
        raise ValueError(f"media name {_named(name)} holds a NUL character")
    if (
        PurePosixPath(name).is_absolute()
        or PureWindowsPath(name).is_absolute()
        or name.startswith(("/", "\\", "~"))
        or PureWindowsPath(name).drive
    ):
        raise ValueError(
            f"media name {_named(name)} is an absolute path; give a path inside the media folder"
        )
    if ".." in re.split(r"[\\/]", name):
        raise ValueError(f"media name {_named(name)} contains '..'; give a path inside the media folder")


def _file_inside(root: Path, relative: str, name: str) -> Path | None:
    """`root / relative` when it is a regular file whose real path lies inside `root`'s; None when
    nothing is there; ValueError when it leads outside, is not a regular file (a FIFO, a device,
    a folder) or cannot be looked at (e.g. a name too long for the file system)."""
    candidate = Path(root) / relative
    try:
        real = Path(os.path.realpath(candidate))
        if not real.is_relative_to(Path(os.path.realpath(root))):
            raise ValueError(
                f"media name {_named(name)} leads outside the media folder (symlink to {_named(str(real))})"
            )
        mode = real.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ValueError(f"media name {_named(name)} cannot be opened: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        if stat.S_ISDIR(mode):
            return None
        raise ValueError(f"media name {_named(name)} is not a regular file (a FIFO, device or socket)")
    return candidate


def resolve_media(root: Path, name: str) -> Path:
    """A data row's `video` value → an existing regular file inside `root`.

    Tries `name`, then `name + '.mp4'` when `name` has no suffix. Raises ValueError (with the
    reason) for an empty name, an absolute or `~` path, a `..` component, a path whose symlinks
    lead out of `root`, a FIFO or device, or a name the file system refuses (too long);
    FileNotFoundError when no candidate is an existing file.
    """
    _checked_relative(name)
    candidates = [name]
    if not PurePosixPath(name).suffix:
        candidates.append(f"{name}.mp4")
    for candidate in candidates:
        found = _file_inside(root, candidate, name)
        if found is not None:
            return found
    tried = " or ".join(_named(c) for c in candidates)
    raise FileNotFoundError(f"media {_named(name)} not found in the media folder: no file {tried}")


def media_file(root: Path, relative: str) -> Path:
    """The file a media row names (`relative` to the media root, as stored at import), checked
    again on every read: ValueError when it now leads outside `root` (a symlink swapped in), is
    no regular file or has become an absolute or `..` path; FileNotFoundError when it is gone."""
    _checked_relative(relative)
    found = _file_inside(root, relative, relative)
    if found is None:
        raise FileNotFoundError(f"media file {_named(relative)} is no longer in the media folder {root}")
    return found


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB chunks (constant memory)."""
    digest = hashlib.sha256()
    buffer = bytearray(1 << 20)
    view = memoryview(buffer)
    with open(path, "rb") as f:
        while size := f.readinto(buffer):
            digest.update(view[:size])
    return digest.hexdigest()


# ---------------------------------------------------------------------------- probing


@dataclass(frozen=True)
class MediaInfo:
    """What a media file holds. Fields of an absent stream are None."""

    duration_s: float
    has_video: bool
    has_audio: bool
    width: int | None = None
    height: int | None = None
    fps: float | None = None
    audio_channels: int | None = None
    sample_rate: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> MediaInfo:
        return cls(**{k: data.get(k) for k in cls.__dataclass_fields__})


_LAYOUT_CHANNELS = {
    "mono": 1,
    "stereo": 2,
    "downmix": 2,
    "quad": 4,
    "hexagonal": 6,
    "octagonal": 8,
    "hexadecagonal": 16,
}


def _channels(layout: str) -> int | None:
    layout = re.sub(r"\(.*\)", "", layout).strip()
    if layout in _LAYOUT_CHANNELS:
        return _LAYOUT_CHANNELS[layout]
    if m := re.fullmatch(r"(\d+) channels", layout):
        return int(m.group(1))
    if m := re.fullmatch(r"(\d+)\.(\d+)", layout):
        return int(m.group(1)) + int(m.group(2))
    return None


def _rate(text: str, unit: str) -> float | None:
    m = re.search(rf"([\d.]+)(k?) {unit}\b", text)
    return float(m.group(1)) * (1000 if m.group(2) else 1) if m else None


def _exact_duration_s(path: Path) -> float:
    """Duration by decoding the whole file (for containers that do not state one)."""
    out = run_ffmpeg(["-i", str(path), "-progress", "pipe:1", "-nostats", "-f", "null", "-"], path)
    times = re.findall(rb"out_time_us=(\d+)", out)
    return int(times[-1]) / 1e6 if times else 0.0


def probe_media(path: Path) -> MediaInfo:
    """Read duration and stream facts from ffmpeg's description of `path`.

    Missing file → FileNotFoundError; unreadable media or no audio/video stream → MediaError.
    When the container states no duration (e.g. a recorded webm) the file is decoded to measure it.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"media file not found: {path}")
    done = subprocess.run([ffmpeg_exe(), "-hide_banner", "-nostdin", "-i", str(path)], capture_output=True)
    text = done.stderr.decode("utf-8", "replace")
    if "Input #0" not in text:
        raise MediaError(path, f"cannot read media: {_stderr_reason(done.stderr)}")
    fields: dict = {"has_video": False, "has_audio": False}
    # Anchored at line start so metadata values (`title : Stream #0…`) cannot match.
    for kind, desc in re.findall(r"^\s*Stream #0:\d+\S*: (Video|Audio): (.*)$", text, re.M):
        if kind == "Video" and not fields["has_video"] and "attached pic" not in desc:
            size = re.search(r"\b(\d{1,5})x(\d{1,5})\b", re.sub(r"\([^)]*\)", "", desc))
            fields.update(
                has_video=True,
                width=int(size.group(1)) if size else None,
                height=int(size.group(2)) if size else None,
                fps=_rate(desc, "fps") or _rate(desc, "tbr"),
            )
        elif kind == "Audio" and not fields["has_audio"]:
            hz = re.search(r"(\d+) Hz, ([^,]+)", desc)
            fields.update(
                has_audio=True,
                sample_rate=int(hz.group(1)) if hz else None,
                audio_channels=_channels(hz.group(2)) if hz else None,
            )
    if not (fields["has_video"] or fields["has_audio"]):
        raise MediaError(path, "has no audio or video stream")
    m = re.search(r"^\s*Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)", text, re.M)
    duration = (
        (int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))) if m else _exact_duration_s(path)
    )
    return MediaInfo(duration_s=duration, **fields)
