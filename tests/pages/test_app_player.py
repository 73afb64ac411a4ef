"""Citation-bound playback on the annotate page, with real clips cut by the bundled ffmpeg."""

import json

import pytest
from app_support import click, open_app, sign_in, tiny_project

from annotation.media.files import probe_media
from annotation.store.project_store import ProjectStore

TEXT = (
    "A square moves (visual, 0:02-0:03). A tone sounds and the picture stays "
    "(audio, 0:01-0:03; visual, 0:04). It looks nice (visual, 0:75).\nAnswer: A"
)


@pytest.fixture
def project(tmp_path):
    tiny_project(tmp_path / "p", texts=(TEXT,), with_media=True)
    return tmp_path / "p"


@pytest.fixture
def app(monkeypatch, project):
    return sign_in(open_app(monkeypatch, project), "ann")


def clip_file(project, name):
    store = ProjectStore.open(project)
    return store.cache_dir / "clips" / store.media("clip.mp4")["sha256"] / name


def test_visual_span_plays_a_muted_clip_of_span_plus_padding(app, project):
    video = app.get("video")[0].proto
    assert video.muted and len(app.get("audio")) == 0
    duration = probe_media(clip_file(project, "visual_2000-3000_pad1000_v1.mp4")).duration_s
    assert duration == pytest.approx(3.0, abs=0.08)  # [2 − 1, 3 + 1]


def test_player_marks_where_the_cited_span_sits(app):
    assert "cited 0:02–0:03; this clip is 0:01–0:04, the cited part at 1.0–2.0 s" in [
        c.value for c in app.caption
    ]
    assert app.get("video")[0].proto.subtitles[0].url  # the "▶ cited" caption track


def test_question_plays_each_of_its_segments(app):
    click(app, "answer:True")  # on to sentence 2: audio span and visual point
    assert len(app.get("audio")) == 1 and len(app.get("image")) == 1 and len(app.get("video")) == 1


def test_audio_clip_is_audio_only_and_as_long_as_span_plus_padding(app, project):
    click(app, "answer:True")
    duration = probe_media(clip_file(project, "audio_1000-3000_pad1000_v1.wav")).duration_s
    assert duration == pytest.approx(4.0, abs=0.05)  # [0, 4]


def test_choosing_a_chip_plays_only_that_citation(app):
    click(app, "answer:True")
    app.button_group(key="chips:r1|s1|verifiable").select(0).run()
    assert len(app.get("audio")) == 1 and len(app.get("video")) == 0


def test_invalid_citation_is_listed_and_plays_nothing(app):
    click(click(app, "answer:True"), "answer:True")
    captions = [c.value for c in app.caption]
    assert "An invalid citation supports nothing; there is nothing to play." in captions
    assert len(app.get("video")) == 0 and len(app.get("audio")) == 0


def test_timeline_shows_every_valid_citation_of_the_response(app):
    app.toggle(key="show_timeline").set_value(True).run()
    figure = json.loads(app.get("plotly_chart")[0].proto.spec)
    points = [tuple(p) for trace in figure["data"] for p in trace.get("customdata", [])]
    assert sorted(points) == [(0, 0), (1, 0), (1, 1)]  # the invalid 0:75 is left out


def test_timeline_shows_the_whole_media_sound_below_the_citations(app, project):
    app.toggle(key="show_timeline").set_value(True).run()
    figure = json.loads(app.get("plotly_chart")[0].proto.spec)
    sound = [t for t in figure["data"] if "customdata" not in t]
    assert [t["type"] for t in sound] == ["scatter", "scatter", "heatmap"]
    assert [t["yaxis"] for t in sound] == ["y2", "y2", "y3"]
    duration = ProjectStore.open(project).media("clip.mp4")["info"]["duration_s"]
    assert figure["layout"]["xaxis3"]["range"] == [0, duration]


def test_sound_view_draws_waveform_and_spectrogram_with_the_span_shaded(app):
    click(app, "answer:True")
    app.toggle(key="see_sound").set_value(True).run()
    figure = json.loads(app.get("plotly_chart")[0].proto.spec)
    assert [t["type"] for t in figure["data"]] == ["scatter", "scatter", "heatmap"]
    assert {(s["x0"], s["x1"]) for s in figure["layout"]["shapes"]} == {(1.0, 3.0)}


def test_missing_media_file_gives_a_friendly_note(monkeypatch, project):
    store = ProjectStore.open(project)
    (store.media_root / "clip.mp4").unlink()
    app = sign_in(open_app(monkeypatch, project), "ann")
    assert not app.exception
    assert "could not be prepared for playback" in app.warning[0].value
