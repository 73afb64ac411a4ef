"""Prompts, media parts and cache keys: what a judge is asked, and when two asks are the same call."""

from __future__ import annotations

from dataclasses import replace

import pytest

from annotation.protocol.citations import Citation, parse_citations
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Response, Sentence
from annotation.store.rows import MediaFile
from calibration.judges import prompts
from calibration.judges.judges_file import Configuration, JudgeConfig
from calibration.judges.parsing import ParsedAnswer
from calibration.judges.pipeline import Answer, CallSpec, ResponsePipeline, media_part_spec

JUDGE = JudgeConfig("j", "openai", "m", ("http://127.0.0.1:1/v1",))
MEDIA = MediaFile("clip", "/media/clip.mp4", "abc", {"duration_s": 6.0})


def spec_for(judge: JudgeConfig, prompt: str = "p") -> CallSpec:
    return CallSpec(judge, "verifiability", "t" * 64, prompt)


def test_cache_key_ignores_endpoint_timeout_and_concurrency():
    other = replace(JUDGE, base_urls=("http://127.0.0.1:2/v1",), timeout_s=5.0, max_concurrency=1)
    assert spec_for(JUDGE).key == spec_for(other).key


def test_cache_key_changes_with_what_changes_the_answer():
    keys = {
        spec_for(JUDGE).key,
        spec_for(replace(JUDGE, temperature=0.7)).key,
        spec_for(replace(JUDGE, model="m2")).key,
        spec_for(JUDGE, "p2").key,
        CallSpec(JUDGE, "verifiability", "u" * 64, "p").key,
    }
    assert len(keys) == 5


def test_changed_prompt_file_has_a_new_hash(tmp_path):
    for stage in prompts.STAGES:
        (tmp_path / f"{stage}.md").write_text(
            (prompts.PROMPT_DIR / f"{stage}.md").read_text() + "\nBe brief."
        )
    assert prompts.load_prompt("entailment", tmp_path).sha256 != prompts.load_prompt("entailment").sha256


def test_render_refuses_a_missing_value():
    with pytest.raises(ValueError, match="missing"):
        prompts.render(prompts.load_prompt("entailment"), fact="x", segments="y")


def test_decompose_prompt_numbers_every_citation_including_invalid_ones():
    sentence = Sentence(
        "The ball stops (visual, 0:05; visual, 0:75).",
        citations=parse_citations("(visual, 0:05; visual, 0:75)"),
    )
    _, text = prompts.decompose_prompt(Response("r", sentence.text), [sentence], 0)
    assert "[0] (visual, 0:05)\n[1] (visual, 0:75)" in text


def test_visual_point_becomes_one_frame_and_a_span_a_muted_video():
    frame = media_part_spec(Citation("visual", 5.0, 5.0), MEDIA, JUDGE)
    clip = media_part_spec(Citation("visual", 1.0, 3.0), MEDIA, JUDGE)
    assert (frame.kind, frame.description) == ("frame", "a single video frame at 0:05")
    assert (clip.kind, clip.description) == ("video", "video without sound, from 0:01 to 0:03")


def test_audio_point_is_described_as_its_second_and_limits_truncate_spans():
    point = media_part_spec(Citation("audio", 2.0, 2.0), MEDIA, JUDGE)
    long_span = media_part_spec(Citation("audio", 1.0, 6.0), MEDIA, replace(JUDGE, max_clip_s=2.0))
    assert point.description == "audio only, from 0:02 to 0:03"
    assert long_span.description == "audio only, from 0:01 to 0:03"


def test_judge_limits_change_the_part_hash():
    citation = Citation("visual", 1.0, 3.0)
    assert (
        media_part_spec(citation, MEDIA, JUDGE).hash
        != media_part_spec(citation, MEDIA, replace(JUDGE, max_height=240)).hash
    )


def test_a_new_clip_recipe_changes_the_part_hash(monkeypatch):
    import annotation.media.clips

    citation = Citation("visual", 1.0, 3.0)
    before = media_part_spec(citation, MEDIA, JUDGE).hash
    monkeypatch.setattr(annotation.media.clips, "CLIP_FORMAT", "v-next")
    assert media_part_spec(citation, MEDIA, JUDGE).hash != before


def _entailment_asks(citations: str, fact_citations: list[int]) -> tuple[list[int], Entailment]:
    """Part counts of the entailment calls a fact needs (every answer 'yes'), and its result."""
    sentence = Sentence(
        "It happens " + citations + ".",
        True,
        parse_citations(citations),
        [Fact("It happens.", fact_citations)],
    )
    asked: list[int] = []

    def ask(specs):
        asked.extend(len(s.parts) for s in specs)
        return [Answer(s.key, "answered", ParsedAnswer(True)) for s in specs]

    gold = EvaluationRecord("r", "gold", [sentence])
    record = ResponsePipeline(
        Configuration("gold", "gold", "j"),
        {"j": JUDGE},
        Response("r", sentence.text),
        [sentence],
        MEDIA,
        gold,
        ask,
    ).run()
    return asked, record.sentences[0].facts[0].entailment


def test_one_citation_needs_only_the_all_question():
    asked, entailment = _entailment_asks("(visual, 0:01)", [0])
    assert asked == [1] and entailment == Entailment(True, [True], [False])


def test_two_citations_ask_all_and_each_alone_and_derive_without():
    asked, entailment = _entailment_asks("(visual, 0:01; audio, 0:02)", [0, 1])
    assert asked == [2, 1, 1] and entailment == Entailment(True, [True, True], [True, True])


def test_three_citations_also_ask_each_without():
    asked, entailment = _entailment_asks("(visual, 0:01; audio, 0:02; visual, 0:03)", [0, 1, 2])
    assert asked == [3, 1, 1, 1, 2, 2, 2] and entailment.without == [True, True, True]


def test_invalid_citation_is_derived_and_never_asked_about():
    asked, entailment = _entailment_asks("(visual, 0:01; visual, 0:75)", [0, 1])
    # `alone[0]` is the same set as `all` (one call in a real run); 0:75 is never sent
    assert asked == [1, 1] and entailment == Entailment(True, [True, False], [False, True])
