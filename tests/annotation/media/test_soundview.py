"""annotation.media.soundview (envelope, mel spectrogram, the overview of a long span) and
annotation.media.sound_cache (the on-disk sound view, overview first)."""

from __future__ import annotations

import functools
import subprocess

import numpy as np
import pytest
from media_fixtures import SINE_HZ, ffmpeg_command, make_tone, run_ffmpeg

from annotation.media.files import file_sha256
from annotation.media.sound_cache import load_sound_view
from annotation.media.soundview import (
    compact_db,
    downmix,
    mel_filterbank,
    mel_frequencies,
    mel_spectrogram_db,
    waveform_envelope,
)


def _sine(hz: float, seconds: float, sample_rate: int = 16000, amplitude: float = 0.5) -> np.ndarray:
    t = np.arange(int(seconds * sample_rate)) / sample_rate
    return (amplitude * np.sin(2 * np.pi * hz * t)).astype(np.float32)


# ---------------------------------------------------------------------------- envelope


def test_envelope_gives_each_column_its_lowest_and_highest_sample():
    times, mins, maxs = waveform_envelope(
        np.array([0, 5, -1, 2, 3, -4, 7, 1, 0, -2], np.float32), 10, width=5
    )
    assert mins.tolist() == [0, -1, -4, 1, -2]
    assert maxs.tolist() == [5, 2, 3, 7, 0]
    assert times.tolist() == pytest.approx([0.1, 0.3, 0.5, 0.7, 0.9])


def test_envelope_of_fewer_samples_than_width_has_a_column_per_sample():
    times, mins, maxs = waveform_envelope(np.array([0.5, -0.5, 0.25], np.float32), 2, width=1200)
    assert (mins.tolist(), maxs.tolist(), times.tolist()) == (
        [0.5, -0.5, 0.25],
        [0.5, -0.5, 0.25],
        [0.25, 0.75, 1.25],
    )


def test_envelope_of_no_samples_is_empty():
    assert [a.size for a in waveform_envelope(np.zeros(0, np.float32), 16000)] == [0, 0, 0]


def test_envelope_of_an_hour_has_exactly_width_columns():
    hour = np.zeros(3600 * 100, np.float32)  # an hour at 100 Hz keeps the test small
    assert waveform_envelope(hour, 100, width=1200)[0].size == 1200


def test_envelope_refuses_zero_width():
    with pytest.raises(ValueError):
        waveform_envelope(np.zeros(10, np.float32), 16000, width=0)


def test_downmix_averages_channels_first_layout():
    stereo = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5]], np.float32)
    assert downmix(stereo).tolist() == [0.5, 0.5, 0.5]


def test_downmix_averages_channels_last_layout():
    stereo = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], np.float32)
    assert downmix(stereo).tolist() == [0.5, 0.5, 0.5]


# ---------------------------------------------------------------------------- spectrogram


# The two tests that load librosa run in one process: in a fresh virtualenv its first spectrogram
# compiled librosa's numba functions (≈ 28 CPU s at full optimisation, once per venv).
LIBROSA_REFERENCE = pytest.mark.xdist_group("librosa-reference")


@pytest.fixture(scope="module")
def librosa(tmp_path_factory):
    """librosa, with each numba `guvectorize` function compiled when it is first called rather than
    when its module is imported (the first spectrogram imports modules holding several, none of which
    the reference calls: ≈ 1.6 CPU s instead of 18; a function that is called is librosa's own,
    compiled), without LLVM's optimisations (the reference runs on a few small arrays), into a cache
    of this run, so that code built that way never lands in the virtualenv's own cache (where
    librosa's speed is measured, benchmarks/sound_view_speed.py)."""
    numba = pytest.importorskip("numba")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("NUMBA_OPT", "0")
        env.setenv("NUMBA_CACHE_DIR", str(tmp_path_factory.mktemp("numba-cache")))
        env.setattr(numba, "guvectorize", _compiled_on_first_call(numba.guvectorize))
        yield pytest.importorskip("librosa")


def _compiled_on_first_call(guvectorize):
    """`guvectorize(...)(function)`, built when the result is first called, then called as built."""

    def decorator(*args, **kwargs):
        def wrap(function):
            built = None

            @functools.wraps(function)
            def call(*call_args, **call_kwargs):
                nonlocal built
                if built is None:
                    built = guvectorize(*args, **kwargs)(function)
                return built(*call_args, **call_kwargs)

            return call

        return wrap

    return decorator


@LIBROSA_REFERENCE
@pytest.mark.parametrize(
    ("sample_rate", "n_fft", "n_mels"),
    [(16000, 1024, 64), (8000, 512, 40), (22050, 2048, 128), (48000, 4096, 64)],
)
def test_mel_filters_and_band_frequencies_equal_librosas(librosa, sample_rate, n_fft, n_mels):
    ours = mel_filterbank(sample_rate, n_fft, n_mels)
    assert ours.shape == (1 + n_fft // 2, n_mels)
    assert np.abs(ours - librosa.filters.mel(sr=sample_rate, n_fft=n_fft, n_mels=n_mels).T).max() <= 1e-6
    reference_hz = librosa.mel_frequencies(n_mels=n_mels + 2, fmin=0.0, fmax=sample_rate / 2)
    assert np.abs(mel_frequencies(n_mels + 2, 0.0, sample_rate / 2) - reference_hz).max() <= 1e-6


@LIBROSA_REFERENCE
def test_spectrogram_matches_librosa_for_a_short_clip(librosa):
    samples = np.random.default_rng(3).standard_normal(16384).astype(np.float32)
    _, _, db = mel_spectrogram_db(samples, 16000)
    # 16384 samples, 1024-sample windows every 256 samples (a quarter window): 61 frames.
    reference = librosa.feature.melspectrogram(
        y=samples, sr=16000, n_fft=1024, hop_length=256, center=False, n_mels=64
    )
    assert db.shape == (64, 61)
    assert np.abs(db - librosa.power_to_db(reference, ref=np.max, top_db=80)).max() < 1e-3


def test_spectrogram_of_long_audio_is_pooled_to_max_columns():
    times, _, db = mel_spectrogram_db(
        np.random.default_rng(1).standard_normal(16000 * 60).astype(np.float32), 16000, max_columns=10
    )
    assert db.shape == (64, 10)
    assert times.tolist() == pytest.approx([3 + 6 * k for k in range(10)], abs=0.05)


def test_spectrogram_is_brightest_in_the_band_of_a_tone():
    _, mel_freqs, db = mel_spectrogram_db(_sine(1000, 2.0), 16000)
    loudest_band_hz = mel_freqs[np.argmax(db.mean(axis=1))]
    assert loudest_band_hz == pytest.approx(1000, abs=60)  # bands are ~80 Hz apart near 1 kHz


def test_spectrogram_spans_0_to_minus_80_db():
    _, _, db = mel_spectrogram_db(_sine(440, 1.0), 16000)
    assert (db.max(), db.min(), db.dtype) == (0.0, -80.0, np.float32)


def test_spectrogram_of_silence_is_minus_80_db_everywhere():
    _, _, db = mel_spectrogram_db(np.zeros(16000, np.float32), 16000)
    assert np.all(db == -80.0)


def test_spectrogram_of_fewer_samples_than_a_window_has_one_column():
    times, _, db = mel_spectrogram_db(np.ones(100, np.float32), 16000)
    assert db.shape == (64, 1) and times.tolist() == pytest.approx([50 / 16000])


def test_spectrogram_of_no_samples_has_no_columns():
    times, mel_freqs, db = mel_spectrogram_db(np.zeros(0, np.float32), 16000, n_mels=8)
    assert (times.size, mel_freqs.size, db.shape) == (0, 8, (8, 0))


def test_compact_db_rounds_to_whole_decibels_in_one_byte():
    assert compact_db(np.array([[-0.4, -79.6, -12.5]], np.float32)).tolist() == [[0, -80, -12]]
    assert compact_db(np.zeros((1, 1), np.float32)).dtype == np.int8


# ---------------------------------------------------------------------------- cached sound view


def test_sound_view_of_a_video_shows_its_tone(indexed_video, indexed_video_hash, tmp_path):
    view = load_sound_view(indexed_video, indexed_video_hash, tmp_path)
    assert view.mel_freqs_hz[np.argmax(view.spectrogram_db.mean(axis=1))] == pytest.approx(SINE_HZ, abs=40)
    assert view.duration_s == pytest.approx(6.0, abs=0.05)


def test_sound_view_is_kept_on_disk_and_read_back_equal(indexed_video, indexed_video_hash, tmp_path):
    first = load_sound_view(indexed_video, indexed_video_hash, tmp_path)
    [stored] = (tmp_path / indexed_video_hash).glob("sound_*.npz")
    mtime = stored.stat().st_mtime_ns
    again = load_sound_view(indexed_video, indexed_video_hash, tmp_path)
    assert stored.stat().st_mtime_ns == mtime
    assert again.start_s == first.start_s and again.duration_s == first.duration_s
    assert np.array_equal(again.spectrogram_db, first.spectrogram_db)
    assert np.array_equal(again.envelope_maxs, first.envelope_maxs)


def test_sound_view_of_a_span_has_times_in_the_media(indexed_video, indexed_video_hash, tmp_path):
    view = load_sound_view(indexed_video, indexed_video_hash, tmp_path, start_s=2.0, end_s=4.0)
    assert view.start_s == 2.0 and view.duration_s == pytest.approx(2.0, abs=0.01)
    assert 2.0 <= view.envelope_times_s.min() and view.envelope_times_s.max() <= 4.0
    assert 2.0 <= view.spectrogram_times_s.min() and view.spectrogram_times_s.max() <= 4.0


def test_sound_view_of_long_audio_decoded_in_two_parts_equals_one_decode(tmp_path):
    from annotation.media.clips import decode_audio

    # Long enough for the two-process decode; at 16 kb/s, since encoding at the default rate was
    # most of this test's CPU (≈ 2 of 3 s) and both decodes read the same file whatever its rate.
    long_audio = make_tone(tmp_path / "long.m4a", hz=300, duration_s=130, sample_rate=16000, bitrate="16k")
    view = load_sound_view(long_audio, file_sha256(long_audio), tmp_path)
    _, mins, maxs = waveform_envelope(decode_audio(long_audio), 16000)
    assert view.duration_s == pytest.approx(130.0, abs=0.05)
    assert np.abs(view.envelope_maxs - maxs).max() < 0.01 and np.abs(view.envelope_mins - mins).max() < 0.01


def test_sound_view_refuses_a_hash_that_leaves_the_cache(indexed_video, tmp_path):
    with pytest.raises(ValueError):
        load_sound_view(indexed_video, "../x", tmp_path)


# ---------------------------------------------------------------------------- overview of a long span

STEP_S, STEP_HZ = 30, (400, 800, 1600, 3200)  # the tone steps through these every 30 s


@pytest.fixture(scope="module")
def long_m4a(media_dir):
    """330 s of 32 kHz mono AAC: a tone stepping through STEP_HZ, quiet in its first 5 s of each minute.
    The samples are computed here and piped to ffmpeg's AAC encoder (ffmpeg's own `aevalsrc`
    spent ≈ 7 s of CPU evaluating the formula sample by sample). Mono at 32 kHz, since encoding
    48 kHz stereo took ≈ 7.5 CPU s of the ≈ 10 these tests spent in ffmpeg (≈ 4 now); the views still
    resample the track (to 16 kHz); stereo and 44.1/48 kHz tracks are test_aac_frames.py's subject."""
    out = media_dir / "long_steps.m4a"
    rate, seconds = 32000, 330
    encoder = subprocess.Popen(
        ffmpeg_command("-f", "f32le", "-ar", str(rate), "-ac", "1", "-i", "pipe:0", "-c:a", "aac", str(out)),
        stdin=subprocess.PIPE,
    )
    for start in range(0, seconds, STEP_S):  # a step at a time: no 42 MB buffer
        t = np.arange(start * rate, min(start + STEP_S, seconds) * rate) / rate
        hz = np.array(STEP_HZ)[(t // STEP_S).astype(int) % 4]
        tone = 0.5 * np.sin(2 * np.pi * hz * t) * (0.1 + 0.9 * (np.mod(t, 60) >= 5))
        encoder.stdin.write(tone.astype("<f4").tobytes())
    encoder.stdin.close()
    assert encoder.wait() == 0
    return out


def test_overview_of_a_long_span_decodes_little_and_agrees_with_the_exact_view(long_m4a, tmp_path):
    from annotation.media.aac_frames import read_aac_track
    from annotation.media.soundview import sampled_sound_view

    exact = load_sound_view(long_m4a, file_sha256(long_m4a), tmp_path, width=200, max_columns=100)
    overview = sampled_sound_view(read_aac_track(long_m4a), 0.0, 330.0, width=200, max_columns=100)
    assert overview.decoded_fraction < 0.1 and not overview.exact and exact.exact
    assert overview.spectrogram_db.shape == exact.spectrogram_db.shape == (64, 100)
    assert overview.envelope_maxs.shape == (200,)
    assert np.corrcoef(overview.spectrogram_db.ravel(), exact.spectrogram_db.ravel())[0, 1] > 0.9
    assert np.abs(overview.spectrogram_times_s - exact.spectrogram_times_s).max() < 330 / 100
    # Every column away from a step shows the tone of its time, and its loudness.
    loudest = overview.mel_freqs_hz[np.argmax(overview.spectrogram_db, axis=0)]
    times = overview.spectrogram_times_s
    steady = np.abs(times / STEP_S - np.round(times / STEP_S)) * STEP_S > 3
    expected = np.array(STEP_HZ)[(times // STEP_S).astype(int) % 4]
    assert np.all(np.abs(loudest[steady] / expected[steady] - 1) < 0.1)
    loud, quiet = (overview.envelope_times_s % 60) > 6, (overview.envelope_times_s % 60) < 4
    assert np.all(
        np.abs(overview.envelope_maxs[loud] / exact.envelope_maxs[loud] - 1) < 0.1
    )  # fewer samples, lower peaks
    assert np.all(overview.envelope_maxs[quiet] < 0.15 * exact.envelope_maxs.max())


def test_first_look_at_a_long_span_is_an_overview_and_then_the_exact_view(long_m4a, tmp_path):
    from annotation.media.sound_cache import wait_for_exact_views

    media_hash = file_sha256(long_m4a)
    first = load_sound_view(long_m4a, media_hash, tmp_path, width=200, max_columns=100, overview_first=True)
    assert not first.exact and first.duration_s == pytest.approx(330, abs=0.1)
    wait_for_exact_views(timeout_s=60)
    assert list((tmp_path / media_hash).glob("sound_*.npz"))
    then = load_sound_view(long_m4a, media_hash, tmp_path, width=200, max_columns=100, overview_first=True)
    assert then.exact and then.spectrogram_db.shape == first.spectrogram_db.shape


def test_short_spans_and_files_without_an_aac_index_are_computed_exactly_at_once(long_m4a, tmp_path):
    wav = tmp_path / "long.wav"
    run_ffmpeg("-i", str(long_m4a), "-ac", "1", "-ar", "8000", str(wav))
    assert load_sound_view(wav, "wav", tmp_path, width=200, max_columns=100, overview_first=True).exact
    short = load_sound_view(long_m4a, "m4a", tmp_path, start_s=10, end_s=70, overview_first=True)
    assert short.exact


def test_overview_of_one_column_is_one_run(long_m4a):
    from annotation.media.aac_frames import read_aac_track
    from annotation.media.soundview import sampled_sound_view

    view = sampled_sound_view(read_aac_track(long_m4a), 0.0, 330.0, width=1, max_columns=1)
    assert view.envelope_maxs.shape == (1,) and view.spectrogram_db.shape == (64, 1)
