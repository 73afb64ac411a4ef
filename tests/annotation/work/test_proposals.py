"""Spec tests for annotation/work/proposals.py: the rule-based stage-2 proposal of atomic facts."""

from __future__ import annotations

import pytest

from annotation.protocol import records
from annotation.protocol.citations import Citation, strip_citations
from annotation.protocol.sentences import sentences_for_response
from annotation.work.proposals import atomic_split, rule_based_facts


def sentence_of(text: str, duration_s: float | None = None) -> records.Sentence:
    [sentence] = sentences_for_response(text, duration_s)
    return sentence


def facts_of(text: str, duration_s: float | None = None) -> list[tuple[str, list[int]]]:
    return [(f.text, f.citations) for f in rule_based_facts(sentence_of(text, duration_s))]


def test_fact_text_has_no_citation_groups():
    assert facts_of("The man waves (visual, 0:03).") == [("The man waves.", [0])]


def test_facts_split_at_semicolons():
    assert facts_of("The man waves; the woman smiles (visual, 0:03).") == [
        ("The man waves.", [0]),
        ("The woman smiles.", [0]),
    ]


def test_facts_split_at_and_between_two_clauses():
    assert facts_of("The car stops and the driver exits (visual, 0:03; audio, 0:04).") == [
        ("The car stops.", [0, 1]),  # neither clause names a modality: both keep every citation
        ("The driver exits.", [0, 1]),
    ]


def test_facts_split_at_comma_and_between_two_clauses():
    assert facts_of("He picks up the cup, and she drinks (visual, 0:03).") == [
        ("He picks up the cup.", [0]),
        ("She drinks.", [0]),
    ]


def test_and_joining_two_subjects_does_not_split():
    assert facts_of("The dogs and the cats are sleeping (visual, 0:03).") == [
        ("The dogs and the cats are sleeping.", [0])
    ]


def test_and_in_a_list_does_not_split():
    assert facts_of("He holds red, green, and blue balls (visual, 0:03).") == [
        ("He holds red, green, and blue balls.", [0])
    ]


def test_fact_gets_only_the_valid_citations_of_the_sentence():
    assert facts_of("The man waves (visual, 0:03; visual, 0:75; audio, 0:20).", duration_s=10.0) == [
        ("The man waves.", [0])
    ]


def test_clause_followed_by_a_group_inside_the_sentence_gets_that_group():
    assert facts_of("The man waves (visual, 0:01) and the woman smiles (visual, 0:05).") == [
        ("The man waves.", [0]),
        ("The woman smiles.", [1]),
    ]


def test_clause_without_a_group_gets_the_next_group_when_groups_are_inside():
    assert facts_of("The man waves (visual, 0:01); the woman sits and the dog barks (audio, 0:05).") == [
        ("The man waves.", [0]),
        ("The woman sits.", [1]),
        ("The dog barks.", [1]),
    ]


def test_clause_after_the_last_inner_group_gets_all_valid_citations():
    assert facts_of("The man waves (visual, 0:01); the woman smiles.") == [
        ("The man waves.", [0]),
        ("The woman smiles.", [0]),
    ]


def test_meta_talk_the_video_shows_that_is_removed():
    assert facts_of("The video shows that the man waves (visual, 0:01).") == [("The man waves.", [0])]


def test_meta_talk_in_the_audio_is_removed():
    assert facts_of("In the audio, a dog barks (audio, 0:01).") == [("A dog barks.", [0])]


def test_meta_talk_we_can_see_before_a_noun_phrase_becomes_is_visible():
    assert facts_of("We can see a red car (visual, 0:01).") == [("A red car is visible.", [0])]


def test_meta_talk_is_removed_before_deciding_where_clauses_are():
    assert facts_of("In the audio, a dog barks and a man shouts (audio, 0:01).") == [
        ("A dog barks.", [0]),
        ("A man shouts.", [0]),
    ]


def test_fact_loses_markdown_bold():
    assert facts_of("**The man waves** (visual, 0:01).") == [("The man waves.", [0])]


def test_sentence_of_only_meta_talk_still_gives_one_fact():
    assert len(rule_based_facts(records.Sentence(text="We can see that."))) == 1


def test_sentence_of_only_a_citation_still_gives_one_fact():
    sentence = records.Sentence(text="(visual, 0:01)", citations=[Citation("visual", 1.0, 1.0)])
    assert [f.citations for f in rule_based_facts(sentence)] == [[0]]


def test_empty_sentence_gives_no_facts():
    assert rule_based_facts(records.Sentence(text="  ")) == []


# The test set of issue 14: coordinated observations are split, each fact with its own citations;
# coordinated words that are not observations of their own stay together. Expectations by hand.
SPLITS = [
    # two clauses
    (
        "The number 83 is displayed and a square is on screen (visual, 0:05).",
        [("The number 83 is displayed.", [0]), ("A square is on screen.", [0])],
    ),
    (
        "A white square is on screen and the audio is silent (visual, 0:05; audio, 0:04).",
        [("A white square is on screen.", [0]), ("The audio is silent.", [1])],
    ),
    (
        "A white square is visible (visual, 0:05) while the audio is silent (audio, 0:04).",
        [("A white square is visible.", [0]), ("The audio is silent.", [1])],
    ),
    (
        "A red circle is visible while a high-pitched tone plays (visual, 0:03; audio, 0:03).",
        [("A red circle is visible.", [0]), ("A high-pitched tone plays.", [1])],
    ),
    (
        "The man waves; the woman smiles (visual, 0:03).",
        [("The man waves.", [0]), ("The woman smiles.", [0])],
    ),
    (
        "He picks up the cup, and she drinks (visual, 0:03).",
        [("He picks up the cup.", [0]), ("She drinks.", [0])],
    ),
    (
        "The square is red but the circle is blue (visual, 0:02).",
        [("The square is red.", [0]), ("The circle is blue.", [0])],
    ),
    ("A dog barks and a man shouts (audio, 0:01).", [("A dog barks.", [0]), ("A man shouts.", [0])]),
    (
        "The word FOX is written on screen and a voice says hello (visual, 0:07; audio, 0:07).",
        [("The word FOX is written on screen.", [0]), ("A voice says hello.", [1])],
    ),
    (
        "A burst of noise is heard and the screen turns black (audio, 0:06; visual, 0:06).",
        [("A burst of noise is heard.", [0]), ("The screen turns black.", [1])],
    ),
    (
        "The man waves (visual, 0:01) and the woman smiles (visual, 0:05).",
        [("The man waves.", [0]), ("The woman smiles.", [1])],
    ),
    (
        "The light blinks whereas the speaker stays quiet (visual, 0:02; audio, 0:02).",
        [("The light blinks.", [0]), ("The speaker stays quiet.", [1])],
    ),
    (
        "The video shows that a man waves and a dog barks (visual, 0:01; audio, 0:01).",
        [("A man waves.", [0]), ("A dog barks.", [1])],
    ),
    # two predicates of one subject
    ("The man waves and smiles (visual, 0:03).", [("The man waves.", [0]), ("The man smiles.", [0])]),
    (
        "The screen flashes red and turns blue (visual, 0:02).",
        [("The screen flashes red.", [0]), ("The screen turns blue.", [0])],
    ),
    (
        "He opens the door and walks out (visual, 0:03).",
        [("He opens the door.", [0]), ("He walks out.", [0])],
    ),
    (
        "The dog barked and jumped (visual, 0:01; audio, 0:01).",
        [("The dog barked.", [1]), ("The dog jumped.", [0])],
    ),
    (
        "A woman picks up the phone and then speaks (visual, 0:04; audio, 0:05).",
        [("A woman picks up the phone.", [0]), ("A woman speaks.", [1])],
    ),
    (
        "The man waves and smiles and nods (visual, 0:01).",
        [("The man waves.", [0]), ("The man smiles.", [0]), ("The man nods.", [0])],
    ),
    # meta-talk before a bare noun phrase
    ("The video shows the number 83 (visual, 0:15).", [("The number 83 is shown.", [0])]),
    ("We can hear a high-pitched tone (audio, 0:02).", [("A high-pitched tone is heard.", [0])]),
    ("The video shows cats and dogs (visual, 0:03).", [("Cats and dogs are shown.", [0])]),
]
KEPT_WHOLE = [
    "A zebra with black and white stripes walks by (visual, 0:03).",
    "The tone lasts between 3 and 5 seconds (audio, 0:02).",
    "The dogs and the cats are sleeping (visual, 0:03).",
    "He holds red, green, and blue balls (visual, 0:03).",
    "The pendulum swings back and forth (visual, 0:04).",
    "Rock and roll music plays (audio, 0:10).",
    "The numbers 3 and 5 appear on screen (visual, 0:06).",
    "She picks up the keys and leaves (visual, 0:03).",
    "Salt and pepper shakers stand on the table (visual, 0:08).",
    "A man in black and white clothes waves (visual, 0:09).",
    "The ball moves up and down (visual, 0:02).",
    "A red triangle appears on a black background (visual, 0:08).",
]


@pytest.mark.parametrize(("text", "expected"), SPLITS, ids=[t for t, _ in SPLITS])
def test_coordinated_observations_are_split_each_with_its_own_citations(text, expected):
    assert facts_of(text, duration_s=16.0) == expected


@pytest.mark.parametrize("text", KEPT_WHOLE)
def test_coordinated_words_that_are_not_observations_are_not_split(text):
    assert facts_of(text, duration_s=16.0) == [(strip_citations(text), [0])]


def test_the_test_set_has_thirty_sentences_or_more():
    assert len(SPLITS) + len(KEPT_WHOLE) >= 30


def test_a_judges_merged_fact_is_split_by_the_modality_each_part_names():
    sentence = sentence_of(
        "A white square is visible (visual, 0:05) while the audio is silent (audio, 0:04)."
    )
    merged = records.Fact("A white square is on screen and the audio is silent.", [0, 1])
    assert [(f.text, f.citations) for f in atomic_split(merged, sentence.citations)] == [
        ("A white square is on screen.", [0]),
        ("The audio is silent.", [1]),
    ]


def test_a_judges_atomic_fact_is_kept_as_it_is():
    sentence = sentence_of("The number 83 appears next to a square (visual, 0:13).")
    fact = records.Fact("The number 83 appears next to a square.", [0])
    assert atomic_split(fact, sentence.citations) == [fact]
