"""annotation.media.aac_frames: the AAC frames of an MP4, found without decoding, decode exactly as
the file does; anything that is not plain AAC-LC in a plain MP4 is declined (None)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from media_fixtures import run_ffmpeg

from annotation.media.aac_frames import SAMPLES_PER_FRAME, adts_stream, decode_frames, read_aac_track
from annotation.media.clips import decode_audio

TONES = "0.4*sin(2*PI*(300+200*mod(floor(t/2),4))*t)"  # a tone that steps every 2 s


def _encode(out: Path, *args: str, seconds: float = 12, rate: int = 44100, codec: str = "aac") -> Path:
    # Stereo stepping tones, not a media_fixtures recipe: the frames of this track are the subject.
    run_ffmpeg(
        "-f",
        "lavfi",
        "-i",
        f"aevalsrc='{TONES}|{TONES}':s={rate}:d={seconds}",
        "-c:a",
        codec,
        *args,
        str(out),
    )
    return out


@pytest.fixture(scope="module")
def m4a(media_dir) -> Path:
    return _encode(media_dir / "tones.m4a")


def test_index_finds_every_frame_with_its_rate_channels_and_time(m4a):
    track = read_aac_track(m4a)
    assert (track.sample_rate, track.channels) == (44100, 2)
    assert len(track) == pytest.approx(12 * 44100 / SAMPLES_PER_FRAME, abs=3)
    steps = np.diff(track.times_s)
    assert np.allclose(steps, SAMPLES_PER_FRAME / 44100)
    assert track.times_s[0] < 0  # the priming frame comes before the media's time 0
    assert (track.offsets[1:] >= track.offsets[:-1] + track.sizes[:-1]).all()


def test_all_frames_decode_to_the_samples_the_file_decodes_to(m4a):
    track = read_aac_track(m4a)
    ours = decode_frames(track, np.arange(len(track)), 44100)
    theirs = decode_audio(m4a, sample_rate=44100)
    priming = round(-track.times_s[0] * 44100)
    n = min(theirs.size, ours.size - priming)
    assert n > 11 * 44100
    assert np.abs(ours[priming : priming + n] - theirs[:n]).max() < 1e-4


def test_a_run_of_frames_decodes_to_the_audio_at_its_time(m4a):
    track = read_aac_track(m4a)
    first = int(np.searchsorted(track.times_s, 7.3))
    run = np.arange(first, first + 6)
    samples = decode_frames(track, run, 44100)[SAMPLES_PER_FRAME:]  # the first frame warms up
    start = track.times_s[first + 1]
    expected = decode_audio(m4a, start, start + samples.size / 44100, sample_rate=44100)
    assert np.abs(samples[: expected.size] - expected).max() < 2e-3


def test_video_files_index_their_audio_track_and_moov_at_the_front_changes_nothing(indexed_video, media_dir):
    front = media_dir / "front.mp4"
    run_ffmpeg("-i", str(indexed_video), "-c", "copy", "-movflags", "+faststart", str(front))
    back, moved = read_aac_track(indexed_video), read_aac_track(front)
    assert back.sample_rate == 48000 and len(back) == len(moved)
    assert np.array_equal(back.times_s, moved.times_s) and np.array_equal(back.sizes, moved.sizes)
    frames = np.arange(10, 40)
    assert adts_stream(back, frames) == adts_stream(moved, frames)


def test_adts_headers_carry_the_sync_word_profile_rate_channels_and_length(m4a):
    track = read_aac_track(m4a)
    stream = adts_stream(track, np.array([5, 3]))
    header = int.from_bytes(stream[:7], "big")
    assert header >> 44 == 0xFFF  # sync word
    assert (header >> 40) & 1 == 1  # no CRC
    assert (header >> 38) & 3 == 1  # AAC-LC (object type 2, minus 1)
    assert (header >> 34) & 0xF == 4  # 44100 Hz
    assert (header >> 30) & 7 == 2  # stereo
    assert (header >> 13) & 0x1FFF == track.sizes[5] + 7  # frame length, header included
    second = stream[7 + int(track.sizes[5]) :]
    assert second[:2] == stream[:2] and len(second) == track.sizes[3] + 7


@pytest.mark.parametrize(
    "name, args",
    [
        ("fragmented.mp4", ["-movflags", "frag_keyframe+empty_moov"]),
        ("tones.wav", ["-c:a", "pcm_s16le"]),
        ("tones.mkv", []),
        ("mp3-in.mp4", ["-c:a", "libmp3lame"]),
    ],
)
def test_anything_but_aac_lc_in_a_plain_mp4_is_declined(media_dir, name, args):
    assert read_aac_track(_encode(media_dir / name, *args, seconds=3)) is None


def test_a_video_without_sound_is_declined(silent_video):
    assert read_aac_track(silent_video) is None


def test_damaged_files_are_declined_not_raised(m4a, tmp_path):
    data = m4a.read_bytes()
    for name, content in [
        ("half.m4a", data[: len(data) // 2]),
        ("noise.m4a", bytes(range(256)) * 64),
        ("empty.m4a", b""),
    ]:
        (tmp_path / name).write_bytes(content)
        assert read_aac_track(tmp_path / name) is None, name
    front = tmp_path / "front.m4a"
    run_ffmpeg("-i", str(m4a), "-c", "copy", "-movflags", "+faststart", str(front))
    (tmp_path / "front-half.m4a").write_bytes(front.read_bytes()[: len(data) // 2])
    assert read_aac_track(tmp_path / "front-half.m4a") is None  # frames past the end of the file


def test_an_audio_track_that_starts_late_is_declined(m4a, tmp_path):
    # -itsoffset writes an empty edit first: the times would need the whole edit list.
    late = tmp_path / "late.mp4"
    run_ffmpeg(
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=64x48:rate=5:duration=12",
        "-itsoffset",
        "2",
        "-i",
        str(m4a),
        "-map",
        "0:v",
        "-map",
        "1:a",
        "-c:v",
        "libx264",
        "-c:a",
        "copy",
        str(late),
    )
    assert read_aac_track(late) is None
