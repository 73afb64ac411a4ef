"""The response on screen: question and options, the text with the current sentence
highlighted in place, and the sentence's citations as chips. All response text is
escaped (it is untrusted model output), never handed over as raw HTML or Markdown."""

from __future__ import annotations

import re

import streamlit as st

from annotation.protocol.citations import Citation, format_citation
from annotation.protocol.records import Response, Sentence
from pages.widgets.context import escaped, show_text

_LETTERED = re.compile(r"^\s*\(?[A-Z][.):]\s")


def chip_label(citation: Citation) -> str:
    """'visual 0:12' / 'audio 0:12-0:14'; an invalid citation shows what was written and why."""
    if not citation.valid:
        return f"⚠ {citation.raw or citation.modality} (invalid: {citation.reason})"
    return format_citation(citation).strip("()").replace(",", "")


def show_question(response: Response) -> None:
    if response.question:
        show_text(response.question, "murgat-question")
    if response.options:
        show_text("\n".join(option_lines(response.options)), "murgat-options")


def option_lines(options: list[str]) -> list[str]:
    """Options lettered A, B, … unless they already carry their letter ('A. …', '(A) …')."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return [
        option if _LETTERED.match(option) or i >= len(letters) else f"{letters[i]}. {option}"
        for i, option in enumerate(options)
    ]


def highlighted_html(text: str, start: int | None, end: int | None) -> str:
    """The whole text escaped, with [start, end) wrapped in <mark> (offsets from the splitter)."""
    if start is None or end is None or not 0 <= start <= end <= len(text):
        return escaped(text)
    return (
        escaped(text[:start])
        + '<mark class="murgat-current">'
        + escaped(text[start:end])
        + "</mark>"
        + escaped(text[end:])
    )


def show_response_text(response: Response, sentence: Sentence | None) -> None:
    start, end = (sentence.start, sentence.end) if sentence is not None else (None, None)
    st.html(f'<div class="murgat-response">{highlighted_html(response.text, start, end)}</div>')


def citation_chips(sentence: Sentence, key: str, playable: tuple[int, ...] = ()) -> int | None:
    """The sentence's citations as chips; returns the index of the one chosen for playback
    (None: play what the question is about). Invalid citations are listed, not selectable."""
    if not sentence.citations:
        st.caption("This sentence cites nothing.")
        return None
    valid = [i for i, c in enumerate(sentence.citations) if c.valid]
    for citation in sentence.citations:
        if not citation.valid:
            show_text(chip_label(citation), "murgat-invalid")
    if not valid:
        return None
    return st.pills(
        "Citations",
        valid,
        key=key,
        selection_mode="single",
        format_func=lambda i: chip_label(sentence.citations[i]) + (" ●" if i in playable else ""),
        help="Choose a citation to play it alone; ● marks what the question is about.",
    )
