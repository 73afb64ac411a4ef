"""Spec tests for annotation/citations.py (PROTOCOL §1)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from annotation.protocol.citations import (
    Citation,
    find_citation_groups,
    format_citation,
    format_citation_group,
    format_time,
    parse_citation,
    parse_citation_group,
    parse_citations,
    parse_time,
    strip_citations,
    validate_against_duration,
    validate_against_media,
)

# --- times ------------------------------------------------------------------


def test_time_m_ss_is_minutes_and_seconds():
    assert parse_time("1:05") == 65.0


def test_time_mm_ss_is_minutes_and_seconds():
    assert parse_time("12:30") == 750.0


def test_time_h_mm_ss_counts_hours():
    assert parse_time("1:02:03") == 3723.0


def test_time_may_carry_fractional_seconds():
    assert parse_time("0:12.5") == 12.5


def test_time_with_seconds_of_sixty_or_more_is_refused():
    with pytest.raises(ValueError, match="below 60"):
        parse_time("0:75")


def test_time_with_one_digit_seconds_is_refused():
    with pytest.raises(ValueError, match="two digits"):
        parse_time("0:5")


def test_time_with_minutes_of_sixty_in_h_mm_ss_is_refused():
    with pytest.raises(ValueError, match="minutes must be below 60"):
        parse_time("1:60:00")


def test_bare_seconds_are_not_a_time():
    with pytest.raises(ValueError, match="not M:SS"):
        parse_time("75")


def test_format_time_writes_m_ss_below_an_hour():
    assert format_time(65.0) == "1:05"


def test_format_time_writes_h_mm_ss_from_an_hour_on():
    assert format_time(3723.0) == "1:02:03"


def test_format_time_keeps_milliseconds_without_trailing_zeros():
    assert format_time(12.5) == "0:12.5"


def test_format_time_rounds_to_the_millisecond_and_carries_into_the_second():
    assert format_time(12.9999) == "0:13"


# --- one citation -------------------------------------------------------------


def test_point_citation_has_equal_start_and_end():
    assert parse_citation("visual", "0:12") == Citation("visual", 12.0, 12.0, True, "visual, 0:12")


def test_span_citation_has_start_and_end():
    citation = parse_citation("audio", "0:12-0:14")
    assert (citation.modality, citation.start, citation.end, citation.valid) == ("audio", 12.0, 14.0, True)


def test_span_may_be_written_with_an_en_dash_and_spaces():
    citation = parse_citation("audio", "0:12 \u2013 0:14")
    assert (citation.start, citation.end, citation.valid) == (12.0, 14.0, True)


def test_span_may_be_written_with_an_em_dash():
    assert parse_citation("visual", "1:00\u20141:30").end == 90.0


@pytest.mark.parametrize("written", ["Visual", "VISUAL", "visual"])
def test_modality_case_does_not_matter(written):
    assert parse_citation(written, "0:01").modality == "visual"


@pytest.mark.parametrize("synonym", ["video", "vision", "image", "Video"])
def test_visual_synonyms_mean_visual(synonym):
    assert parse_citation(synonym, "0:01").modality == "visual"


@pytest.mark.parametrize("synonym", ["speech", "sound", "Audio", "SOUND"])
def test_audio_synonyms_mean_audio(synonym):
    assert parse_citation(synonym, "0:01").modality == "audio"


def test_seconds_of_sixty_or_more_make_the_citation_invalid_with_reason():
    citation = parse_citation("visual", "0:75")
    assert (citation.valid, citation.raw) == (False, "visual, 0:75")
    assert "below 60" in citation.reason


def test_end_before_start_makes_the_citation_invalid():
    citation = parse_citation("audio", "0:14-0:12")
    assert (citation.valid, citation.reason) == (False, "end before start")


def test_unknown_modality_makes_the_citation_invalid():
    citation = parse_citation("smell", "0:12")
    assert (citation.valid, citation.reason) == (False, "unknown modality 'smell'")


def test_span_with_three_ends_is_invalid():
    assert parse_citation("audio", "0:01-0:02-0:03").valid is False


def test_part_without_modality_and_time_is_invalid_not_dropped():
    citations = parse_citation_group("visual, 0:01; see above")
    assert [c.valid for c in citations] == [True, False]
    assert citations[1].raw == "see above"


# --- duration ------------------------------------------------------------------


def test_citation_past_the_duration_is_invalid():
    citation = validate_against_duration(parse_citation("visual", "0:11"), 10.0)
    assert citation.valid is False
    assert citation.reason == "beyond the media's duration (0:10)"


def test_citation_may_end_at_the_duration_rounded_up():
    # a 9.6 s clip may be cited to 0:10, the next whole second
    assert validate_against_duration(parse_citation("audio", "0:09-0:10"), 9.6).valid is True


def test_citation_one_second_past_the_rounded_up_duration_is_invalid():
    assert validate_against_duration(parse_citation("audio", "0:09-0:11"), 9.6).valid is False


def test_citation_exactly_at_a_whole_duration_is_valid():
    assert validate_against_duration(parse_citation("visual", "0:10"), 10.0).valid is True


def test_unknown_duration_leaves_the_citation_alone():
    citation = parse_citation("visual", "9:59")
    assert validate_against_duration(citation, None) is citation


def test_invalid_citation_keeps_its_first_reason_under_duration_check():
    citation = parse_citation("visual", "0:75")
    assert validate_against_duration(citation, 5.0) == citation


# --- groups in text ------------------------------------------------------------


def test_group_is_found_with_its_offsets():
    text = "He waves (visual, 0:12; audio, 0:12-0:14)."
    [group] = find_citation_groups(text)
    assert (group.start, group.end) == (9, 41)
    assert text[group.start : group.end] == "(visual, 0:12; audio, 0:12-0:14)"
    assert [(c.modality, c.start, c.end) for c in group.citations] == [
        ("visual", 12.0, 12.0),
        ("audio", 12.0, 14.0),
    ]


def test_adjacent_groups_are_found_separately():
    text = "He waves (visual, 0:01)(audio, 0:02) (audio, 0:03)."
    groups = find_citation_groups(text)
    assert [(g.start, g.end) for g in groups] == [(9, 23), (23, 36), (37, 50)]


def test_parse_citations_gives_all_citations_in_order_of_appearance():
    text = "A (audio, 0:05) then B (visual, 0:01; visual, 0:02)."
    assert [c.start for c in parse_citations(text)] == [5.0, 1.0, 2.0]


@pytest.mark.parametrize("prose", ["(e.g., red)", "(see above)", "(3 times)", "(Option A, 2)", "(0:12)"])
def test_prose_parentheses_are_not_citation_groups(prose):
    assert find_citation_groups(f"The ball is red {prose} and round.") == []


def test_group_with_a_malformed_time_is_still_a_group():
    [group] = find_citation_groups("He waves (visual, 0:75).")
    assert group.citations[0].valid is False


def test_group_with_an_unknown_modality_and_a_clock_time_is_a_group():
    [group] = find_citation_groups("It smells (smell, 0:12).")
    assert group.citations[0].reason == "unknown modality 'smell'"


def test_strip_citations_removes_groups_and_tidies_space_before_punctuation():
    assert strip_citations("He waves (visual, 0:12) and smiles (audio, 0:13) .") == "He waves and smiles."


def test_strip_citations_keeps_prose_parentheses():
    assert strip_citations("Red (see above) (visual, 0:01).") == "Red (see above)."


def test_format_citation_group_writes_the_protocol_form():
    citations = [Citation("visual", 12.0, 12.0), Citation("audio", 12.0, 14.0)]
    assert format_citation_group(citations) == "(visual, 0:12; audio, 0:12-0:14)"


def test_format_citation_writes_an_invalid_citation_as_it_was_written():
    assert format_citation(parse_citation("visual", "0:75")) == "visual, 0:75"


def test_format_citation_group_of_nothing_is_empty():
    assert format_citation_group([]) == ""


def test_citation_dict_round_trip_keeps_invalid_reason():
    citation = parse_citation("visual", "0:75")
    assert Citation.from_dict(citation.to_dict()) == citation


def test_valid_citation_from_text_equals_itself_after_a_dict_round_trip():
    [citation] = parse_citations("He waves (visual, 0:12).")  # raw 'visual, 0:12', which to_dict drops
    assert Citation.from_dict(citation.to_dict()) == citation


# --- properties ------------------------------------------------------------------

_TEN_HOURS_MS = 10 * 3600 * 1000
_millis = st.integers(min_value=0, max_value=_TEN_HOURS_MS)


@st.composite
def valid_citations(draw, whole_seconds: bool):
    first, second = sorted([draw(_millis), draw(_millis)])
    if whole_seconds:
        first, second = first // 1000 * 1000, second // 1000 * 1000
    if draw(st.booleans()):
        second = first
    modality = draw(st.sampled_from(["visual", "audio"]))
    return Citation(modality, first / 1000, second / 1000)


def _without_raw(citation: Citation) -> Citation:
    return Citation(citation.modality, citation.start, citation.end, citation.valid)


@given(valid_citations(whole_seconds=True))
def test_format_then_parse_gives_a_whole_second_citation_back(citation):
    [parsed] = parse_citations(format_citation_group([citation]))
    assert _without_raw(parsed) == citation


@given(valid_citations(whole_seconds=False))
@example(Citation("audio", 1611.803, 1611.803))  # 26*60 + 51.803 in floats is one ulp off
def test_format_then_parse_gives_a_millisecond_citation_back(citation):
    [parsed] = parse_citations(format_citation_group([citation]))
    assert _without_raw(parsed) == citation


@given(st.text())
def test_parsing_arbitrary_text_never_raises(text):
    for group in find_citation_groups(text):
        assert 0 <= group.start < group.end <= len(text)
    parse_citations(text)
    strip_citations(text)


@given(st.text(alphabet="(),;:-\u2013 0123456789visualdoVIS.\n", max_size=80))
def test_parsing_citation_like_text_never_raises(text):
    parse_citations(text)
    parse_citation_group(text)


# --- the grammar's edges (PROTOCOL §1, issue 12) -------------------------------------------


@pytest.mark.parametrize(
    ("group", "reason"),
    [
        ("(visual, \u0660:\u0660\u0663)", "has the digit '\u0660' (U+0660); write times with 0-9"),
        ("(visual, \uff10:\uff10\uff13)", "has the digit '\uff10' (U+FF10); write times with 0-9"),
        ("(audio, \u0966:\u0966\u0969)", "has the digit '\u0966' (U+0966); write times with 0-9"),
        ("(visual, -0:05)", "span '-0:05' has no start (a time cannot be negative)"),
        ("(visual, 0:03--0:01)", "span '0:03--0:01' has an empty end"),
        ("(visual, 1e3)", "time '1e3' is not M:SS, MM:SS or H:MM:SS"),
        ("(visual 0:05)", "no comma between the modality and the time in 'visual 0:05'"),
        ("(visual, )", "the time is missing"),
        ("(visual,\u200b0:05)", "time '<U+200B>0:05' holds an invisible character (U+200B)"),
        ("(audio, 0:01-0:02-0:03)", "span '0:01-0:02-0:03' has more than two ends"),
        ("(visual, 1234567:00)", "time '1234567:00' is too large"),
    ],
)
def test_a_citation_shaped_group_that_fails_is_kept_as_an_invalid_citation_with_a_readable_reason(
    group, reason
):
    [citation] = parse_citations(f"He waves {group}.")
    assert citation.valid is False
    assert reason in citation.reason


def test_a_time_with_thousands_of_digits_gets_a_reason_without_python_internals():
    [citation] = parse_citations("He waves (visual, " + "9" * 5000 + ":00).")
    assert citation.reason == f"time '{'9' * 28}…{'9' * 25}:00' is too large"


def test_seconds_with_more_than_nine_decimals_are_refused():
    with pytest.raises(ValueError, match="more than 9 decimal places"):
        parse_time("0:01.1234567890")


def test_non_ascii_digits_are_not_a_time():
    with pytest.raises(ValueError, match="write times with 0-9"):
        parse_time("\u0660:\u0660\u0663")


def test_underscores_in_numbers_are_not_a_time():
    with pytest.raises(ValueError, match="not M:SS"):
        parse_time("1_0:00")


def test_a_group_with_a_citation_and_prose_keeps_the_prose_as_an_invalid_citation():
    [group] = find_citation_groups("He waves (visual, 0:01; see above).")
    assert [c.valid for c in group.citations] == [True, False]


def test_a_trailing_semicolon_adds_no_citation():
    [group] = find_citation_groups("He waves (visual, 0:01;).")
    assert [c.start for c in group.citations] == [1.0]


@pytest.mark.parametrize("prose", ["(video games)", "(sound, as expected)", "(image of a cat)", "(audio)"])
def test_a_modality_word_starting_prose_does_not_make_a_citation_group(prose):
    assert find_citation_groups(f"They talk {prose} a lot.") == []


def test_an_invisible_character_before_the_modality_still_makes_a_citation_group():
    [group] = find_citation_groups("He waves (\u200bvisual, 0:05).")
    assert group.citations[0].reason == "unknown modality '<U+200B>visual'"


def test_an_unclosed_group_cites_nothing_and_the_group_after_it_is_found():
    text = "He waves (visual, 0:01 and smiles (audio, 0:02)."
    [group] = find_citation_groups(text)
    assert text[group.start : group.end] == "(audio, 0:02)"


# --- the media's tracks ---------------------------------------------------------------------


def test_an_audio_citation_of_media_without_sound_is_invalid():
    citation = validate_against_media(parse_citation("audio", "0:02"), 6.0, has_audio=False, has_video=True)
    assert (citation.valid, citation.reason, citation.raw) == (
        False,
        "the media has no audio track",
        "audio, 0:02",
    )


def test_a_visual_citation_of_sound_only_media_is_invalid():
    citation = validate_against_media(parse_citation("visual", "0:02"), 6.0, has_audio=True, has_video=False)
    assert citation.reason == "the media has no video track"


def test_unknown_tracks_check_nothing():
    assert validate_against_media(parse_citation("audio", "0:02"), 6.0).valid is True


def test_a_citation_beyond_the_duration_keeps_that_reason_whatever_the_tracks():
    citation = validate_against_media(parse_citation("audio", "0:09"), 6.0, has_audio=False)
    assert citation.reason.startswith("beyond the media's duration")
