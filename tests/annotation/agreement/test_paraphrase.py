"""annotation.agreement.paraphrase: the similarity that decides whether two wordings are one fact, its
threshold chosen on the labelled set of paraphrase_pairs.py, and its hard negatives."""

from __future__ import annotations

import pytest
from paraphrase_pairs import LABELLED_PAIRS

from annotation.agreement.paraphrase import (
    SAME_FACT_THRESHOLD,
    choose_threshold,
    conflict,
    contains,
    content_words,
    paraphrase_similarity,
)


def scored():
    return [(paraphrase_similarity(a, b), same) for a, b, same, _ in LABELLED_PAIRS]


def test_the_threshold_is_the_one_the_labelled_set_chooses():
    assert choose_threshold(scored()) == pytest.approx(SAME_FACT_THRESHOLD)


def test_no_pair_of_different_facts_in_the_labelled_set_passes_the_threshold():
    taken = [(a, b) for a, b, same, _ in LABELLED_PAIRS if not same and paraphrase_similarity(a, b) >= 0.9]
    assert taken == []


def test_the_rewordings_it_misses_are_the_synonym_and_the_passive_only():
    missed = [kind for a, b, same, kind in LABELLED_PAIRS if same and paraphrase_similarity(a, b) < 0.9]
    assert missed == ["synonym (a miss)", "passive (a miss)"]


def test_content_words_drop_articles_meta_talk_and_generic_nouns_and_meet_inflections():
    assert content_words("There is a red triangle on screen.") == ("red", "triangl")
    assert content_words("The shape on the screen is a triangle (visual, 0:03).") == ("triangl",)
    assert content_words("The man is waving.") == content_words("A man waves.") == ("man", "wav")


def test_a_rewording_is_the_same_fact():
    assert paraphrase_similarity("A yellow triangle is on screen.", "A yellow triangle appears.") == 1.0


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        ("83 is shown", "38 is shown", "numbers differ"),
        ("Two cars pass.", "Three cars pass.", "numbers differ"),
        ("a red triangle", "a blue triangle", "colours differ"),
        ('The word "cat" is displayed.', 'The word "hat" is displayed.', "quoted text differs"),
        ("The man is smiling.", "The man isn't smiling.", "negation differs"),
        ("The man hands the woman a cup.", "The woman hands the man a cup.", "roles swapped"),
    ],
)
def test_hard_negatives_are_refused_with_their_reason(a, b, why):
    assert (conflict(a, b), paraphrase_similarity(a, b)) == (why, 0.0)


def test_one_other_word_in_a_short_fact_falls_below_the_threshold():
    # {red, triangl} vs {red, squar}: Dice 2·1 / 4
    assert paraphrase_similarity("a red triangle", "a red square") == pytest.approx(0.5)


def test_a_combined_fact_contains_each_fact_it_combines_and_not_the_reverse():
    combined = "A yellow triangle is on screen and the background is black."
    assert contains(combined, "A yellow triangle appears.") and contains(combined, "The background is black.")
    assert not contains("A yellow triangle appears.", combined)
    assert not contains(combined, "The background is white.")


def test_texts_without_content_words_are_the_same_only_when_equal():
    assert paraphrase_similarity("It is.", "it is") == 1.0
    assert paraphrase_similarity("It is.", "There is.") == 0.0
    assert paraphrase_similarity("It is.", "A dog barks.") == 0.0


def test_choose_threshold_takes_the_middle_of_the_widest_gap_among_the_best():
    # same: 1.0, 0.9; different: 0.5, 0.0 — every cut between 0.5 and 0.9 is perfect; the gap is
    # 0.5 → 0.9, so its middle, 0.7
    assert choose_threshold([(1.0, True), (0.9, True), (0.5, False), (0.0, False)]) == pytest.approx(0.7)


def test_choose_threshold_weighs_precision_over_recall():
    # cuts at 0.4, 0.75, 0.85: at 0.4 both same pairs and one different one (P 2/3, R 1, F0.5 0.714);
    # at 0.75 one of each (P 1/2, R 1/2, F0.5 0.5); at 0.85 one same pair only (P 1, R 1/2, F0.5 0.833)
    pairs = [(0.9, True), (0.8, False), (0.7, True), (0.1, False)]
    assert choose_threshold(pairs) == pytest.approx(0.85)


def test_choose_threshold_needs_two_levels():
    with pytest.raises(ValueError, match="two distinct"):
        choose_threshold([(1.0, True), (1.0, False)])
