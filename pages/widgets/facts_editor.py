"""Stage 2: an editable list of atomic facts for one sentence — edit, add, delete, reorder,
and tick each fact's citations. The draft lives in session state until the person confirms
it; confirming is the decision that goes to the event log."""

from __future__ import annotations

import streamlit as st

from annotation.protocol.records import Sentence
from annotation.work.session import check_fact_list
from pages.widgets.context import literal
from pages.widgets.response_view import chip_label

GUIDANCE = (
    "One checkable claim per fact. Make each fact stand on its own: replace pronouns with "
    "what they refer to in *earlier* sentences, and drop meta-talk such as “the video "
    "shows”. Tick only the citations that belong to the fact."
)


def _text_key(draft_key: str, row_id: int) -> str:
    return f"{draft_key}:text:{row_id}"


def _cite_key(draft_key: str, row_id: int, citation: int) -> str:
    return f"{draft_key}:cite:{row_id}:{citation}"


def start_draft(draft_key: str, proposal: list[dict]) -> None:
    """Put a proposal in session state as the draft (once; an existing draft is kept)."""
    if draft_key in st.session_state:
        return
    rows = []
    for row_id, fact in enumerate(proposal):
        rows.append(row_id)
        st.session_state[_text_key(draft_key, row_id)] = fact["text"]
        for c in fact["citations"]:
            st.session_state[_cite_key(draft_key, row_id, c)] = True
    st.session_state[draft_key] = {"rows": rows, "next": len(rows)}


def draft_facts(draft_key: str, n_citations: int) -> list[dict]:
    """The draft as [{'text', 'citations'}] in its current order."""
    draft = st.session_state[draft_key]
    return [
        {
            "text": st.session_state.get(_text_key(draft_key, row), ""),
            "citations": [
                c for c in range(n_citations) if st.session_state.get(_cite_key(draft_key, row, c), False)
            ],
        }
        for row in draft["rows"]
    ]


def _move(draft_key: str, position: int, step: int) -> None:
    rows = st.session_state[draft_key]["rows"]
    other = position + step
    if 0 <= other < len(rows):
        rows[position], rows[other] = rows[other], rows[position]


def _delete(draft_key: str, position: int) -> None:
    st.session_state[draft_key]["rows"].pop(position)


def _add(draft_key: str, citations: list[int]) -> None:
    draft = st.session_state[draft_key]
    row_id = draft["next"]
    draft["next"] += 1
    draft["rows"].append(row_id)
    st.session_state[_text_key(draft_key, row_id)] = ""
    for c in citations:
        st.session_state[_cite_key(draft_key, row_id, c)] = True


def facts_editor(sentence: Sentence, draft_key: str, on_confirm) -> None:
    """Show the draft for `sentence`; `on_confirm(facts)` is called with the checked list."""
    st.caption(GUIDANCE)
    n = len(sentence.citations)
    rows = st.session_state[draft_key]["rows"]
    for position, row in enumerate(rows):
        with st.container(border=True):
            st.text_input(f"Fact {position + 1}", key=_text_key(draft_key, row))
            columns = st.columns([3] * max(n, 1) + [1, 1, 1])
            for c, citation in enumerate(sentence.citations):
                columns[c].checkbox(
                    literal(chip_label(citation)),  # an invalid citation shows the response's text
                    key=_cite_key(draft_key, row, c),
                    disabled=not citation.valid
                    and not st.session_state.get(_cite_key(draft_key, row, c), False),
                )
            tail = columns[-3:]
            tail[0].button(
                "↑",
                key=f"{draft_key}:up:{row}",
                on_click=_move,
                args=(draft_key, position, -1),
                disabled=position == 0,
                help="Move up",
            )
            tail[1].button(
                "↓",
                key=f"{draft_key}:down:{row}",
                on_click=_move,
                args=(draft_key, position, 1),
                disabled=position == len(rows) - 1,
                help="Move down",
            )
            tail[2].button(
                "✕",
                key=f"{draft_key}:delete:{row}",
                on_click=_delete,
                args=(draft_key, position),
                help="Delete this fact",
            )
    left, right = st.columns(2)
    left.button(
        "Add a fact",
        key=f"{draft_key}:add",
        icon=":material/add:",
        on_click=_add,
        args=(draft_key, sentence.valid_citation_indices),
    )
    # A callback, not `if st.button(...)`: callbacks run before the script, so a click that
    # arrives while the page is still drawing (a slow clip, a busy server) is never dropped.
    right.button(
        "Confirm facts",
        key=f"{draft_key}:confirm",
        type="primary",
        shortcut="Ctrl+Enter",
        on_click=_confirm,
        args=(draft_key, n, on_confirm),
    )
    problems = st.session_state.pop(_problems_key(draft_key), None)
    if problems:
        st.warning(problems)


def _problems_key(draft_key: str) -> str:
    return f"{draft_key}:problems"


def _confirm(draft_key: str, n_citations: int, on_confirm) -> None:
    facts = draft_facts(draft_key, n_citations)
    problems = check_fact_list(facts, n_citations)
    if problems:
        st.session_state[_problems_key(draft_key)] = "; ".join(problems).capitalize() + "."
    else:
        on_confirm(facts)
