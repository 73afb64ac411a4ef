"""annotation.media.clips against real ffmpeg on tiny generated media (see media_fixtures.py)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest
from media_fixtures import (
    DURATION_S,
    FPS,
    HEIGHT,
    SINE_HZ,
    WIDTH,
    first_frame_indices_in_chromium,
    frame_index_of,
    make_pattern_video,
    make_tone,
    run_ffmpeg,
)

from annotation.media.clips import ClipPrefetcher, cut_clip, decode_audio, make_proxy
from annotation.media.files import MediaError, MediaInfo, ffmpeg_exe, file_sha256, probe_media, resolve_media


def _keyframe_times(path: Path) -> list[float]:
    out = subprocess.run(
        [
            ffmpeg_exe(),
            "-hide_banner",
            "-nostdin",
            "-skip_frame",
            "nokey",
            "-i",
            str(path),
            "-vf",
            "showinfo",
            "-an",
            "-f",
            "null",
            "-",
        ],
        capture_output=True,
        text=True,
    ).stderr
    return [float(part.split()[0]) for part in out.split("pts_time:")[1:]]


def _packet_hashes(path: Path) -> set[str]:
    """MD5 of every compressed video packet: equal packets mean a copy, not a re-encode."""
    out = run_ffmpeg("-i", str(path), "-map", "0:v:0", "-c", "copy", "-f", "framemd5", "-").decode()
    return {line.rsplit(",", 1)[1].strip() for line in out.splitlines() if not line.startswith("#")}


# ---------------------------------------------------------------------------- resolve_media


def test_resolve_adds_mp4_when_name_has_no_suffix(tmp_path):
    (tmp_path / "clip7.mp4").write_bytes(b"x")
    assert resolve_media(tmp_path, "clip7") == tmp_path / "clip7.mp4"


def test_resolve_prefers_the_exact_name(tmp_path):
    (tmp_path / "clip7").write_bytes(b"x")
    (tmp_path / "clip7.mp4").write_bytes(b"x")
    assert resolve_media(tmp_path, "clip7") == tmp_path / "clip7"


def test_resolve_finds_a_file_in_a_subfolder(tmp_path):
    (tmp_path / "set1").mkdir()
    (tmp_path / "set1" / "a.mp4").write_bytes(b"x")
    assert resolve_media(tmp_path, "set1/a.mp4") == tmp_path / "set1" / "a.mp4"


def test_resolve_refuses_an_absolute_path(tmp_path):
    (tmp_path / "a.mp4").write_bytes(b"x")
    with pytest.raises(ValueError, match="absolute"):
        resolve_media(tmp_path, str(tmp_path / "a.mp4"))


def test_resolve_refuses_a_parent_component(tmp_path):
    (tmp_path / "media").mkdir()
    (tmp_path / "secret.mp4").write_bytes(b"x")
    with pytest.raises(ValueError, match=r"\.\."):
        resolve_media(tmp_path / "media", "../secret.mp4")


def test_resolve_refuses_a_symlink_leading_out_of_the_root(tmp_path):
    (tmp_path / "media").mkdir()
    (tmp_path / "secret.mp4").write_bytes(b"x")
    (tmp_path / "media" / "link.mp4").symlink_to(tmp_path / "secret.mp4")
    with pytest.raises(ValueError, match="outside"):
        resolve_media(tmp_path / "media", "link.mp4")


def test_resolve_accepts_a_symlink_inside_the_root(tmp_path):
    (tmp_path / "real.mp4").write_bytes(b"x")
    (tmp_path / "alias.mp4").symlink_to(tmp_path / "real.mp4")
    assert resolve_media(tmp_path, "alias") == tmp_path / "alias.mp4"


def test_resolve_of_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothere"):
        resolve_media(tmp_path, "nothere")


# ---------------------------------------------------------------------------- hashing, probing


def test_file_sha256_equals_hash_of_whole_content_across_chunks(tmp_path):
    data = np.random.default_rng(7).integers(0, 256, (5 << 19) + 123, dtype=np.uint8).tobytes()
    (tmp_path / "blob").write_bytes(data)
    assert file_sha256(tmp_path / "blob") == hashlib.sha256(data).hexdigest()


def test_probe_reports_the_generated_video_and_audio(indexed_video):
    info = probe_media(indexed_video)
    assert (info.has_video, info.width, info.height, info.fps) == (True, WIDTH, HEIGHT, FPS)
    assert (info.has_audio, info.audio_channels, info.sample_rate) == (True, 2, 48000)
    assert info.duration_s == pytest.approx(DURATION_S, abs=0.1)


def test_probe_of_a_video_without_sound_says_no_audio(silent_video):
    info = probe_media(silent_video)
    assert (info.has_video, info.has_audio, info.audio_channels) == (True, False, None)


def test_probe_of_a_non_media_file_raises_media_error_naming_it(tmp_path):
    bad = tmp_path / "notes.mp4"
    bad.write_text("not a video")
    with pytest.raises(MediaError, match="notes.mp4"):
        probe_media(bad)


def test_probe_of_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        probe_media(tmp_path / "gone.mp4")


def test_media_info_round_trips_through_a_dict():
    info = MediaInfo(12.5, True, False, 640, 360, 29.97, None, None)
    assert MediaInfo.from_dict(info.to_dict()) == info


# ---------------------------------------------------------------------------- proxies


def test_proxy_of_a_small_video_keeps_its_size_and_sound(indexed_proxy):
    info = probe_media(indexed_proxy)
    assert (info.width, info.height, info.has_audio) == (WIDTH, HEIGHT, True)


def test_proxy_of_a_large_video_is_480_lines_with_the_same_aspect(tmp_path):
    big = tmp_path / "big.mp4"
    make_pattern_video(
        big, width=960, height=540, fps=10, duration_s=1, pattern="testsrc2", tone_hz=None, preset="medium"
    )
    info = probe_media(make_proxy(big, tmp_path / "proxy.mp4"))
    assert info.height == 480 and info.width % 2 == 0
    assert info.width / info.height == pytest.approx(960 / 540, abs=0.01)


def test_proxy_has_a_keyframe_every_second(indexed_proxy):
    assert _keyframe_times(indexed_proxy)[:6] == pytest.approx([0, 1, 2, 3, 4, 5], abs=0.05)


def test_failed_proxy_leaves_no_file_behind(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_text("not a video")
    with pytest.raises(MediaError, match="bad.mp4"):
        make_proxy(bad, tmp_path / "out" / "proxy.mp4")
    assert list((tmp_path / "out").iterdir()) == []


# ---------------------------------------------------------------------------- clips


def test_visual_clip_is_muted_and_spans_the_citation_plus_padding(
    indexed_video, indexed_video_hash, tmp_path
):
    clip = cut_clip(indexed_video, indexed_video_hash, "visual", 2.0, 3.0, 0.5, tmp_path)
    info = probe_media(clip.path)
    assert (clip.kind, clip.source_start_s, clip.source_end_s) == ("video", 1.5, 3.5)
    assert (info.has_video, info.has_audio) == (True, False)
    assert info.duration_s == pytest.approx(2.0, abs=0.1)


def test_visual_clip_padding_stops_at_the_start_of_the_media(indexed_video, indexed_video_hash, tmp_path):
    clip = cut_clip(indexed_video, indexed_video_hash, "visual", 0.2, 1.0, 1.0, tmp_path)
    assert clip.source_start_s == 0.0
    assert probe_media(clip.path).duration_s == pytest.approx(2.0, abs=0.1)


def test_visual_clip_padding_stops_at_the_end_of_the_media(indexed_video, indexed_video_hash, tmp_path):
    clip = cut_clip(indexed_video, indexed_video_hash, "visual", 5.0, 5.5, 1.0, tmp_path)
    assert clip.source_end_s == pytest.approx(DURATION_S, abs=0.1)
    assert probe_media(clip.path).duration_s == pytest.approx(2.0, abs=0.1)


def test_cited_offsets_place_the_marker_inside_the_clip(indexed_video, indexed_video_hash, tmp_path):
    clip = cut_clip(indexed_video, indexed_video_hash, "visual", 2.0, 3.0, 0.5, tmp_path)
    assert clip.cited_offsets_s == (0.5, 1.5)


def test_audio_clip_has_no_picture_and_spans_the_citation_plus_padding(
    indexed_video, indexed_video_hash, tmp_path
):
    clip = cut_clip(indexed_video, indexed_video_hash, "audio", 2.0, 4.0, 0.5, tmp_path)
    info = probe_media(clip.path)
    assert (clip.kind, clip.path.suffix, info.has_video, info.has_audio) == ("audio", ".wav", False, True)
    assert info.duration_s == pytest.approx(3.0, abs=0.05)


def test_audio_point_covers_the_cited_second(indexed_video, indexed_video_hash, tmp_path):
    clip = cut_clip(indexed_video, indexed_video_hash, "audio", 2.0, 2.0, 0.0, tmp_path)
    assert (clip.source_start_s, clip.source_end_s) == (2.0, 3.0)
    assert probe_media(clip.path).duration_s == pytest.approx(1.0, abs=0.05)


def test_visual_point_without_padding_is_the_cited_frame_as_jpg(indexed_video, indexed_video_hash, tmp_path):
    clip = cut_clip(indexed_video, indexed_video_hash, "visual", 3.0, 3.0, 0.0, tmp_path)
    assert (clip.kind, clip.path.suffix) == ("frame", ".jpg")
    assert abs(frame_index_of(clip.path) - 3.0 * FPS) <= 1


def test_visual_point_at_the_very_end_shows_the_last_frame(indexed_video, indexed_video_hash, tmp_path):
    clip = cut_clip(indexed_video, indexed_video_hash, "visual", DURATION_S, DURATION_S, 0.0, tmp_path)
    assert abs(frame_index_of(clip.path) - (DURATION_S * FPS - 1)) <= 1


def test_visual_point_with_padding_is_a_video(indexed_video, indexed_video_hash, tmp_path):
    clip = cut_clip(indexed_video, indexed_video_hash, "visual", 3.0, 3.0, 1.0, tmp_path)
    assert (clip.kind, clip.source_start_s, clip.source_end_s) == ("video", 2.0, 4.0)


def test_second_cut_with_the_same_key_reuses_the_file(indexed_video, indexed_video_hash, tmp_path):
    first = cut_clip(indexed_video, indexed_video_hash, "visual", 1.0, 2.0, 0.5, tmp_path)
    before = first.path.stat()
    again = cut_clip(indexed_video, indexed_video_hash, "visual", 1.0, 2.0, 0.5, tmp_path)
    after = again.path.stat()
    assert again == first
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)


def test_other_padding_makes_another_clip(indexed_video, indexed_video_hash, tmp_path):
    a = cut_clip(indexed_video, indexed_video_hash, "visual", 1.0, 2.0, 0.5, tmp_path)
    b = cut_clip(indexed_video, indexed_video_hash, "visual", 1.0, 2.0, 1.0, tmp_path)
    assert a.path != b.path and a.path.exists() and b.path.exists()


@pytest.mark.parametrize("cited_s", [0.0, 1.48, 2.0, 3.36, 4.92])
def test_proxy_clip_starts_at_the_cited_frame(
    indexed_video, indexed_video_hash, indexed_proxy, tmp_path, cited_s
):
    clip = cut_clip(
        indexed_video,
        indexed_video_hash,
        "visual",
        cited_s,
        cited_s + 0.8,
        0.0,
        tmp_path,
        proxy=indexed_proxy,
    )
    assert abs(frame_index_of(clip.path) - cited_s * FPS) <= 1


@pytest.mark.parametrize("cited_s", [1.48, 3.36])
def test_clip_without_proxy_starts_at_the_cited_frame(indexed_video, indexed_video_hash, tmp_path, cited_s):
    clip = cut_clip(indexed_video, indexed_video_hash, "visual", cited_s, cited_s + 0.8, 0.0, tmp_path)
    assert abs(frame_index_of(clip.path) - cited_s * FPS) <= 1


def test_proxy_clip_is_cut_without_re_encoding(indexed_video, indexed_video_hash, indexed_proxy, tmp_path):
    clip = cut_clip(indexed_video, indexed_video_hash, "visual", 1.0, 2.0, 0.0, tmp_path, proxy=indexed_proxy)
    assert _packet_hashes(clip.path) <= _packet_hashes(indexed_proxy)


def test_max_height_scales_the_clip_down(indexed_video, indexed_video_hash, indexed_proxy, tmp_path):
    clip = cut_clip(
        indexed_video,
        indexed_video_hash,
        "visual",
        1.0,
        2.0,
        0.0,
        tmp_path,
        proxy=indexed_proxy,
        max_height=120,
    )
    assert (probe_media(clip.path).width, probe_media(clip.path).height) == (160, 120)


def test_fps_limit_resamples_the_clip(indexed_video, indexed_video_hash, tmp_path):
    clip = cut_clip(indexed_video, indexed_video_hash, "visual", 1.0, 3.0, 0.0, tmp_path, fps=2)
    assert probe_media(clip.path).fps == 2


def test_max_clip_s_truncates_a_long_citation(indexed_video, indexed_video_hash, tmp_path):
    clip = cut_clip(indexed_video, indexed_video_hash, "audio", 0.0, 5.0, 0.0, tmp_path, max_clip_s=1.5)
    assert clip.source_end_s == 1.5
    assert probe_media(clip.path).duration_s == pytest.approx(1.5, abs=0.05)


def test_audio_clip_of_a_video_without_sound_raises_media_error(silent_video, tmp_path):
    with pytest.raises(MediaError, match="silent.mp4.*no audio"):
        cut_clip(silent_video, file_sha256(silent_video), "audio", 1.0, 2.0, 0.0, tmp_path)


def test_clip_starting_after_the_end_of_the_media_is_refused(indexed_video, indexed_video_hash, tmp_path):
    with pytest.raises(ValueError, match="beyond the end"):
        cut_clip(indexed_video, indexed_video_hash, "visual", 7.0, 8.0, 0.0, tmp_path)


@pytest.mark.parametrize(
    "modality, start_s, end_s, pad_s, media_hash",
    [
        ("visual", 3.0, 2.0, 0.0, "abc"),  # end before start
        ("smell", 1.0, 2.0, 0.0, "abc"),  # unknown modality
        ("visual", -1.0, 2.0, 0.0, "abc"),  # negative start
        ("visual", 1.0, 2.0, float("nan"), "abc"),  # padding not a number
        ("visual", 1.0, 2.0, 0.0, "../abc"),  # hash that would leave the cache folder
    ],
)
def test_bad_clip_arguments_are_refused(indexed_video, tmp_path, modality, start_s, end_s, pad_s, media_hash):
    with pytest.raises(ValueError):
        cut_clip(indexed_video, media_hash, modality, start_s, end_s, pad_s, tmp_path)


def test_concurrent_cuts_of_one_clip_leave_one_complete_file(indexed_video, indexed_video_hash, tmp_path):
    results: list = []

    def cut():
        results.append(cut_clip(indexed_video, indexed_video_hash, "visual", 2.0, 4.0, 0.0, tmp_path))

    threads = [threading.Thread(target=cut) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({clip.path for clip in results}) == 1
    assert probe_media(results[0].path).duration_s == pytest.approx(2.0, abs=0.1)
    assert [p.name for p in results[0].path.parent.iterdir() if p.name.startswith(".")] == []


# ---------------------------------------------------------------------------- decode_audio


def test_decoded_sine_peaks_at_its_frequency(indexed_video):
    samples = decode_audio(indexed_video, 1.0, 3.0)
    spectrum = np.abs(np.fft.rfft(samples))
    peak_hz = np.argmax(spectrum) * 16000 / samples.size
    assert peak_hz == pytest.approx(SINE_HZ, abs=1.0)


def test_decoded_sample_i_lies_at_start_plus_i_over_rate(tmp_path):
    # AAC priming delays the first decoded sample; without compensation the audio comes early.
    tone = tmp_path / "tone.m4a"
    make_tone(tone, hz=300, duration_s=3, sample_rate=16000)
    samples = decode_audio(tone, 1.0, 1.5)
    t = 1.0 + np.arange(samples.size) / 16000
    assert np.abs(samples - np.sin(2 * np.pi * 300 * t) / 8).max() < 0.01  # lavfi sine: amplitude 1/8


@pytest.mark.parametrize("start_s", [0.0, 0.2])
def test_audio_from_the_first_half_second_keeps_its_first_frame(tmp_path, start_s):
    # A seek, even to 0, makes ffmpeg's AAC decoder drop its first frame (23 ms of silence).
    tone = tmp_path / "tone.m4a"
    make_tone(tone, hz=300, duration_s=3, sample_rate=16000)
    samples = decode_audio(tone, start_s, start_s + 0.2)
    t = start_s + np.arange(samples.size) / 16000
    expected = np.sin(2 * np.pi * 300 * t) / 8  # lavfi sine: amplitude 1/8
    first_frame_rms = np.sqrt(np.mean(samples[:1024] ** 2))
    assert first_frame_rms == pytest.approx(np.sqrt(np.mean(expected[:1024] ** 2)), rel=0.2)
    assert np.abs(samples - expected)[1024:].max() < 0.05  # the encoder settles within frames


def test_decoded_audio_is_mono_float32_of_the_span_length(indexed_video):
    samples = decode_audio(indexed_video, 1.0, 2.5, sample_rate=8000)
    assert samples.dtype == np.float32 and samples.ndim == 1
    assert samples.size == 12000  # 1.5 s at 8 kHz


def test_decoding_a_video_without_sound_raises_media_error_naming_it(silent_video):
    with pytest.raises(MediaError, match="silent.mp4.*no audio"):
        decode_audio(silent_video)


def test_decoding_a_non_media_file_raises_media_error(tmp_path):
    bad = tmp_path / "noise.wav"
    bad.write_bytes(os.urandom(64))
    with pytest.raises(MediaError, match="noise.wav"):
        decode_audio(bad)


# ---------------------------------------------------------------------------- prefetching


def test_prefetched_clip_is_reused_by_the_foreground_call(indexed_video, indexed_video_hash, tmp_path):
    with ClipPrefetcher() as prefetcher:
        background = prefetcher.submit(
            cut_clip, indexed_video, indexed_video_hash, "audio", 1.0, 2.0, 0.0, tmp_path
        ).result()
    before = background.path.stat().st_mtime_ns
    foreground = cut_clip(indexed_video, indexed_video_hash, "audio", 1.0, 2.0, 0.0, tmp_path)
    assert foreground.path == background.path and foreground.path.stat().st_mtime_ns == before


def test_prefetch_failure_stays_in_its_future(silent_video, tmp_path):
    with ClipPrefetcher() as prefetcher:
        future = prefetcher.submit(
            cut_clip, silent_video, file_sha256(silent_video), "audio", 1.0, 2.0, 0.0, tmp_path
        )
        assert isinstance(future.exception(), MediaError)


# ---------------------------------------------------------------------------- in a real browser


@pytest.mark.e2e
def test_chromium_shows_the_cited_frame_first_in_a_proxy_clip(
    indexed_video, indexed_video_hash, indexed_proxy, tmp_path
):
    clip = cut_clip(
        indexed_video, indexed_video_hash, "visual", 3.36, 4.2, 0.0, tmp_path, proxy=indexed_proxy
    )
    assert abs(first_frame_indices_in_chromium([clip.path])[0] - 3.36 * FPS) <= 1
