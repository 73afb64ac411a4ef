"""In-memory records are scored once per record object while it lives
(calibration/scoring/kept_scores.py)."""

from __future__ import annotations

import copy
import gc

from score_support import AUDIO, VISUAL, judged, record_of, sentence_with

from calibration.scoring import kept_scores as kept
from calibration.scoring.murgat_s import PRECISION_MODES, score_records


def two_records():
    first = record_of(sentence_with([VISUAL, AUDIO], [judged([0, 1], all=True, alone=[True, False])]))
    second = record_of(sentence_with([VISUAL], [judged([0], all=False)]), response_id="r2")
    return [first, second]


def test_kept_scores_are_the_scorers_in_the_same_order():
    records = two_records()
    assert kept.kept_scores(records, PRECISION_MODES) == score_records(records, PRECISION_MODES)
    assert kept.kept_scores(records, ["alce"]) == score_records(records, ["alce"])


def test_a_record_read_again_gets_the_scores_it_was_given_and_an_equal_copy_its_own():
    records = two_records()
    first = kept.kept_scores(records, ["individual", "necessity"])
    again = kept.kept_scores(records, ["individual", "necessity"])
    assert all(a is b for a, b in zip(first, again, strict=True))  # not scored a second time
    copies = kept.kept_scores([copy.deepcopy(r) for r in records], ["individual", "necessity"])
    assert copies == first and all(a is not b for a, b in zip(first, copies, strict=True))


def test_a_records_scores_go_with_it():
    records = two_records()
    kept.kept_scores(records, ["individual"])
    held = {id(r) for r in records}
    assert held <= set(kept._kept)
    del records
    gc.collect()
    assert not held & set(kept._kept)
