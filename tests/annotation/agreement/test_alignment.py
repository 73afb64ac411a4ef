"""annotation.agreement.alignment: normalising, comparing and aligning atomic-fact lists."""

import pytest

from annotation.agreement.alignment import align_facts, fact_set_prf, fact_similarity, normalise_fact_text


def test_normalising_drops_citations_punctuation_and_case():
    assert (
        normalise_fact_text("The Man points, at the SCREEN (visual, 0:12; audio, 0:12-0:14).")
        == "the man points at the screen"
    )


def test_similarity_is_token_f1():
    # {a, man, points} vs {the, man, points, at, screen}: 2 shared; P = 2/3, R = 2/5 → F1 = 1/2
    assert fact_similarity("A man points.", "The man points at screen") == pytest.approx(0.5)


def test_similarity_does_not_reward_shared_letters():
    assert fact_similarity("A woman speaks", "man") == 0.0


def test_alignment_maximises_total_similarity_not_the_first_best_pair():
    # a0–b0 = 6/7 is the single best pair, but taking it strands a1 (a1–b1 = 0).
    # The optimum pairs a0–b1 (2/3) and a1–b0 (2/3).
    a = ["man holds red", "red cup"]
    b = ["man holds red cup", "man holds phone"]
    assert align_facts(a, b) == [(0, 1, pytest.approx(2 / 3)), (1, 0, pytest.approx(2 / 3))]


def test_alignment_drops_pairs_below_the_threshold():
    # "dog barks" vs "a cat barks": P = 1/2, R = 1/3 → F1 = 0.4
    assert align_facts(["dog barks"], ["a cat barks"], threshold=0.5) == []
    assert align_facts(["dog barks"], ["a cat barks"], threshold=0.4) == [(0, 0, pytest.approx(0.4))]


def test_alignment_rejects_a_zero_threshold():
    with pytest.raises(ValueError, match="threshold"):
        align_facts(["a"], ["b"], threshold=0)


def test_fact_set_prf_counts_matches_against_each_side():
    # "man holds red" matches "man holds red cup" (6/7); "dog barks" finds nothing
    assert fact_set_prf(["man holds red"], ["man holds red cup", "dog barks"]) == pytest.approx(
        (1.0, 0.5, 2 / 3)
    )


def test_two_empty_decompositions_agree_perfectly():
    assert fact_set_prf([], []) == (1.0, 1.0, 1.0)


def test_an_empty_decomposition_against_facts_scores_zero():
    assert fact_set_prf([], ["dog barks"]) == (0.0, 0.0, 0.0)
