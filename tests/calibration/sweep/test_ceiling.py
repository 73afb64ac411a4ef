"""The human ceiling (calibration/ceiling.py): leave-one-annotator-out Pearson r, by hand."""

from __future__ import annotations

import math

import pytest

from annotation.protocol.citations import Citation
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence
from calibration.scoring.murgat_s import PRECISION_MODES
from calibration.sweep.ceiling import annotator_scores, human_ceiling, human_ceilings

VISUAL = Citation("visual", 1.0, 1.0)


def scored(name: str, rid: str, score: float) -> EvaluationRecord:
    """A record whose MURGAT-S is `score` in every precision mode: one cited sentence with a
    one-citation fact (recall = precision = `all`), and uncited sentences the annotator calls
    verifiable to lower the coverage (1 → 1, 1/2 → one, 1/3 → two; 0: `all` false)."""
    extra = {1: 0, 0.5: 1, 1 / 3: 2, 0: 0}[score]
    cited = Sentence(
        "A man points (visual, 0:01).", True, [VISUAL], [Fact("A man points.", [0], Entailment(score != 0))]
    )
    uncited = [Sentence(f"Plain {k}.", k < extra, []) for k in range(2)]
    return EvaluationRecord(rid, f"human:{name}", [cited, *uncited])


SCORES = {"alice": [1, 0.5, 0, 1 / 3], "bob": [1, 1 / 3, 0, 0.5], "carol": [0.5, 0.5, 0, 1]}


def records(scores=SCORES):
    return [scored(name, f"r{k}", s) for name, row in scores.items() for k, s in enumerate(row)]


def test_each_annotators_murgat_s_is_scored_from_their_record():
    assert annotator_scores(records(), "individual")["bob"] == pytest.approx(
        {"r0": 1, "r1": 1 / 3, "r2": 0, "r3": 0.5}
    )


def test_leave_one_out_r_and_the_ceiling_match_the_hand_computation():
    # alice x = (1, 1/2, 0, 1/3), mean of bob and carol y = (3/4, 5/12, 0, 3/4):
    # Sxy = 95/288, Sxx = 25/48, Syy = 73/192. bob: 107/288, 25/48, 65/192.
    # carol: x = (1/2, 1/2, 0, 1), y = (1, 5/12, 0, 5/12): 5/24, 1/2, 73/144.
    expected = {
        "alice": 95 / 288 / math.sqrt(25 / 48 * 73 / 192),
        "bob": 107 / 288 / math.sqrt(25 / 48 * 65 / 192),
        "carol": 5 / 24 / math.sqrt(1 / 2 * 73 / 144),
    }
    result = human_ceiling(records(), "individual")
    assert {a.annotator: a.pearson for a in result.per_annotator} == pytest.approx(expected, abs=1e-12)
    assert result.ceiling == pytest.approx(sum(expected.values()) / 3, abs=1e-12)


def test_responses_not_completed_by_every_annotator_are_left_out():
    extra = [scored("alice", "r9", 0), scored("bob", "r9", 1)]  # carol has no r9
    with_extra = human_ceiling(records() + extra, "individual")
    assert with_extra.response_ids == ["r0", "r1", "r2", "r3"]
    assert with_extra.ceiling == pytest.approx(human_ceiling(records(), "individual").ceiling)


def test_response_ids_restrict_the_responses_used():
    result = human_ceiling(records(), "individual", response_ids={"r0", "r1"})
    assert result.ceiling is None
    assert result.per_annotator[0].reason == "fewer than 3 responses completed by every annotator (2)"


def test_a_single_annotator_has_no_ceiling_and_says_why():
    result = human_ceiling(records({"alice": SCORES["alice"]}), "individual")
    assert result.ceiling is None and result.reason == "fewer than two annotators (1)"


def test_an_annotator_with_constant_scores_is_undefined_and_the_others_still_count():
    scores = {"alice": [1, 1, 1, 1], "bob": [1, 0.5, 0, 1 / 3], "carol": [1, 1 / 3, 0, 0.5]}
    result = human_ceiling(records(scores), "individual")
    by_name = {a.annotator: a for a in result.per_annotator}
    assert by_name["alice"].reason == "this annotator's scores are constant"
    assert by_name["bob"].pearson is not None and by_name["carol"].pearson is not None
    assert result.ceiling == pytest.approx((by_name["bob"].pearson + by_name["carol"].pearson) / 2)


def test_every_precision_mode_gets_a_ceiling():
    assert list(human_ceilings(records())) == list(PRECISION_MODES)
