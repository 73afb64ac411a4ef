"""The response on screen: question and options, the text with the current sentence
highlighted in place, and the sentence's citations as chips. All response text is
escaped (it is untrusted model output), never handed over as raw HTML or Markdown."""

from __future__ import annotations

import re

import streamlit as st

from annotation.protocol.citations import Citation, format_citation
from annotation.protocol.records import Response, Sentence
from annotation.protocol.sentences import thinking_ranges
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


def show_context(response: Response, sentence: Sentence | None) -> None:
    """The question, its options and the whole response (current sentence marked), as one
    element: one message per page run instead of three."""
    parts = []
    if response.question:
        parts.append(f'<div class="murgat-question">{escaped(response.question)}</div>')
    if response.options:
        parts.append(
            f'<div class="murgat-options">{escaped(chr(10).join(option_lines(response.options)))}</div>'
        )
    start, end = (sentence.start, sentence.end) if sentence is not None else (None, None)
    parts.append(f'<div class="murgat-response">{highlighted_html(response.text, start, end)}</div>')
    st.html("".join(parts))


def option_lines(options: list[str]) -> list[str]:
    """Options lettered A, B, … unless they already carry their letter ('A. …', '(A) …')."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return [
        option if _LETTERED.match(option) or i >= len(letters) else f"{letters[i]}. {option}"
        for i, option in enumerate(options)
    ]


def highlighted_html(text: str, start: int | None, end: int | None) -> str:
    """The whole text escaped, with [start, end) wrapped in <mark> (offsets from the splitter)
    and each `<think>` block folded away in a <details> (open when it holds the mark)."""
    marked = start is not None and end is not None and 0 <= start <= end <= len(text)
    folds = thinking_ranges(text)
    cuts = sorted({0, len(text), *(p for fold in folds for p in fold), *((start, end) if marked else ())})
    html, open_fold = [], None
    for a, b in zip(cuts, cuts[1:], strict=False):
        fold = next((f for f in folds if f[0] <= a and b <= f[1]), None)
        if fold != open_fold:
            if open_fold is not None:
                html.append("</details>")
                if a < b and text[a] == "\n":
                    a += 1  # the fold already ends its line
            if fold is not None:
                holds_mark = marked and fold[0] <= start and end <= fold[1] and start < end
                html.append(
                    f'<details class="murgat-think"{" open" if holds_mark else ""}>'
                    "<summary>Thinking (folded)</summary>"
                )
            open_fold = fold
        piece = escaped(text[a:b])
        html.append(
            f'<mark class="murgat-current">{piece}</mark>' if marked and start <= a and b <= end else piece
        )
    if open_fold is not None:
        html.append("</details>")
    return "".join(html)


def show_response_text(response: Response, sentence: Sentence | None) -> None:
    """The whole response (no scrolling box), the current sentence marked, thinking folded."""
    start, end = (sentence.start, sentence.end) if sentence is not None else (None, None)
    st.html(f'<div class="murgat-response">{highlighted_html(response.text, start, end)}</div>')


def citation_chips(sentence: Sentence, key: str, playable: tuple[int, ...] = ()) -> int | None:
    """The sentence's citations as chips; returns the index of the one chosen for playback
    (None: play what the question is about). Invalid citations are listed, not selectable; with
    fewer than two valid citations there is nothing to choose between, and no chips."""
    if not sentence.citations:
        st.caption("This sentence cites nothing.")
        return None
    # one chip per distinct segment ("visual, 0:05; video, 0:05" is one moment, the record keeps both)
    valid = list({c: i for i, c in reversed(list(enumerate(sentence.citations))) if c.valid}.values())[::-1]
    for citation in sentence.citations:
        if not citation.valid:
            show_text(chip_label(citation), "murgat-invalid")
    if len(valid) < 2:
        return None
    return st.pills(
        "Play one citation alone",
        valid,
        key=key,
        selection_mode="single",
        format_func=lambda i: chip_label(sentence.citations[i]) + (" ●" if i in playable else ""),
        help="Choose a citation to play it alone; ● marks what the question is about.",
        label_visibility="collapsed",
    )
