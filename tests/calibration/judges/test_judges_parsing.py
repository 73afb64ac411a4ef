"""Reading judges' answers: tolerant of wrapping, never turning a non-answer into "no"."""

from __future__ import annotations

from calibration.judges.parsing import parse_decomposition, parse_entailment, parse_verifiability


def test_answer_inside_a_code_fence_is_read():
    assert parse_entailment('```json\n{"entailed": true, "reason": "seen"}\n```').value is True


def test_think_block_before_the_answer_is_ignored():
    text = '<think>maybe {"verifiable": true}? no.</think>\n{"verifiable": false, "reason": "opinion"}'
    answer = parse_verifiability(text)
    assert (answer.value, answer.reason) == (False, "opinion")


def test_answer_after_a_lone_closing_think_tag_is_read():
    assert parse_entailment('the parts show it {"entailed": false}</think>{"entailed": true}').value is True


def test_prose_around_the_json_object_is_tolerated():
    assert (
        parse_entailment('Sure! Here it is: {"entailed": false, "reason": "no bell"} Hope that helps.').value
        is False
    )


def test_answer_without_json_is_undetermined_not_no():
    answer = parse_entailment("No idea, the clip is too dark.")
    assert answer.value is None and "no JSON object" in answer.error


def test_non_boolean_value_is_undetermined():
    answer = parse_verifiability('{"verifiable": "partly"}')
    assert answer.value is None and "partly" in answer.error


def test_thinking_that_never_ends_gives_no_answer():
    assert parse_entailment('<think>{"entailed": true} let me check again').value is None


def test_yes_and_no_strings_are_read_as_booleans():
    assert parse_verifiability('{"verifiable": "yes"}').value is True
    assert parse_verifiability('{"verifiable": "No"}').value is False


def test_decomposition_keeps_text_and_valid_citation_indices():
    answer = parse_decomposition('{"facts": [{"text": "A man waves.", "citations": [1, 1, 0]}]}', 2)
    assert answer.value == [("A man waves.", [0, 1])]


def test_fact_with_no_usable_index_inherits_every_citation():
    answer = parse_decomposition('{"facts": [{"text": "A bell rings.", "citations": [7]}]}', 2)
    assert answer.value == [("A bell rings.", [0, 1])]


def test_citations_copied_into_a_fact_are_removed():
    answer = parse_decomposition('{"facts": [{"text": "A bell rings (audio, 0:02).", "citations": [0]}]}', 1)
    assert answer.value == [("A bell rings.", [0])]


def test_empty_fact_list_is_undetermined():
    assert parse_decomposition('{"facts": []}', 1).value is None
