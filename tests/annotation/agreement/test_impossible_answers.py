"""Stage-3 answers on one fact that cannot all be true (annotation/agreement/annotator_stats.py):
a set of segments supports whatever a part of it supports, so `all` = no contradicts a yes on one
valid citation alone or on the others without one. Cases written by hand."""

import pytest

from annotation.agreement.annotator_stats import impossible_answers, impossible_tallies
from annotation.protocol.citations import Citation
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence

SEEN = Citation("visual", 2.0, 2.0)
HEARD = Citation("audio", 3.0, 5.0)
BROKEN = Citation("visual", None, None, valid=False, raw="visual, 9:99", reason="past the end")


def sentence_citing(*citations) -> Sentence:
    return Sentence("A man waves and says hello.", True, list(citations))


def fact(everything, alone=(), without=(), citations=(0, 1)) -> Fact:
    return Fact("A man waves.", list(citations), Entailment(everything, list(alone), list(without)))


@pytest.mark.parametrize(
    ("answers", "impossible"),
    [
        (fact(False, [True, False]), True),  # the picture alone shows it, both together do not
        (fact(False, [None, None], [False, True]), True),  # still shown without the sound, not with it
        (fact(False, [False, False], [False, False]), False),  # no part shows it: consistent
        (fact(True, [True, False], [False, True]), False),  # together they show it: anything goes
        (fact(None, [True, None]), False),  # `all` not answered: nothing to contradict
        (fact(False, [None, None]), False),  # only `all` answered
        (Fact("A man waves.", [0, 1], None), False),  # stage 3 not done
    ],
)
def test_a_no_on_all_contradicts_a_yes_on_a_part(answers, impossible):
    assert impossible_answers(answers, sentence_citing(SEEN, HEARD)) is impossible


def test_a_yes_on_an_invalid_citation_does_not_count_the_protocol_overrules_it():
    answers = fact(False, [True, False])
    assert impossible_answers(answers, sentence_citing(BROKEN, HEARD)) is False
    assert impossible_answers(answers, sentence_citing(SEEN, BROKEN)) is True


def test_a_fact_citing_a_segment_its_sentence_lacks_is_not_counted():
    assert (
        impossible_answers(fact(False, [True, True], citations=(0, 3)), sentence_citing(SEEN, HEARD)) is False
    )


def test_each_annotator_is_counted_over_the_facts_they_answered_all_on():
    cited = sentence_citing(SEEN, HEARD)
    ana = EvaluationRecord(
        "r1",
        "human:ana",
        [
            Sentence(
                cited.text, True, cited.citations,
                [fact(False, [True, False]), fact(True, [True, True]), fact(None, [True, None])],
            )
        ],
    )  # fmt: skip
    ben = EvaluationRecord("r1", "human:ben", [Sentence(cited.text, True, cited.citations, [fact(True)])])
    cy = EvaluationRecord("r1", "human:cy", [Sentence(cited.text, False, cited.citations, [])])
    assert impossible_tallies({"ana": ana, "ben": ben, "cy": cy}) == {"ana": (1, 2), "ben": (0, 1)}
