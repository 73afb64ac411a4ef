"""Spec tests for annotation/sentences.py (PROTOCOL §2, stage 1). The stage-2 proposal has its own
tests in test_fact_proposals.py; the last property test here runs it through the re-export."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.protocol import records, sentences
from annotation.protocol.citations import find_citation_groups
from annotation.protocol.sentences import answer_letter, sentences_for_response, split_response
from annotation.work.proposals import rule_based_facts


def texts(response: str) -> list[str]:
    return [s.text for s in split_response(response).sentences]


# --- where sentences end ----------------------------------------------------------


def test_citation_after_period_belongs_to_its_sentence():
    assert texts("He waves. (visual, 0:03) Then he sits.") == ["He waves. (visual, 0:03)", "Then he sits."]


def test_citation_before_period_belongs_to_its_sentence():
    assert texts("He waves (visual, 0:03). Then he sits.") == ["He waves (visual, 0:03).", "Then he sits."]


def test_adjacent_groups_after_period_all_belong_to_its_sentence():
    assert texts("He waves. (visual, 0:03) (audio, 0:04) Then he sits.") == [
        "He waves. (visual, 0:03) (audio, 0:04)",
        "Then he sits.",
    ]


def test_citation_group_alone_on_the_next_line_joins_the_sentence_before():
    assert texts("He waves.\n(visual, 0:03)\nHe sits.") == ["He waves.\n(visual, 0:03)", "He sits."]


def test_group_alone_on_the_next_line_brings_its_citations_to_the_sentence_before():
    split = split_response("He waves (visual, 0:01).\n(audio, 0:02)\nHe sits (visual, 0:03).")
    assert [[c.start for c in s.citations] for s in split.sentences] == [[1.0, 2.0], [3.0]]


def test_sentence_carries_the_citations_inside_it_in_order():
    [first, second] = split_response(
        "He waves (visual, 0:03; audio, 0:04). He sits (visual, 0:09)."
    ).sentences
    assert [c.start for c in first.citations] == [3.0, 4.0]
    assert [c.start for c in second.citations] == [9.0]


def test_question_and_exclamation_marks_end_sentences():
    assert texts("Is he waving? Yes! He waves.") == ["Is he waving?", "Yes!", "He waves."]


def test_ellipsis_does_not_end_a_sentence():
    assert texts("He waits... Then he sits. She waits\u2026 Then she sits.") == [
        "He waits... Then he sits.",
        "She waits\u2026 Then she sits.",
    ]


def test_decimal_number_does_not_end_a_sentence():
    assert texts("The car moves at 3.5 m/s. It stops.") == ["The car moves at 3.5 m/s.", "It stops."]


def test_time_inside_text_does_not_end_a_sentence():
    assert texts("At 0:12 the man waves. He sits at 1:05:30.") == [
        "At 0:12 the man waves.",
        "He sits at 1:05:30.",
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        "Dr. Smith waves.",
        "Mr. Lee waves.",
        "Mrs. Day waves.",
        "Ms. Roe waves.",
        "Red vs. Blue play.",
        "Pets, e.g. Cats, sleep.",
        "Pets, i.e. Cats, sleep.",
        "He buys pears, etc. and leaves.",
        "It lasts approx. 5 minutes.",
        "See Fig. 2 for it.",
        "He lives on St. James Road.",
    ],
)
def test_abbreviations_do_not_end_a_sentence(sentence):
    assert texts(f"{sentence} He leaves.") == [sentence, "He leaves."]


def test_number_abbreviation_does_not_end_a_sentence_before_a_number():
    assert texts("He wears No. 5. He runs.") == ["He wears No. 5.", "He runs."]


def test_the_word_no_at_the_end_of_a_sentence_ends_it():
    assert texts("Is it raining? No. The sun shines.") == ["Is it raining?", "No.", "The sun shines."]


def test_initials_do_not_end_a_sentence():
    assert texts("J. K. Rowling speaks. George W. Bush waves.") == [
        "J. K. Rowling speaks.",
        "George W. Bush waves.",
    ]


def test_run_of_initials_stays_in_one_sentence():
    assert texts("A. B. C. D. E. waves. Then he sits.") == ["A. B. C. D. E. waves.", "Then he sits."]


def test_option_letter_at_the_end_of_a_sentence_ends_it():
    assert texts("So the answer is B. The man waves.") == ["So the answer is B.", "The man waves."]


def test_period_before_a_lowercase_word_does_not_end_a_sentence():
    assert texts("He lifts approx. two boxes.") == ["He lifts approx. two boxes."]


def test_quoted_speech_does_not_split_its_sentence():
    assert texts('He says "Stop. Now." and leaves.') == ['He says "Stop. Now." and leaves.']


def test_punctuation_inside_a_later_quote_of_the_line_does_not_split_its_sentence():
    assert texts('He says "Hi." and "Stop. Now." Then he runs.') == [
        'He says "Hi." and "Stop. Now."',
        "Then he runs.",
    ]


def test_curly_quote_closing_inside_straight_quotes_does_not_end_the_sentence():
    assert texts('He reads "She said \u201cGo.\u201d to me." Then he runs.') == [
        'He reads "She said \u201cGo.\u201d to me."',
        "Then he runs.",
    ]


def test_quote_ending_with_a_period_ends_the_sentence_before_a_capital():
    assert texts("She says \u201cGo.\u201d Then she runs.") == ["She says \u201cGo.\u201d", "Then she runs."]


def test_newline_splits_even_without_punctuation():
    assert texts("The man waves\nThe woman smiles") == ["The man waves", "The woman smiles"]


def test_bullet_items_are_separate_sentences_without_their_markers():
    assert texts("- The man waves.\n* The woman smiles.\n\u2022 A dog barks.") == [
        "The man waves.",
        "The woman smiles.",
        "A dog barks.",
    ]


def test_numbered_steps_are_separate_sentences_without_their_numbers():
    assert texts("1. The man waves.\n2) The woman smiles.") == ["The man waves.", "The woman smiles."]


def test_step_marker_is_not_a_sentence_by_itself():
    assert texts("Step 1: The man waves.\n**Step 2:** The woman smiles.\nStep 3:") == [
        "The man waves.",
        "The woman smiles.",
    ]


def test_numbered_step_after_a_sentence_on_the_same_line_loses_its_number():
    assert texts("The man waves. 2. The woman smiles.") == ["The man waves.", "The woman smiles."]


def test_markdown_bold_is_kept_in_the_text():
    assert texts("**Visual:** The man waves. **He sits.** Then he stands.") == [
        "**Visual:** The man waves.",
        "**He sits.**",
        "Then he stands.",
    ]


def test_line_without_words_is_not_a_sentence():
    assert texts("The man waves.\n---\n**\nHe sits.") == ["The man waves.", "He sits."]


# --- what is reasoning ---------------------------------------------------------------


def test_think_block_is_not_part_of_the_reasoning():
    assert texts("<think>Maybe B. Or C.</think>The man waves.") == ["The man waves."]


def test_text_before_a_lone_closing_think_tag_is_thinking():
    assert texts("Let me think. Maybe B.</think>\nThe man waves.") == ["The man waves."]


def test_unclosed_think_block_runs_to_the_end():
    assert texts("The man waves. <think>Maybe B.") == ["The man waves."]


def test_reasoning_marker_starts_the_reasoning():
    assert texts("Sure, here it is.\n**Reasoning:** The man waves.\nAnswer: B") == ["The man waves."]


def test_answer_line_is_not_a_sentence():
    assert texts("The man waves.\nAnswer: B") == ["The man waves."]


def test_text_after_the_answer_line_is_not_scored():
    assert texts("The man waves.\nAnswer: B\nThe woman smiles.") == ["The man waves."]


def test_answer_text_and_its_offset_are_extracted():
    response = "<think>x</think>The man waves.\n**Answer:** (B) The man\n"
    split = split_response(response)
    assert split.answer == "(B) The man"
    assert response[split.answer_start :].startswith("(B) The man")


def test_answer_after_the_last_sentence_on_the_same_line_is_found():
    split = split_response("The man waves. Answer: C")
    assert ([s.text for s in split.sentences], split.answer) == (["The man waves."], "C")


def test_response_without_answer_has_no_answer():
    split = split_response("The man waves.")
    assert (split.answer, split.answer_start) == (None, None)


def test_offsets_point_into_the_original_text_before_think_blocks_are_stripped():
    # 31 chars of thinking, a newline, 'Reasoning: ' (11) and '1. ' (3): the first sentence starts at 46
    response = (
        "<think>Hmm. Let me see.</think>\nReasoning: 1. He waves (visual, 0:01).\n- She sits.\nAnswer: A"
    )
    sentences = split_response(response).sentences
    assert [(s.start, s.end) for s in sentences] == [(46, 70), (73, 82)]
    assert all(response[s.start : s.end] == s.text for s in sentences)


# --- answer letters ----------------------------------------------------------------


def test_answer_letter_reads_the_plain_form():
    assert answer_letter("The man waves.\nAnswer: B") == "B"


def test_answer_letter_reads_a_parenthesised_letter():
    assert answer_letter("Answer: (B)") == "B"


def test_answer_letter_reads_a_bold_marker():
    assert answer_letter("**Answer:** B") == "B"


def test_answer_letter_reads_a_letter_followed_by_the_option_text():
    assert answer_letter("Answer: C. The man waves") == "C"


def test_answer_letter_reads_an_option_word():
    assert answer_letter("Answer: Option D") == "D"


def test_answer_letter_accepts_a_bare_letter():
    assert answer_letter("(b)") == "B"


def test_answer_letter_of_free_text_is_none():
    assert answer_letter("Answer: A man waves") is None


def test_answer_letter_without_a_marker_is_none():
    assert answer_letter("The man waves. B is right") is None


# --- records -----------------------------------------------------------------------


def test_sentences_for_response_gives_records_with_offsets_and_no_labels():
    [sentence] = sentences_for_response("He waves (visual, 0:03).")
    assert sentence.to_dict() == {
        "text": "He waves (visual, 0:03).",
        "verifiable": None,
        "citations": [{"modality": "visual", "start": 3.0, "end": 3.0}],
        "facts": [],
        "offsets": [0, 24],
    }


def test_sentences_for_response_marks_citations_past_the_duration_invalid():
    [sentence] = sentences_for_response("He waves (visual, 0:03; audio, 0:12).", duration_s=9.6)
    assert [c.valid for c in sentence.citations] == [True, False]


# --- long responses ------------------------------------------------------------------


def test_every_sentence_of_a_long_response_gets_its_own_citation():
    # 11 chars of 'Reasoning: ', then sentences of 29 chars: `A red square (visual, 0:0N).` and a space
    sentence_texts = [f"A red square (visual, 0:0{i % 10})." for i in range(5000)]
    split = split_response("Reasoning: " + " ".join(sentence_texts) + " Answer: A")
    assert [s.text for s in split.sentences] == sentence_texts
    assert [s.start for s in split.sentences] == [11 + 29 * i for i in range(5000)]
    assert [[c.start for c in s.citations] for s in split.sentences] == [[i % 10] for i in range(5000)]
    assert split.answer == "A"


class _CountedWalks(list):
    """The real citation groups of a text, counting how often something walks over all of them."""

    def __init__(self, groups):
        super().__init__(groups)
        self.walks = 0

    def __iter__(self):
        self.walks += 1
        return super().__iter__()


def test_citation_groups_are_walked_as_often_for_a_long_response_as_for_a_short_one(monkeypatch):
    # Walking all groups once per sentence made a 1 MB response take minutes to split.
    walked = []

    def counted_groups(text):
        walked.append(_CountedWalks(find_citation_groups(text)))
        return walked[-1]

    monkeypatch.setattr(sentences, "find_citation_groups", counted_groups)
    for count in (10, 1000):
        assert len(split_response("A red square (visual, 0:01). " * count).sentences) == count
    short_walks, long_walks = (groups.walks for groups in walked)
    assert long_walks == short_walks


# --- properties -------------------------------------------------------------------------

_response_alphabet = st.sampled_from(
    list("abAB .!?,;:\"'()-*\n\u2026\u201c\u201d01235")
    + ["<think>", "</think>", "Answer:", "Reasoning:", "(visual, 0:03)", "e.g.", "Dr.", "1. ", "No."]
)


@given(st.lists(_response_alphabet, max_size=60).map("".join))
def test_splitting_keeps_offsets_inside_the_text_and_increasing(response):
    split = split_response(response)
    previous_end = 0
    for sentence in split.sentences:
        assert previous_end <= sentence.start < sentence.end <= len(response)
        assert response[sentence.start : sentence.end] == sentence.text
        previous_end = sentence.end
    if split.answer is not None:
        assert response[split.answer_start :].startswith(split.answer)


@given(st.text(max_size=200))
def test_splitting_arbitrary_text_never_raises(response):
    for sentence in split_response(response).sentences:
        assert 0 <= sentence.start < sentence.end <= len(response)
        assert rule_based_facts(records.Sentence(text=sentence.text, citations=list(sentence.citations)))
