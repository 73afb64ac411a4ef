"""The demo's synthetic videos and their ground truth: what is on screen and on the
soundtrack when, rendered to small H.264 + AAC mp4 files with moviepy.

Everything is drawn from numpy/PIL (PIL's bundled default font, no system fonts), so a
demo builds offline and the same seed always gives the same scene list. The scene list is
the ground truth the demo's responses, gold records and simulated labellers are made from:
`claim_holds_at(truth, claim, citation)` says whether a cited segment shows a claim.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from annotation.protocol.citations import Citation

WIDTH, HEIGHT, FPS, SAMPLE_RATE = 320, 240, 25, 22050
BACKGROUNDS = {
    "black": (12, 12, 16),
    "blue": (20, 40, 130),
    "green": (20, 100, 40),
    "grey": (95, 95, 100),
    "purple": (90, 30, 110),
}
FIGURE_COLOURS = {
    "red": (235, 40, 40),
    "yellow": (250, 220, 40),
    "white": (245, 245, 245),
    "orange": (250, 140, 20),
    "cyan": (40, 220, 230),
}
SHAPES = ("circle", "square", "triangle", "diamond")
WORDS = ("CAT", "SUN", "BOX", "MAP", "KEY", "FOX", "CUP", "PEN", "HAT", "BUS", "EGG", "OWL")
TONES_HZ = {"low": 220.0, "middle": 440.0, "high": 880.0}
SOUND_KINDS = ("tone", "noise", "silence")


@dataclass(frozen=True)
class VisualScene:
    """[start_s, end_s): one still picture — a figure, a two-digit number and a word."""

    start_s: int
    end_s: int
    background: str
    colour: str
    shape: str
    number: int
    word: str


@dataclass(frozen=True)
class SoundSegment:
    """[start_s, end_s) of the soundtrack: a tone (pitch 'low'|'middle'|'high'), noise or silence."""

    start_s: int
    end_s: int
    kind: str
    pitch: str | None = None


@dataclass(frozen=True)
class VideoTruth:
    name: str
    duration_s: int
    scenes: tuple[VisualScene, ...]
    sounds: tuple[SoundSegment, ...]

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "duration_s": self.duration_s,
            "width": WIDTH,
            "height": HEIGHT,
            "fps": FPS,
            "visual": [asdict(s) for s in self.scenes],
            "audio": [asdict(s) for s in self.sounds],
        }


@dataclass(frozen=True)
class Claim:
    """One atomic observable statement about a video.

    kind (value): figure ((colour, shape)), shape (shape), figure_colour (colour),
    background (colour), number (int), word (str) — visual; tone (pitch), noise, silence — audio.
    """

    kind: str
    value: object = None

    @property
    def modality(self) -> str:
        return "audio" if self.kind in SOUND_KINDS else "visual"


def _holds(claim: Claim, scene: VisualScene | SoundSegment) -> bool:
    if isinstance(scene, SoundSegment):
        return claim.kind == scene.kind and (claim.kind != "tone" or claim.value == scene.pitch)
    seen = {
        "figure": (scene.colour, scene.shape),
        "shape": scene.shape,
        "figure_colour": scene.colour,
        "background": scene.background,
        "number": scene.number,
        "word": scene.word,
    }
    return claim.kind in seen and seen[claim.kind] == claim.value


def claim_intervals(truth: VideoTruth, claim: Claim) -> list[tuple[int, int]]:
    """[start_s, end_s) intervals in which the claim is true."""
    parts = truth.sounds if claim.modality == "audio" else truth.scenes
    return [(p.start_s, p.end_s) for p in parts if _holds(claim, p)]


def claim_holds_at(truth: VideoTruth, claim: Claim, citation: Citation) -> bool:
    """Does this one cited segment show the claim? An invalid citation, or one of the other
    modality, never does. A point counts when the claim is true at that instant; a span
    [a, b] when it overlaps an interval in which the claim is true."""
    if not citation.valid or citation.modality != claim.modality:
        return False
    a, b = citation.start, citation.end
    for start, end in claim_intervals(truth, claim):
        if (a == b and start <= a < end) or (a < b and a < end and b > start):
            return True
    return False


def scene_at(truth: VideoTruth, t: float) -> VisualScene:
    return next((s for s in truth.scenes if s.start_s <= t < s.end_s), truth.scenes[-1])


# -- the scene lists --------------------------------------------------------------------------
def _cut(rng: random.Random, duration_s: int, shortest: int, longest: int) -> list[tuple[int, int]]:
    """Consecutive [start, end) pieces covering [0, duration_s), each shortest..longest s long
    (the last one may be up to `longest + shortest - 1`)."""
    pieces, start = [], 0
    while duration_s - start > longest:
        length = rng.randint(shortest, longest)
        if duration_s - start - length < shortest:
            length = duration_s - start - shortest
        pieces.append((start, start + length))
        start += length
    pieces.append((start, duration_s))
    return pieces


def make_video_truth(name: str, rng: random.Random) -> VideoTruth:
    """A random 12–20 s video: scenes of 2–4 s that differ from their neighbours in every
    attribute, numbers and words unique in the video; sounds of 1–3 s, neighbours differ."""
    duration = rng.randint(12, 20)
    numbers = rng.sample(range(10, 100), 12)
    words = rng.sample(WORDS, len(WORDS))
    scenes: list[VisualScene] = []
    for index, (start, end) in enumerate(_cut(rng, duration, 2, 4)):
        last = scenes[-1] if scenes else None

        def fresh(options, attr, last=last):
            return rng.choice([o for o in options if last is None or o != getattr(last, attr)])

        scenes.append(
            VisualScene(
                start,
                end,
                fresh(list(BACKGROUNDS), "background"),
                fresh(list(FIGURE_COLOURS), "colour"),
                fresh(list(SHAPES), "shape"),
                numbers[index],
                words[index],
            )
        )
    sounds: list[SoundSegment] = []
    for start, end in _cut(rng, duration, 1, 3):
        while True:
            kind = rng.choice(("tone", "tone", "noise", "silence"))
            pitch = rng.choice(list(TONES_HZ)) if kind == "tone" else None
            if not sounds or (sounds[-1].kind, sounds[-1].pitch) != (kind, pitch):
                break
        sounds.append(SoundSegment(start, end, kind, pitch))
    return VideoTruth(name, duration, tuple(scenes), tuple(sounds))


def write_truth(path: Path, videos: list[VideoTruth], seed: int) -> None:
    """The machine-readable ground truth (what is where), one JSON file."""
    path.write_text(json.dumps({"seed": seed, "videos": [v.to_dict() for v in videos]}, indent=1))


# -- rendering -------------------------------------------------------------------------------
def _draw_scene(scene: VisualScene) -> np.ndarray:
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUNDS[scene.background])
    draw = ImageDraw.Draw(image)
    colour = FIGURE_COLOURS[scene.colour]
    cx, cy, r = 95, 120, 55
    if scene.shape == "circle":
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)
    elif scene.shape == "square":
        draw.rectangle((cx - r, cy - r, cx + r, cy + r), fill=colour)
    elif scene.shape == "triangle":
        draw.polygon([(cx, cy - r), (cx + r, cy + r), (cx - r, cy + r)], fill=colour)
    else:
        draw.polygon([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], fill=colour)
    draw.text((200, 40), str(scene.number), fill=(255, 255, 255), font=ImageFont.load_default(size=64))
    draw.text((190, 170), scene.word, fill=(255, 255, 255), font=ImageFont.load_default(size=40))
    return np.asarray(image)


def _sound_samples(truth: VideoTruth, noise_seed: int) -> np.ndarray:
    noise = np.random.default_rng(noise_seed)
    out = np.zeros(truth.duration_s * SAMPLE_RATE, dtype=np.float32)
    for sound in truth.sounds:
        a, b = sound.start_s * SAMPLE_RATE, sound.end_s * SAMPLE_RATE
        t = np.arange(b - a) / SAMPLE_RATE
        if sound.kind == "tone":
            piece = 0.3 * np.sin(2 * np.pi * TONES_HZ[sound.pitch] * t)
        elif sound.kind == "noise":
            piece = np.clip(noise.normal(0, 0.15, b - a), -0.6, 0.6)
        else:
            continue
        ramp = np.minimum(1.0, np.minimum(t, t[::-1]) / 0.01)  # 10 ms fades: no clicks
        out[a:b] = piece * ramp
    return out


def render_video(truth: VideoTruth, path: Path, noise_seed: int) -> None:
    """Write the video (320×240, 25 fps, H.264 + AAC, faststart) to `path`, atomically."""
    from moviepy import VideoClip
    from moviepy.audio.AudioClip import AudioArrayClip

    frames = {scene: _draw_scene(scene) for scene in truth.scenes}
    clip = VideoClip(lambda t: frames[scene_at(truth, t)], duration=truth.duration_s)
    samples = _sound_samples(truth, noise_seed)
    # stereo: moviepy 2 writes a mono array at twice its length
    clip = clip.with_audio(AudioArrayClip(np.stack([samples, samples], axis=1), fps=SAMPLE_RATE))
    partial = path.with_name(path.stem + ".partial.mp4")
    clip.write_videofile(
        str(partial),
        fps=FPS,
        codec="libx264",
        audio_codec="aac",
        audio_fps=SAMPLE_RATE,
        audio_bufsize=SAMPLE_RATE,
        preset="ultrafast",
        threads=1,
        logger=None,
        temp_audiofile=str(path.with_name(path.stem + ".partial-audio.m4a")),
        ffmpeg_params=["-pix_fmt", "yuv420p", "-movflags", "+faststart"],
    )
    clip.close()
    partial.replace(path)
