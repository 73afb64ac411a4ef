"""Citation-bound playback on the annotate page, with real clips cut by the bundled ffmpeg: one
player per citation (a components-v2 module), opening on the cited start, in source time."""

import base64
import json
import shutil
from pathlib import Path

import pytest
from app_support import click, components, signed_in_app, tiny_project

from annotation.media.files import probe_media
from annotation.store.project_store import ProjectStore

TEXT = (
    "A square moves (visual, 0:02-0:03). A tone sounds and the picture stays "
    "(audio, 0:01-0:03; visual, 0:04). It looks nice (visual, 0:75).\nAnswer: A"
)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The project as `tiny_project` makes it (its clip encoded by ffmpeg), once per module; never
    opened by a test."""
    directory = tmp_path_factory.mktemp("player") / "p"
    tiny_project(directory, texts=(TEXT,), with_media=True).close()
    return directory


@pytest.fixture
def project(built, tmp_path):
    """This test's own copy of the project, before any page ran on it (nothing cut or cached)."""
    return Path(shutil.copytree(built, tmp_path / "p"))


@pytest.fixture
def app(monkeypatch, project):
    return signed_in_app(monkeypatch, project, "ann")


def shared_page(built, tmp_path_factory, answers: int):
    """ann's page after `answers` answers, on a project copy of its own, for the tests that only read
    it: a page of each test's own cost ≈ 0.4 CPU s (a copy, a script run, its clips cut)."""
    project = Path(shutil.copytree(built, tmp_path_factory.mktemp("shared") / "p"))
    with pytest.MonkeyPatch.context() as monkeypatch:
        page = signed_in_app(monkeypatch, project, "ann")
        for _ in range(answers):
            page = click(page, "answer:True")
        yield page


@pytest.fixture(scope="module")
def first_question(built, tmp_path_factory):
    """The first question: sentence 1, one visual span."""
    yield from shared_page(built, tmp_path_factory, 0)


@pytest.fixture(scope="module")
def second_question(built, tmp_path_factory):
    """The second question: sentence 2, an audio span and a visual point."""
    yield from shared_page(built, tmp_path_factory, 1)


def project_of(page) -> Path:
    return Path(page.session_state["project"])


def clip_file(project, name):
    store = ProjectStore.open(project)
    return store.cache_dir / "clips" / store.media("clip.mp4").sha256 / name


def players(app) -> list[dict]:
    """Every player on the page (the players of a page are one element)."""
    return [player for data in components(app, "murgat_players") for player in data["players"]]


def test_the_players_of_a_question_are_one_element(second_question):
    # two segments
    assert len(components(second_question, "murgat_players")) == 1 and len(players(second_question)) == 2


def legend(app) -> dict:
    [data] = [d for d in components(app, "murgat_keys") if d.get("legend")]
    return data


def test_visual_span_plays_a_muted_video_clip_of_span_plus_padding(first_question):
    [player] = players(first_question)
    assert player["kind"] == "video" and player["url"]
    duration = probe_media(
        clip_file(project_of(first_question), "visual_2000-3000_pad1000_v1.mp4")
    ).duration_s
    assert duration == pytest.approx(3.0, abs=0.08)  # [2 − 1, 3 + 1]


def test_player_knows_the_cited_span_inside_the_clip_in_source_time(first_question):
    [player] = players(first_question)
    times = [player[k] for k in ("clip_start_s", "clip_end_s", "cited_start_s", "cited_end_s")]
    assert times == pytest.approx([1.0, 4.0, 2.0, 3.0])
    assert player["media_duration_s"] == pytest.approx(6.0, abs=0.05)
    assert player["label"] == "visual 0:02-0:03"


def test_a_video_player_shows_the_cited_start_frame_as_its_poster(first_question):
    [player] = players(first_question)
    assert player["poster"] and clip_file(project_of(first_question), "frame_2000_v1.jpg").exists()


def test_question_plays_each_of_its_segments_one_player_each(second_question):
    # sentence 2: audio span and visual point
    assert [p["kind"] for p in players(second_question)] == ["audio", "video"]
    assert (
        len(second_question.get("video")) == 0
        and len(second_question.get("audio")) == 0
        and len(second_question.get("image")) == 0
    )


def test_audio_clip_is_audio_only_and_as_long_as_span_plus_padding(second_question):
    duration = probe_media(
        clip_file(project_of(second_question), "audio_1000-3000_pad1000_v1.wav")
    ).duration_s
    assert duration == pytest.approx(4.0, abs=0.05)  # [0, 4]


def test_an_audio_player_carries_its_own_sound_view(second_question):
    audio = next(p for p in players(second_question) if p["kind"] == "audio")
    sound, spectrogram = audio["sound"], audio["sound"]["spectrogram"]
    assert spectrogram["rows"] == 64
    assert len(base64.b64decode(spectrogram["b64"])) == spectrogram["rows"] * spectrogram["cols"]
    assert all(-1.0 <= low <= high <= 1.0 for low, high in zip(sound["mins"], sound["maxs"], strict=True))
    assert max(sound["maxs"]) > 0.1  # the generated 440 Hz tone is there


def test_a_visual_point_clip_opens_on_the_cited_frame(second_question):
    video = next(p for p in players(second_question) if p["kind"] == "video")
    assert (video["cited_start_s"], video["cited_end_s"]) == (4.0, 4.0)
    assert video["clip_start_s"] == pytest.approx(3.0)


def test_choosing_a_chip_plays_only_that_citation(app):
    click(app, "answer:True")
    app.button_group(key="chips:r1|s1|verifiable").select(0).run()
    assert [p["kind"] for p in players(app)] == ["audio"]


def test_invalid_citation_is_listed_and_plays_nothing(app):  # sentence 3: (visual, 0:75)
    click(click(app, "answer:True"), "answer:True")
    captions = [c.value for c in app.caption]
    assert "An invalid citation supports nothing; there is nothing to play." in captions
    assert players(app) == []


def test_the_legend_lists_the_keys_of_the_decision(first_question):
    data = legend(first_question)
    assert data["legend"] == [
        ["V", "verifiable"],
        ["N", "not verifiable"],
        ["U", "undo"],
        ["P", "play"],
        ["L", "lead-in"],
        ["O", "loop"],
        ["S", "slow"],
        [",/.", "frame"],
    ]
    assert data["question"] == "r1|s0|verifiable"


def test_one_playable_segment_offers_no_play_all_together(first_question):
    assert legend(first_question)["play_all"] is False


def test_two_playable_segments_offer_play_all_together(second_question):
    assert (
        legend(second_question)["play_all"] is True and ["P", "play all"] in legend(second_question)["legend"]
    )


def test_keys_wait_the_default_250_ms_after_a_new_question(first_question):
    assert legend(first_question)["cooldown_ms"] == 250


def test_the_key_wait_is_a_project_setting(monkeypatch, project):
    ProjectStore.open(project).set_setting("key_cooldown_ms", 400)
    assert legend(signed_in_app(monkeypatch, project, "ann"))["cooldown_ms"] == 400


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
    duration = ProjectStore.open(project).media("clip.mp4").duration_s
    assert figure["layout"]["xaxis3"]["range"] == [0, duration]


def test_missing_media_file_gives_a_friendly_note(monkeypatch, project):
    store = ProjectStore.open(project)
    (store.media_root / "clip.mp4").unlink()
    app = signed_in_app(monkeypatch, project, "ann")
    assert not app.exception
    assert "could not be prepared for playback" in app.warning[0].value
