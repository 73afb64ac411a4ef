"""Citations, facts and records for the scorer tests (support code, not a test module)."""

from __future__ import annotations

from annotation.protocol.citations import Citation
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence

VISUAL = Citation("visual", 1.0, 1.0)
AUDIO = Citation("audio", 2.0, 4.0)
VISUAL_LATE = Citation("visual", 5.0, 6.0)
AUDIO_LATE = Citation("audio", 8.0, 8.0)
BROKEN = Citation(
    "visual", None, None, valid=False, raw="visual, 0:75", reason="time '0:75': seconds must be below 60"
)


def judged(indices, all=None, alone=(), without=(), text="a fact"):
    return Fact(text, list(indices), Entailment(all, list(alone), list(without)))


def sentence_with(citations, facts=(), verifiable=True):
    return Sentence("A sentence.", verifiable, list(citations), list(facts))


def record_of(*sentences, response_id="r1", source="human:alice"):
    return EvaluationRecord(response_id, source, list(sentences))


def three_cited():
    return sentence_with([VISUAL, AUDIO, VISUAL_LATE])
