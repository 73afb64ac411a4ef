"""annotation.agreement.paraphrase: the similarity and verdict that decide whether two wordings are
one fact, their thresholds chosen on the tuning half of tests/data/fact_pairs.jsonl, and the rules
that veto a join."""

from __future__ import annotations

import pytest
from paraphrase_pairs import LABELLED_PAIRS, fact_pairs

from annotation.agreement.paraphrase import (
    ASK,
    ASK_THRESHOLD,
    DIFFERENT,
    SAME,
    SAME_FACT_THRESHOLD,
    choose_thresholds,
    conflict,
    contains,
    content_words,
    misspelt_words,
    paraphrase_similarity,
    verdict,
)


def test_the_thresholds_are_the_ones_the_tuning_half_chooses():
    scored = [(paraphrase_similarity(r["a"], r["b"]), r["same"]) for r in fact_pairs("tune")]
    same, ask = choose_thresholds(scored)
    assert (same, ask) == (
        pytest.approx(SAME_FACT_THRESHOLD, abs=1e-3),
        pytest.approx(ASK_THRESHOLD, abs=1e-3),
    )


def test_the_labelled_set_is_split_once_into_two_halves_of_every_kind():
    tune, held = fact_pairs("tune"), fact_pairs("held-out")
    assert len(tune) + len(held) == len(fact_pairs()) >= 300
    assert {r["kind"] for r in tune} == {r["kind"] for r in held}


def test_no_near_miss_of_either_half_is_joined():
    joined = [
        (r["kind"], r["a"], r["b"])
        for r in fact_pairs()
        if not r["same"] and verdict(paraphrase_similarity(r["a"], r["b"])) == SAME
    ]
    assert joined == []


def test_no_near_miss_of_the_older_demo_world_set_is_joined():
    joined = [
        (a, b)
        for a, b, same, _ in LABELLED_PAIRS
        if not same and paraphrase_similarity(a, b) >= SAME_FACT_THRESHOLD
    ]
    assert joined == []


@pytest.mark.parametrize("split", ["tune", "held-out"])
def test_at_least_nine_in_ten_rewordings_of_each_half_are_joined(split):
    rows = [r for r in fact_pairs(split) if r["same"]]
    joined = sum(verdict(paraphrase_similarity(r["a"], r["b"])) == SAME for r in rows)
    assert joined / len(rows) >= 0.9


def test_content_words_drop_articles_meta_talk_and_generic_nouns_and_meet_inflections():
    assert content_words("There is a red triangle on screen.") == ("red", "triangl")
    assert content_words("The shape on the screen is a triangle (visual, 0:03).") == ("triangl",)
    assert content_words("The man is waving.") == content_words("A man waves.") == ("man", "wav")
    assert content_words("The video shows a man slicing bread.") == content_words("A man slices bread.")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The ball is kicked into the net by the player.", "The player kicks the ball into the net."),
        ("The goalie catches the ball.", "The goalkeeper caught the ball."),
        ("The singer taps the mic.", "The singer taps the microphone."),
        ("A van is parked on Main St.", "A van is parked on Main Street."),
        ("The scoreboard shows the time.", "The score board shows the time."),
        ("The woman wears a grey sweater.", "The woman wears a gray sweater."),
        ("A wite van is parked.", "A white van is parked."),
        ("The match starts.", "The game begins."),
    ],
)
def test_rewordings_are_the_same_fact(a, b):
    assert verdict(paraphrase_similarity(a, b)) == SAME


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        ("83 is shown", "38 is shown", "numbers differ"),
        ("Two cars pass.", "Three cars pass.", "numbers differ"),
        ("a red triangle", "a blue triangle", "colours differ"),
        ("A wite van is parked.", "A silver van is parked.", "colours differ"),
        ('The word "cat" is displayed.', 'The word "hat" is displayed.', "quoted text differs"),
        ("The man is smiling.", "The man isn't smiling.", "negation differs"),
        ("The crowd cheers before the goal.", "The crowd cheers after the goal.", "opposites"),
        ("The market opens on Monday.", "The market opens on Friday.", "times differ"),
        ("The man hands the woman a cup.", "The woman hands the man a cup.", "roles swapped"),
        ("The woman faces the students.", "The woman is faced by the students.", "roles swapped"),
    ],
)
def test_hard_negatives_are_refused_with_their_reason(a, b, why):
    assert (conflict(a, b), verdict(paraphrase_similarity(a, b))) == (why, DIFFERENT)


def test_a_part_is_not_the_whole():
    assert (
        paraphrase_similarity("The man pours oil into a frying pan.", "Man pours olive oil into frying pan.")
        == 0.0
    )
    assert (
        paraphrase_similarity("The man opens the door and a dog runs in.", "The man opens the door.") == 0.0
    )


def test_another_object_is_surely_different():
    assert (
        verdict(paraphrase_similarity("The chef chops the onions.", "The chef chops the carrots."))
        == DIFFERENT
    )


def test_the_verdict_has_three_answers_split_at_the_two_thresholds():
    assert verdict(SAME_FACT_THRESHOLD) == SAME
    assert verdict(ASK_THRESHOLD) == ASK
    assert verdict(ASK_THRESHOLD - 0.001) == DIFFERENT


def test_a_combined_fact_contains_each_fact_it_combines_and_not_the_reverse():
    combined = "A yellow triangle is on screen and the background is black."
    assert contains(combined, "A yellow triangle appears.") and contains(combined, "The background is black.")
    assert not contains("A yellow triangle appears.", combined)
    assert not contains(combined, "The background is white.")


def test_texts_without_content_words_are_the_same_only_when_equal():
    assert paraphrase_similarity("It is.", "it is") == 1.0
    assert paraphrase_similarity("It is.", "There is.") == 0.0
    assert paraphrase_similarity("It is.", "A dog barks.") == 0.0


def test_choose_thresholds_keeps_every_different_pair_below_the_ask_threshold():
    # different pairs at 0.0 and 0.2; same pairs at 0.4 and 1.0: ask between 0.2 and 0.4 (0.3); the
    # widest gap from 0.3 up is 0.4 → 1.0, so same at its middle, 0.7
    assert choose_thresholds([(1.0, True), (0.4, True), (0.2, False), (0.0, False)]) == pytest.approx(
        (0.7, 0.3)
    )


def test_choose_thresholds_refuses_a_different_pair_at_one():
    with pytest.raises(ValueError, match="no threshold"):
        choose_thresholds([(1.0, True), (1.0, False)])


def test_british_and_american_spellings_of_one_word_are_both_right():
    for british, american in (("favourite", "favorite"), ("programme", "program"), ("colour", "color")):
        a, b = f"The {british} is shown.", f"The {american} is shown."
        assert misspelt_words(a, [b]) == [] and misspelt_words(b, [a]) == []


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("IT IS CLEAR THAT a dog barks.", ("dog", "bark")),  # meta-talk in capitals
        ("We can SEE that the VIDEO shows a dog.", ("dog",)),
        ("A dog barks ON SCREEN.", ("dog", "bark")),
        ("A dog barks on ſcreen.", ("dog", "bark")),  # 'ſ' is an 's' to a case-blind pattern
        ("Nothing can be heard.", ("silent",)),
        ("She picks up the cup.", ("lift", "cup")),
        ("The man switches off the TV.", ("man", "switchof", "television")),
        ("He says thank you at 3 o clock.", ("thank", "3", "oclock")),
        ("The cup is on top of the table.", ("cup", "tabl")),
    ],
)
def test_meta_talk_and_set_phrases_are_read_in_any_case_and_spelling(text, words):
    # the patterns are tried only on texts holding a piece of their matches: each group still reads
    assert content_words(text) == words


def test_a_contracted_not_negates_whichever_apostrophe_it_is_written_with():
    assert conflict("The dog doesn't bark.", "The dog barks.") == "negation differs"
    assert conflict("The dog doesn’t bark.", "The dog barks.") == "negation differs"


def test_the_reasons_to_refuse_are_the_same_in_either_order():
    rows = fact_pairs()
    texts = sorted({t for r in rows for t in (r["a"], r["b"])})
    pairs = [(r["a"], r["b"]) for r in rows] + list(zip(texts, texts[1:] + texts[:1], strict=True))
    assert [conflict(a, b) for a, b in pairs] == [conflict(b, a) for a, b in pairs]
