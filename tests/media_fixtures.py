"""Generated media for tests and benchmarks, made in one place: `run_ffmpeg` (the bundled ffmpeg,
quiet, never asking) and the named recipes `make_indexed_video`, `make_pattern_video`, `make_tone`.

In the indexed video every frame shows its own index: the top-left strip holds INDEX_BITS
black/white blocks, block k white when bit k of the frame number is set, so a test can tell which
source frame a clip starts with by decoding one frame (`frame_index_of`).
Import what a test needs: `from media_fixtures import indexed_video, ...`.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from annotation.media.files import ffmpeg_exe

WIDTH, HEIGHT, FPS = 320, 240, 25
DURATION_S = 6.0
KEYFRAME_EVERY_S = 2.0  # long GOP, so a plain stream copy of the source would be late
SINE_HZ = 440
INDEX_BITS, BLOCK_W, BLOCK_H = 8, 32, 24


def ffmpeg_command(*args: str) -> list[str]:
    """The bundled ffmpeg with `args`: errors only, no banner, never reading the keyboard,
    overwriting its output."""
    return [ffmpeg_exe(), "-hide_banner", "-nostdin", "-v", "error", "-y", *args]


def run_ffmpeg(*args: str) -> bytes:
    """Run `ffmpeg_command(*args)` and return what it wrote to stdout (its errors go to stderr);
    raises CalledProcessError when ffmpeg fails."""
    return subprocess.run(ffmpeg_command(*args), stdout=subprocess.PIPE, check=True).stdout


def _sine_input(hz: float, sample_rate: int, duration_s: float) -> list[str]:
    # lavfi's sine has amplitude 1/8 and is mono
    return ["-f", "lavfi", "-i", f"sine=frequency={hz}:sample_rate={sample_rate}:duration={duration_s}"]


def make_indexed_video(
    out: Path,
    *,
    audio: bool = True,
    width: int = WIDTH,
    height: int = HEIGHT,
    fps: int = FPS,
    duration_s: float = DURATION_S,
    keyframe_every_s: float = KEYFRAME_EVERY_S,
    preset: str = "ultrafast",
    crf: int = 23,
    index_bits: int = INDEX_BITS,
) -> Path:
    """H.264 testsrc2 with an index strip of `index_bits` blocks (+ stereo 48 kHz AAC sine at
    SINE_HZ). Frame numbers wrap at 2**index_bits."""
    # geq draws bit k of the frame number N into the k-th block of the strip.
    strip = (
        f"color=black:size={index_bits * BLOCK_W}x{BLOCK_H}:rate={fps}:duration={duration_s},"
        f"format=gray,geq=lum='255*mod(floor(N/pow(2,floor(X/{BLOCK_W}))),2)'"
    )
    video = (
        f"testsrc2=size={width}x{height}:rate={fps}:duration={duration_s}[bg];"
        f"{strip}[strip];[bg][strip]overlay=0:0"
    )
    sound = [*_sine_input(SINE_HZ, 48000, duration_s), "-c:a", "aac", "-ac", "2"] if audio else []
    gop = str(round(keyframe_every_s * fps))
    run_ffmpeg(
        "-f",
        "lavfi",
        "-i",
        video,
        *sound,
        "-c:v",
        "libx264",
        "-preset",
        preset,
        "-crf",
        str(crf),
        "-g",
        gop,
        "-keyint_min",
        gop,
        "-sc_threshold",
        "0",
        "-pix_fmt",
        "yuv420p",
        str(out),
    )
    return out


def make_pattern_video(
    out: Path,
    *,
    width: int,
    height: int,
    fps: int,
    duration_s: float,
    pattern: str = "testsrc",
    tone_hz: float | None = SINE_HZ,
    sample_rate: int = 44100,
    preset: str = "ultrafast",
) -> Path:
    """An H.264 (yuv420p, x264 `preset`) mp4 of lavfi's `pattern` (testsrc or testsrc2) with a
    mono AAC sine of `tone_hz` at `sample_rate`, or no sound when tone_hz is None; makes out's
    folder when missing."""
    out.parent.mkdir(parents=True, exist_ok=True)
    sound = [*_sine_input(tone_hz, sample_rate, duration_s), "-c:a", "aac"] if tone_hz is not None else []
    run_ffmpeg(
        "-f",
        "lavfi",
        "-i",
        f"{pattern}=size={width}x{height}:rate={fps}:duration={duration_s}",
        *sound,
        "-shortest",
        "-c:v",
        "libx264",
        "-preset",
        preset,
        "-pix_fmt",
        "yuv420p",
        str(out),
    )
    return out


def make_tone(
    out: Path, *, hz: float, duration_s: float, sample_rate: int = 44100, bitrate: str | None = None
) -> Path:
    """A mono AAC sine of `hz` (amplitude 1/8) at `sample_rate`; `bitrate` (e.g. "16k") or the
    encoder's default."""
    rate = ["-b:a", bitrate] if bitrate else []
    run_ffmpeg(*_sine_input(hz, sample_rate, duration_s), "-c:a", "aac", *rate, str(out))
    return out


def frame_index_of(
    path: Path,
    seek_s: float | None = None,
    *,
    width: int = WIDTH,
    height: int = HEIGHT,
    index_bits: int = INDEX_BITS,
    honour_edit_list: bool = True,
) -> int:
    """The index drawn on the first frame ffmpeg displays from `path` (edit lists honoured unless
    told not to, as a player without edit-list support shows it), or on the frame at `seek_s`
    when given. width/height: the size of the indexed source."""
    seek = [] if seek_s is None else ["-ss", f"{seek_s:.3f}"]
    edits = [] if honour_edit_list else ["-ignore_editlist", "1"]
    raw = run_ffmpeg(
        *edits,
        *seek,
        "-i",
        str(path),
        "-frames:v",
        "1",
        "-vf",
        f"scale={width}:{height},format=gray",
        "-f",
        "rawvideo",
        "-",
    )
    return index_from_gray(np.frombuffer(raw, np.uint8).reshape(height, width), index_bits)


def index_from_gray(image: np.ndarray, index_bits: int = INDEX_BITS) -> int:
    """Read the index strip of a gray image at the indexed source's size (block middles)."""
    centre = BLOCK_H // 2
    bits = [
        image[centre - 4 : centre + 4, k * BLOCK_W + 12 : k * BLOCK_W + 20].mean() > 128
        for k in range(index_bits)
    ]
    return sum(int(bit) << k for k, bit in enumerate(bits))


CHROMIUM = Path("/usr/bin/chromium")
# Draws the first frame the <video> shows onto a canvas and returns the red channel of the
# index strip's rows (gray frames: red = luma).
_READ_FIRST_FRAME_JS = """async ([src, width, height, rows]) => {
  const video = document.createElement('video');
  video.muted = true; video.preload = 'auto'; video.src = src;
  await new Promise((ok, bad) => { video.onloadeddata = ok; video.onerror = () => bad(video.error.message); });
  const canvas = document.createElement('canvas'); canvas.width = width; canvas.height = height;
  const g = canvas.getContext('2d'); g.drawImage(video, 0, 0, width, height);
  return Array.from(g.getImageData(0, 0, width, rows).data.filter((_, i) => i % 4 === 0));
}"""


def first_frame_indices_in_chromium(
    clips: list[Path], *, width: int = WIDTH, height: int = HEIGHT, index_bits: int = INDEX_BITS
) -> list[int]:
    """The index on the first frame Chromium shows for each clip in a <video>, served over
    127.0.0.1 from the clips' common folder (skips the test when Chromium or Playwright is
    missing)."""
    if not CHROMIUM.exists():
        pytest.skip("needs /usr/bin/chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    folder = clips[0].parent
    if any(clip.parent != folder for clip in clips):
        raise ValueError("clips must share one folder")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    indices = []
    try:
        # A second sync_playwright cannot start in a process whose browser tests already run one
        # (tests/e2e/browser_support.py, one Chromium per test process): use that one then.
        shared = sys.modules.get("browser_support")
        with contextlib.ExitStack() as stack:
            if shared is not None and shared._browser:
                context = shared.shared_browser().new_context()
                stack.callback(context.close)
                page = context.new_page()
            else:
                playwright = stack.enter_context(sync_api.sync_playwright())
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
                stack.callback(browser.close)
                page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/")
            for clip in clips:
                red = page.evaluate(_READ_FIRST_FRAME_JS, [f"/{clip.name}", width, height, BLOCK_H])
                strip = np.array(red, dtype=np.uint8).reshape(BLOCK_H, width)
                indices.append(index_from_gray(strip, index_bits))
    finally:
        server.shutdown()
        server.server_close()
    return indices


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass
