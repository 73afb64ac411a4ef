"""Spec tests for annotation/fact_proposals.py: the rule-based stage-2 proposal of atomic facts."""

from __future__ import annotations

from annotation.protocol import records
from annotation.protocol.citations import Citation
from annotation.protocol.sentences import sentences_for_response
from annotation.work.proposals import rule_based_facts


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
    assert facts_of("The man waves and the woman smiles (visual, 0:03; audio, 0:04).") == [
        ("The man waves.", [0, 1]),
        ("The woman smiles.", [0, 1]),
    ]


def test_facts_split_at_comma_and_between_two_clauses():
    assert facts_of("He picks up the cup, and she drinks (visual, 0:03).") == [
        ("He picks up the cup.", [0]),
        ("She drinks.", [0]),
    ]


def test_and_joining_a_second_verb_does_not_split():
    assert facts_of("The man waves and smiles (visual, 0:03).") == [("The man waves and smiles.", [0])]


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


def test_meta_talk_we_can_see_is_removed():
    assert facts_of("We can see a red car (visual, 0:01).") == [("A red car.", [0])]


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
