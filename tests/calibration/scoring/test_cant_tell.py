"""A "can't tell" answer (PROTOCOL §2) scored by §3's undetermined rules: the person's record,
derived from their labels, holds null there, and the scorer leaves the response out rather than
scoring it 0."""

from __future__ import annotations

from annotation.protocol.citations import Citation
from annotation.protocol.ids import Task, Unit
from annotation.protocol.records import Sentence
from annotation.work.labels import record_from_labels
from calibration.scoring.murgat_s import score_record

SENTENCE = Sentence("A tone plays (audio, 0:01).", citations=[Citation("audio", 1.0, 1.0)])
UNIT = Unit.of_fact(0, "A tone plays.", [0])


def record_with(answer):
    labels = {
        (Unit.of_sentence(0), Task.parse("verifiable")): True,
        (Unit.of_sentence(0), Task.parse("facts")): [{"text": "A tone plays.", "citations": [0]}],
        (UNIT, Task.parse("all")): answer,
    }
    return record_from_labels("r1", "human:ana", [SENTENCE], labels)


def test_a_response_whose_only_value_could_not_be_told_is_undetermined_not_zero():
    score = score_record(record_with({"cant_tell": "the audio is inaudible"}), "individual")
    assert (score.precision, score.recall, score.f1, score.murgat_s) == (None, None, None, None)


def test_the_same_response_answered_no_scores_zero():
    score = score_record(record_with(False), "individual")
    assert (score.f1, score.murgat_s) == (0.0, 0.0)
