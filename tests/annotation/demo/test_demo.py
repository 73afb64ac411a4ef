"""The demo project: real media (ffmpeg), a real SQLite store, records that score as constructed."""

import json

import numpy as np
import pytest
from scipy.stats import pearsonr

from annotation.demo.labellers import JUDGE_CONFIGS, judge_source
from annotation.demo.project import LABELLED_QUEUE, TRUTH_FILE, build_demo
from annotation.media.clips import decode_audio
from annotation.media.files import probe_media
from annotation.protocol.derivation import derive_entailment
from annotation.protocol.sentences import answer_letter
from annotation.state import project_state
from annotation.store.accounts import authenticate
from annotation.store.project_store import ProjectStore
from annotation.store.rows import Person
from annotation.work.labels import human_records
from annotation.work.sample_queues import sample_queue
from calibration.scoring.murgat_s import PRECISION_MODES, score_records

ANNOTATOR_NAMES = ("alice", "bob", "carol")


@pytest.fixture(scope="module")
def demo(module_demo):
    """A copy of the demo this run built once (tests/conftest.py) with seed 0."""
    directory = module_demo
    store = ProjectStore.open(directory)
    return {"store": store, "directory": directory, "truth": json.loads((directory / TRUTH_FILE).read_text())}


def _all_citations(store):
    return [c for rid in store.response_ids() for s in store.response_sentences(rid) for c in s.citations]


def _gold_scores(store, mode="individual"):
    return np.array([s.murgat_s for s in score_records(project_state(store).gold.records, [mode])])


def test_demo_accounts_sign_in_with_their_name_as_password(demo):
    expected = {
        "admin": "admin",
        "ada": "adjudicator",
        "alice": "annotator",
        "bob": "annotator",
        "carol": "annotator",
        "dana": "annotator",
    }
    for name, role in expected.items():
        assert authenticate(demo["store"], name, name) == Person(name, role)


def test_fresh_annotator_dana_has_no_labels(demo):
    assert demo["store"].events.log(who="dana") == []


def test_demo_settings_say_it_is_synthetic_end_to_end_with_overlap_four(demo):
    store = demo["store"]
    assert store.get_setting("project_name") == "MURGAT demo (synthetic data)"
    assert store.get_setting("synthetic") is True
    assert store.get_setting("campaign_mode") == "end_to_end"
    assert store.get_setting("overlap") == 4  # alice, bob and carol labelled all: dana is the fourth
    assert store.get_setting("pad_s") == 1.0


def test_three_videos_probe_to_their_ground_truth_durations(demo):
    store, videos = demo["store"], demo["truth"]["videos"]
    assert len(videos) == 3 and sorted(store.media_names()) == sorted(v["name"] for v in videos)
    for video in videos:
        info = probe_media(store.media_root / video["name"])
        assert 12 <= video["duration_s"] <= 20
        assert info.duration_s == pytest.approx(video["duration_s"], abs=0.1)
        assert (info.width, info.height, info.fps, info.has_audio) == (320, 240, 25.0, True)


def test_ground_truth_scenes_and_sounds_tile_each_video(demo):
    for video in demo["truth"]["videos"]:
        for track in ("visual", "audio"):
            bounds = [(part["start_s"], part["end_s"]) for part in video[track]]
            assert bounds[0][0] == 0 and bounds[-1][1] == video["duration_s"]
            assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:], strict=False))


def test_soundtrack_plays_each_ground_truth_tone_at_its_pitch(demo):
    pitches = {"low": 220.0, "middle": 440.0, "high": 880.0}
    for video in demo["truth"]["videos"]:
        for sound in (s for s in video["audio"] if s["kind"] == "tone"):
            samples = decode_audio(
                demo["store"].media_root / video["name"],
                sound["start_s"] + 0.2,
                sound["end_s"] - 0.2,
                sample_rate=8000,
            )
            spectrum = np.abs(np.fft.rfft(samples))
            peak_hz = np.fft.rfftfreq(len(samples), 1 / 8000)[spectrum.argmax()]
            assert peak_hz == pytest.approx(pitches[sound["pitch"]], abs=5)


def test_silence_is_silent_and_noise_is_loud_where_the_ground_truth_says(demo):
    video = demo["truth"]["videos"][0]
    path = demo["store"].media_root / video["name"]
    for sound in video["audio"]:
        if sound["kind"] in ("silence", "noise"):
            rms = float(
                np.sqrt(
                    np.mean(
                        decode_audio(path, sound["start_s"] + 0.2, sound["end_s"] - 0.2, sample_rate=8000)
                        ** 2
                    )
                )
            )
            assert rms < 0.01 if sound["kind"] == "silence" else rms > 0.05


def labelled_ids(store) -> list[str]:
    """The 24 responses people label (the models' other responses are judge-scored only)."""
    return [rid for rid, _ in sample_queue(store, LABELLED_QUEUE)]


def test_demo_has_24_labelled_questions_with_four_options_and_a_gold_letter(demo):
    store = demo["store"]
    responses = [store.response(rid) for rid in labelled_ids(store)]
    assert len(responses) == 24
    assert all(len(r.options) == 4 and r.answer in "ABCD" for r in responses)
    assert all(answer_letter(r.text) in "ABCD" for r in responses)


def test_some_responses_think_before_answering(demo):
    texts = [demo["store"].response(rid).text for rid in demo["store"].response_ids()]
    assert 0 < sum("<think>" in t for t in texts) < len(texts)


def test_records_come_from_gold_three_annotators_and_four_judges(demo):
    store = demo["store"]
    assert store.record_sources() == sorted(judge_source(c) for c in JUDGE_CONFIGS)  # gold is derived
    assert len(project_state(store).gold.records) == 24
    assert len(JUDGE_CONFIGS) >= 4
    assert {r.source for r in human_records(store)} == {f"human:{n}" for n in ANNOTATOR_NAMES}
    for source in store.record_sources():
        assert {r.response_id for r in store.list_records(source=source)} >= set(labelled_ids(store))


def test_every_annotator_finished_every_response(demo):
    store = demo["store"]
    for name in ANNOTATOR_NAMES:
        done = {
            e.response_id
            for e in store.events.current_labels(who=name)
            if str(e.task) == "done" and e.value is True
        }
        assert done == set(labelled_ids(store))


def test_human_records_are_complete_for_every_annotator_and_response(demo):
    records = human_records(demo["store"])
    assert len(records) == 3 * 24
    for record in records:
        assert all(s.verifiable is not None for s in record.sentences)
        assert all(s.facts for s in record.sentences if s.verifiable and s.has_valid_citation)
    for score in score_records(records, PRECISION_MODES):
        assert (score.n_undetermined, score.n_recall_undetermined) == (0, 0)


def test_annotators_disagree_now_and_then_but_mostly_agree(demo):
    by_source = {}
    for record in human_records(demo["store"]):
        by_source.setdefault(record.source, []).extend(s.verifiable for s in record.sentences)
    alice, carol = np.array(by_source["human:alice"]), np.array(by_source["human:carol"])
    assert 0.7 < float(np.mean(alice == carol)) < 1.0


def test_careless_annotator_often_decides_in_under_two_seconds(demo):
    def quick_share(name):
        spent = [e.spent_ms for e in demo["store"].events.log(who=name) if e.spent_ms is not None]
        return sum(ms < 2000 for ms in spent) / len(spent)

    assert quick_share("carol") > 0.4
    assert quick_share("alice") < 0.2


def test_gold_is_complete_and_obeys_the_derivation_rules(demo):
    for record in project_state(demo["store"]).gold.records:
        for sentence in record.sentences:
            assert sentence.verifiable is not None
            for fact in sentence.facts:
                assert derive_entailment(fact, sentence) == fact.entailment


def test_gold_scores_spread_across_responses(demo):
    scores = _gold_scores(demo["store"])
    assert scores.min() < 0.3 and scores.max() > 0.8


def test_judges_rank_by_correlation_with_gold_as_constructed(demo):
    store, gold = demo["store"], _gold_scores(demo["store"])
    correlations = []
    for config in JUDGE_CONFIGS:
        judged = [
            s.murgat_s
            for rid in labelled_ids(store)
            for s in score_records(
                store.list_records(source=judge_source(config), response_id=rid), ["individual"]
            )
        ]
        correlations.append(pearsonr(gold, judged)[0])
    assert correlations == sorted(correlations, reverse=True)
    assert correlations[0] > 0.75  # 0.82 for seed 0; 0.82 on average over seeds 0–11
    assert abs(correlations[-1]) < 0.3


def test_malformed_citations_of_every_kind_are_present_and_invalid(demo):
    invalid = [c for c in _all_citations(demo["store"]) if not c.valid]
    reasons = " | ".join(c.reason for c in invalid)
    for expected in ("below 60", "end before start", "beyond the media's duration", "unknown modality"):
        assert expected in reasons
    assert all(c.raw for c in invalid)


def test_citations_mix_points_spans_visual_audio_and_group_sizes(demo):
    valid = [c for c in _all_citations(demo["store"]) if c.valid]
    assert {c.modality for c in valid} == {"visual", "audio"}
    assert any(c.start == c.end for c in valid) and any(c.start < c.end for c in valid)
    sizes = {
        len(s.citations)
        for rid in demo["store"].response_ids()
        for s in demo["store"].response_sentences(rid)
    }
    assert {0, 1, 2, 3} <= sizes


def test_building_twice_with_the_same_seed_gives_identical_records(demo, tmp_path):
    again = build_demo(tmp_path / "again", seed=0)
    first = demo["store"]
    assert [r.to_dict() for r in again.list_records()] == [r.to_dict() for r in first.list_records()]
    assert [r.to_dict() for r in human_records(again)] == [r.to_dict() for r in human_records(first)]
    assert [again.response(r).to_dict() for r in again.response_ids()] == [
        first.response(r).to_dict() for r in first.response_ids()
    ]
    assert [again.media(n).sha256 for n in again.media_names()] == [
        first.media(n).sha256 for n in first.media_names()
    ]


def test_building_over_an_existing_demo_with_its_seed_returns_it_unchanged(demo):
    events_before = len(demo["store"].events.log())
    store = build_demo(demo["directory"], seed=0)
    assert len(store.events.log()) == events_before
    assert len(project_state(store).gold.records) == 24


def test_building_over_a_demo_of_another_seed_is_refused(demo):
    with pytest.raises(ValueError, match="seed 0, not 1"):
        build_demo(demo["directory"], seed=1)


def test_building_into_a_non_empty_directory_that_is_no_demo_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not a demo project"):
        build_demo(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
