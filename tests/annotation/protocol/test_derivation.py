"""PROTOCOL §2: which entailment values follow from others, as the scorer derives them."""

from __future__ import annotations

import pytest
from score_support import (
    AUDIO,
    BROKEN,
    VISUAL,
    judged,
    sentence_with,
    three_cited,
)

from annotation.protocol.derivation import derive_entailment
from annotation.protocol.records import Entailment, Fact

# ---------------------------------------------------------------- derivations (§2)


def test_single_citation_alone_copies_all_and_without_is_false():
    fact = judged([0], all=True)
    assert derive_entailment(fact, sentence_with([VISUAL])) == Entailment(True, [True], [False])


def test_single_citation_given_alone_is_not_overwritten():
    fact = judged([0], all=True, alone=[False], without=[None])
    assert derive_entailment(fact, sentence_with([VISUAL])) == Entailment(True, [False], [False])


def test_two_citations_without_one_is_alone_of_the_other():
    fact = judged([0, 1], all=True, alone=[True, False], without=[None, None])
    assert derive_entailment(fact, sentence_with([VISUAL, AUDIO])).without == [False, True]


def test_two_citations_given_without_is_not_overwritten():
    fact = judged([0, 1], all=True, alone=[True, False], without=[True, None])
    assert derive_entailment(fact, sentence_with([VISUAL, AUDIO])).without == [True, True]


def test_invalid_citation_supports_nothing_whatever_was_recorded():
    fact = judged([0, 1], all=True, alone=[True, True], without=[False, False])
    derived = derive_entailment(fact, sentence_with([VISUAL, BROKEN]))
    assert derived == Entailment(True, [True, False], [False, True])


def test_invalid_citation_rule_applies_first_then_the_only_valid_citation_takes_all():
    # alone[1] becomes False (invalid, whatever was recorded); citation 0 is then the only valid
    # one, so {c0} supports what C does: alone[0] = all, without[0] = False
    fact = judged([0, 1], all=True, alone=[None, True], without=[None, None])
    derived = derive_entailment(fact, sentence_with([VISUAL, BROKEN]))
    assert derived == Entailment(True, [True, False], [False, True])


def test_only_valid_citation_rule_fills_nulls_and_never_overwrites():
    fact = judged([0, 1, 2], all=False, alone=[None, None, True], without=[None, True, None])
    derived = derive_entailment(fact, sentence_with([BROKEN, VISUAL, BROKEN]))
    # invalid 0 and 2: alone False, without = all (overwritten); valid 1: alone filled with all,
    # its given without (True) kept
    assert derived == Entailment(False, [False, False, False], [False, True, False])


def test_two_valid_citations_among_invalid_ones_fill_each_others_without():
    fact = judged([0, 1, 2], all=True, alone=[True, None, False], without=[None, None, None])
    derived = derive_entailment(fact, sentence_with([VISUAL, BROKEN, AUDIO]))
    assert derived == Entailment(True, [True, False, False], [False, True, True])


def test_three_citations_fill_nothing():
    fact = judged([0, 1, 2], all=True, alone=[None, True, None], without=[None, None, False])
    derived = derive_entailment(fact, three_cited())
    assert derived == Entailment(True, [None, True, None], [None, None, False])


def test_empty_lists_mean_not_judged():
    fact = judged([0, 1, 2], all=False)
    assert derive_entailment(fact, three_cited()) == Entailment(False, [None] * 3, [None] * 3)


def test_missing_entailment_derives_as_all_null():
    fact = Fact("a fact", [0, 1], None)
    assert derive_entailment(fact, sentence_with([VISUAL, AUDIO])) == Entailment(None, [None] * 2, [None] * 2)


def test_derivation_leaves_the_fact_unchanged():
    fact = judged([0], all=True, alone=[None], without=[None])
    derive_entailment(fact, sentence_with([VISUAL]))
    assert fact.entailment == Entailment(True, [None], [None])


def test_each_derivation_returns_lists_of_its_own():
    # the rules' result is looked up per pattern: a caller changing one result changes no other
    fact = judged([0], all=True)
    first = derive_entailment(fact, sentence_with([VISUAL]))
    first.alone[0] = False
    assert derive_entailment(fact, sentence_with([VISUAL])) == Entailment(True, [True], [False])


def test_a_value_that_is_not_a_boolean_is_copied_as_it_is():
    # 1 == True, but a derived value keeps the type it was given (an imported record's)
    derived = derive_entailment(judged([0], all=1), sentence_with([VISUAL]))
    assert type(derived.alone[0]) is int and derived.alone == [1]
    assert type(derive_entailment(judged([0], all=True), sentence_with([VISUAL])).alone[0]) is bool


def test_citation_index_out_of_range_is_an_error_naming_the_fact():
    with pytest.raises(ValueError, match="'the man waves'.*index 2"):
        derive_entailment(judged([0, 2], text="the man waves"), sentence_with([VISUAL, AUDIO]))


def test_negative_citation_index_is_out_of_range():
    with pytest.raises(ValueError, match="index -1"):
        derive_entailment(judged([-1]), sentence_with([VISUAL]))


def test_alone_list_of_the_wrong_length_is_an_error():
    with pytest.raises(ValueError, match="'alone' has 1 entries"):
        derive_entailment(judged([0, 1], all=True, alone=[True]), sentence_with([VISUAL, AUDIO]))
