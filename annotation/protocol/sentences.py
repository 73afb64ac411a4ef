"""Split a model response into sentences with offsets into the original text (PROTOCOL §2).

What is scored is the reasoning: `<think>` blocks are dropped, a `Reasoning:`
marker starts it, the first `Answer:` line ends it (that line gives the answer;
what follows it is not scored, as in the reference code). Offsets always point
into the text as given, so a page can highlight `original[start:end]`.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from annotation.protocol import records
from annotation.protocol.citations import (
    Citation,
    CitationGroup,
    find_citation_groups,
    validate_against_media,
)


@dataclass(frozen=True)
class SentenceSpan:
    """One sentence: `text == original[start:end]`, citations in order of appearance."""

    text: str
    start: int
    end: int
    citations: tuple[Citation, ...]


@dataclass(frozen=True)
class SplitResponse:
    """The reasoning's sentences, and the answer text with its offset (None when absent)."""

    sentences: tuple[SentenceSpan, ...]
    answer: str | None
    answer_start: int | None


_THINK_TAG_RE = re.compile(r"<\s*(/?)\s*think\s*>", re.IGNORECASE)
_REASONING_RE = re.compile(r"^[ \t>#*_-]*reasoning[ \t*_]*:[ \t*_]*", re.IGNORECASE | re.MULTILINE)
_ANSWER_LINE_RE = re.compile(
    r"^[ \t>#*_-]*(?:final[ \t]+)?answer[ \t*_]*:[ \t*_]*", re.IGNORECASE | re.MULTILINE
)
# Fallback when no line starts with it: `... so it is B. Answer: B`.
_ANSWER_INLINE_RE = re.compile(
    r"(?<=[.!?)])[*_]*[ \t]+((?:\*\*|__)?(?:Final[ \t]+)?Answer(?:\*\*|__)?[ \t]*:[ \t*_]*)"
)
_LIST_MARKER_RE = re.compile(
    r"(?:[-*+\u2022\u2023\u25e6\u25aa]|\d{1,3}[.)]|\(\d{1,3}\)|#{1,6}"
    r"|(?:\*\*|__)?step[ \t]*\d{1,3}(?:\*\*|__)?[ \t]*[:.)](?:\*\*|__)?)(?=[ \t]|$)",
    re.IGNORECASE,
)

_ENDERS = ".!?\u2026"
_CLOSERS = "\"'\u201d\u2019)]*_"
# Never end a sentence ("Dr. Smith", "e.g. The", "Fig. 3"); `No.` only before a number. `etc.`
# is an ordinary word: before a lowercase word nothing ends anyway, before a capital it usually does.
_ABBREVIATIONS = {"e.g", "i.e", "dr", "mr", "mrs", "ms", "prof", "vs", "approx", "fig", "st", "cf", "al"}
_NOT_NAMES = {"option", "options", "choice", "choices", "answer"}


def split_response(text: str) -> SplitResponse:
    """Sentences of the response's reasoning, with offsets into `text`.

    Never raises: any string (also empty) gives a result; no answer marker
    gives `answer=None`.
    """
    visible = _visible_ranges(text)
    reasoning_start = 0
    marker = _first_match(_REASONING_RE, text, visible)
    if marker is not None:
        reasoning_start = marker[1]
    answer_at = _first_match(_ANSWER_LINE_RE, text, visible, after=reasoning_start) or _first_match(
        _ANSWER_INLINE_RE, text, visible, after=reasoning_start, group=1
    )
    reasoning_end = len(text) if answer_at is None else answer_at[0]
    if answer_at is None:  # `Answer: B` written before `Reasoning:`
        answer_at = _first_match(_ANSWER_LINE_RE, text, visible)
    answer, answer_start = (None, None) if answer_at is None else _answer_text(text, answer_at[1])

    groups = find_citation_groups(text)
    in_group = bytearray(len(text))
    for g in groups:
        in_group[g.start : g.end] = b"\x01" * (g.end - g.start)
    group_at = {g.start: g for g in groups}
    by_offset = _GroupsByOffset(groups)

    bounds: list[tuple[int, int]] = []
    for start, end in visible:
        start, end = max(start, reasoning_start), min(end, reasoning_end)
        for line_start, line_end in _lines(text, start, end, in_group):
            bounds.extend(_split_line(text, line_start, line_end, in_group, group_at))
    spans = [
        SentenceSpan(text[s:e], s, e, tuple(c for g in by_offset.within(s, e) for c in g.citations))
        for s, e in _tidy(text, bounds, by_offset)
    ]
    return SplitResponse(tuple(spans), answer, answer_start)


def sentences_for_response(
    text: str,
    duration_s: float | None = None,
    *,
    has_audio: bool | None = None,
    has_video: bool | None = None,
) -> list[records.Sentence]:
    """`split_response` as records: offsets set, citations checked against the media's
    duration and tracks (None: not checked; see `validate_against_media`), `verifiable` None
    and no facts yet."""
    return [
        records.Sentence(
            text=s.text,
            verifiable=None,
            citations=[
                validate_against_media(c, duration_s, has_audio=has_audio, has_video=has_video)
                for c in s.citations
            ],
            facts=[],
            start=s.start,
            end=s.end,
        )
        for s in split_response(text).sentences
    ]


def answer_letter(text: str) -> str | None:
    """The option letter a response answers with: `Answer: B`, `Answer: (B)`,
    `**Answer:** B`, `Answer: B. The man…`, `Answer: Option B` → 'B'.

    Text without an answer marker counts only when it is a bare letter (`B`, `(b)`);
    anything else (no marker, free-text answer) → None.
    """
    answer = split_response(text).answer
    if answer is None:
        bare = re.fullmatch(r"\s*[(\[]?([A-Za-z])[)\]]?\.?\s*", text)
        return bare.group(1).upper() if bare else None
    bare = re.fullmatch(r"[(\[]?([A-Za-z])[)\]]?\.?", answer)
    if bare:
        return bare.group(1).upper()
    found = re.match(r"[(\[]?([A-Z])(?:[)\]]|[.:](?:\s|$)|\s+[-\u2013\u2014]\s)", answer) or re.search(
        r"\b(?:option|choice|answer)\s+(?:is\s+)?[(\[]?([A-Z])\b", answer, re.IGNORECASE
    )
    return found.group(1).upper() if found else None


class _GroupsByOffset:
    """The response's citation groups, found by offset in time logarithmic in their number."""

    def __init__(self, groups: list[CitationGroup]):
        # Groups come left to right and never overlap, so their ends are in order as well.
        self.groups = groups
        self._starts = [g.start for g in groups]
        self._ends = [g.end for g in groups]

    def within(self, start: int, end: int) -> list[CitationGroup]:
        """The groups lying wholly inside [start, end), left to right."""
        first = bisect_left(self._starts, start)
        return self.groups[first : bisect_right(self._ends, end, lo=first)]


# --- where the reasoning is ------------------------------------------------


def thinking_ranges(text: str) -> list[tuple[int, int]]:
    """[start, end) of each `<think>…</think>` block of `text`, tags included (a view folds
    them away). Same rules as the split: an unopened `</think>` closes a block begun before
    the text, an unclosed `<think>` runs to the end."""
    hidden, pos = [], 0
    for start, end in _visible_ranges(text):
        if start > pos:
            hidden.append((pos, start))
        pos = end
    if pos < len(text):
        hidden.append((pos, len(text)))
    return hidden


def _visible_ranges(text: str) -> list[tuple[int, int]]:
    """`text` minus its thinking, as [start, end) ranges.

    A `</think>` with no opening tag means the chat template opened the block
    before the text began: everything up to it is thinking. A `<think>` never
    closed runs to the end.
    """
    hidden: list[tuple[int, int]] = []
    open_at = None
    for tag in _THINK_TAG_RE.finditer(text):
        if tag.group(1) != "/":
            open_at = tag.start() if open_at is None else open_at
        elif open_at is not None:
            hidden.append((open_at, tag.end()))
            open_at = None
        else:
            hidden = [(0, tag.end())]
    if open_at is not None:
        hidden.append((open_at, len(text)))
    visible, pos = [], 0
    for start, end in hidden:
        if start > pos:
            visible.append((pos, start))
        pos = max(pos, end)
    if pos < len(text):
        visible.append((pos, len(text)))
    return visible


def _first_match(
    pattern: re.Pattern, text: str, ranges: list[tuple[int, int]], after: int = 0, group: int = 0
) -> tuple[int, int] | None:
    """(start, end) of the first match lying in a visible range at or after `after`."""
    for start, end in ranges:
        start = max(start, after)
        if start >= end:
            continue
        # Search the slice, so `^` also matches right after a `</think>`.
        found = pattern.search(text[start:end])
        if found:
            return start + found.start(group), start + found.end(group)
    return None


def _answer_text(text: str, pos: int) -> tuple[str | None, int | None]:
    """The answer after a marker ending at `pos`: the rest of that line, else the next non-empty line."""
    for line in re.finditer(r"[^\n]*", text[pos:]):
        content = line.group().strip(" \t\r*_")
        if content:
            return content, pos + line.start() + line.group().index(content)
    return None, None


# --- where sentences end -----------------------------------------------------


def _lines(text: str, start: int, end: int, in_group: bytearray) -> list[tuple[int, int]]:
    """[start, end) cut at newlines (newlines inside a citation group do not cut)."""
    out, line_start = [], start
    for pos in range(start, end):
        if text[pos] == "\n" and not in_group[pos]:
            out.append((line_start, pos))
            line_start = pos + 1
    out.append((line_start, end))
    return [(s, e) for s, e in out if s < e]


def _quote_spans(text: str, start: int, end: int) -> list[list[tuple[int, int]]]:
    """Positions (open, close) of paired double quotes on one line, unpaired ones ignored: the
    straight pairs and the curly pairs, each a list left to right whose pairs never overlap."""
    straight = [i for i in range(start, end) if text[i] == '"']
    curly, pos = [], start
    while (opening := text.find("\u201c", pos, end)) >= 0:
        closing = text.find("\u201d", opening + 1, end)
        if closing < 0:
            break
        curly.append((opening, closing))
        pos = closing + 1
    return [list(zip(straight[0::2], straight[1::2], strict=False)), curly]


def _inside_quote(quotes: list[list[tuple[int, int]]], run_start: int, run_end: int) -> bool:
    """Is the punctuation run [run_start, run_end) inside quoted speech without closing it?"""
    for pairs in quotes:
        # Pairs of one kind do not overlap: only the last one opened before the run can hold it.
        last = bisect_left(pairs, run_start, key=lambda pair: pair[0]) - 1
        if last >= 0 and run_start < pairs[last][1] and run_end != pairs[last][1]:
            return True
    return False


def _split_line(
    text: str, start: int, end: int, in_group: bytearray, group_at: dict[int, CitationGroup]
) -> list[tuple[int, int]]:
    """Sentence bounds within one line; list markers (`1.`, `- `, `Step 2:`) are left out."""
    quotes = _quote_spans(text, start, end)
    out, pos = [], start
    while pos < end:
        while pos < end and text[pos].isspace():
            pos += 1
        while (marker := _LIST_MARKER_RE.match(text, pos, end)) and marker.end() > pos:
            pos = marker.end()
            while pos < end and text[pos].isspace():
                pos += 1
        if pos >= end:
            break
        sentence_end = _sentence_end(text, pos, end, in_group, group_at, quotes)
        out.append((pos, sentence_end))
        pos = sentence_end
    return out


def _sentence_end(
    text: str,
    start: int,
    end: int,
    in_group: bytearray,
    group_at: dict[int, CitationGroup],
    quotes: list[list[tuple[int, int]]],
) -> int:
    """End of the sentence starting at `start`: after its final punctuation, closing
    quotes/brackets/bold and any citation groups that follow; `end` if none."""
    pos = start
    while pos < end:
        if in_group[pos]:
            pos += 1
            continue
        if text[pos] not in _ENDERS:
            pos += 1
            continue
        run_end = pos
        while run_end < end and text[run_end] in _ENDERS:
            run_end += 1
        boundary = _boundary_after(text, start, pos, run_end, end, in_group, group_at, quotes)
        if boundary is not None:
            return boundary
        pos = run_end
    return end


def _boundary_after(
    text: str,
    start: int,
    run_start: int,
    run_end: int,
    end: int,
    in_group: bytearray,
    group_at: dict[int, CitationGroup],
    quotes: list[list[tuple[int, int]]],
) -> int | None:
    """Where the sentence ends if the punctuation run [run_start, run_end) ends it, else None."""
    run = text[run_start:run_end]
    if "\u2026" in run or run.count(".") >= 2:  # an ellipsis goes on
        return None
    if _inside_quote(quotes, run_start, run_end):
        return None  # punctuation inside quoted speech
    pos = run_end
    while pos < end and text[pos] in _CLOSERS and not in_group[pos]:
        pos += 1
    if pos < end and not text[pos].isspace() and pos not in group_at:
        return None  # 3.5, e.g.,
    sentence_end = pos
    pos = _skip_blanks(text, pos, end)
    if pos in group_at:  # `He waves. (visual, 0:03)`: the group belongs to this sentence
        while pos in group_at:
            sentence_end = pos = group_at[pos].end
            pos = _skip_blanks(text, pos, end)
        while sentence_end < end and text[sentence_end] in ".!?":
            sentence_end += 1
        pos = _skip_blanks(text, sentence_end, end)
    following = text[pos] if pos < end else ""
    if following.islower():
        return None  # `He says "Stop." and leaves.`, `approx. two`
    if run[0] == "." and _is_abbreviation(text, start, run_start, following):
        return None
    return sentence_end


def _skip_blanks(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos] in " \t\r":
        pos += 1
    return pos


def _is_abbreviation(text: str, start: int, period: int, following: str) -> bool:
    """Is the word before this period an abbreviation or an initial?"""
    word_start = _word_start(text, start, period)
    word = text[word_start:period].lstrip("([{\"'\u201c\u2018*_")
    lowered = word.lower()
    if lowered in _ABBREVIATIONS or re.fullmatch(r"(?:[a-z]\.)+[a-z]", lowered):
        return True
    if lowered == "no":
        return following.isdigit()
    if len(word) == 1 and word.isupper() and following.isupper():
        # An initial (`J. K. Rowling`, `George W. Bush`), not an option (`the answer is B. The…`).
        # The word before it; walked back to, not split out of the sentence (a long run of
        # initials would make that quadratic).
        previous_end = word_start
        while previous_end > start and text[previous_end - 1].isspace():
            previous_end -= 1
        if previous_end == start:
            return True
        previous = text[_word_start(text, start, previous_end) : previous_end].strip("\"'*_,")
        return bool(previous) and previous[0].isupper() and previous.lower() not in _NOT_NAMES
    return False


def _word_start(text: str, start: int, pos: int) -> int:
    """Where the word ending at `pos` begins: after the last white space before it, at most back to `start`."""
    while pos > start and not text[pos - 1].isspace():
        pos -= 1
    return pos


def _tidy(text: str, bounds: list[tuple[int, int]], groups: _GroupsByOffset) -> list[tuple[int, int]]:
    """Trim white space; drop pieces with neither words nor citations; a piece that is
    only citation groups (a group on the next line) joins the sentence before it."""
    out: list[tuple[int, int]] = []
    for start, end in bounds:
        while end > start and text[end - 1].isspace():
            end -= 1
        inside = groups.within(start, end)
        around = zip([start] + [g.end for g in inside], [g.start for g in inside] + [end], strict=True)
        words = "".join(text[a:b] for a, b in around)
        if any(ch.isalnum() for ch in words):
            out.append((start, end))
        elif inside and out:
            out[-1] = (out[-1][0], end)
        elif inside:
            out.append((start, end))
    return out
