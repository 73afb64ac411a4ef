"""Stage 2: an editable list of atomic facts for one sentence — edit, add, delete, reorder,
and tick each fact's citations. The draft lives in session state (and, through `on_edit`, in
the drafts table, so a reload restores it) until the person confirms it; confirming is the
decision that goes to the event log."""

from __future__ import annotations

import time

import streamlit as st

from annotation.protocol.fact_list import check_fact_list
from annotation.protocol.records import Sentence
from pages.widgets.context import literal
from pages.widgets.response_view import chip_label

GUIDANCE = (
    "One checkable claim per fact. Make each fact stand on its own: replace pronouns with "
    "what they refer to in earlier sentences, and drop meta-talk such as “the video "
    "shows”. Tick only the citations that belong to the fact."
)


# A fact's text reaches the server (and the saved draft) after this pause in typing.
TYPING_PAUSE = "500ms"


def _text_key(draft_key: str, row_id: int) -> str:
    return f"{draft_key}:text:{row_id}"


def _cite_key(draft_key: str, row_id: int, citation: int) -> str:
    return f"{draft_key}:cite:{row_id}:{citation}"


def start_draft(draft_key: str, proposal: list[dict]) -> None:
    """Put a proposal in session state as the draft (once; an existing draft is kept). The draft
    holds its rows' order and a copy of each row's text and ticks (`_hold_fields`)."""
    if draft_key in st.session_state:
        return
    facts = {
        row: {"text": f["text"], "citations": sorted(set(f["citations"]))} for row, f in enumerate(proposal)
    }
    st.session_state[draft_key] = {"rows": list(facts), "next": len(facts), "facts": facts}
    # What the draft starts from needs no saving: only edits reach `on_edit`.
    st.session_state[_saved_key(draft_key)] = [dict(fact) for fact in facts.values()]


def _hold_fields(draft_key: str, n_citations: int) -> None:
    """Keep the draft's copy and its fields in step, before the fields are drawn: what the person
    changed in a field goes into the copy; a field Streamlit dropped — it forgets the value of a
    field that a run does not draw (another question, an undo, another list to start from) — gets
    its value back from the copy."""
    draft = st.session_state[draft_key]
    for row in draft["rows"]:
        fact = draft["facts"].setdefault(row, {"text": "", "citations": []})
        text_key = _text_key(draft_key, row)
        if text_key in st.session_state:
            fact["text"] = st.session_state[text_key]
        else:
            st.session_state[text_key] = fact["text"]
        ticked = []
        for c in range(n_citations):
            cite_key = _cite_key(draft_key, row, c)
            if cite_key not in st.session_state:
                st.session_state[cite_key] = c in fact["citations"]
            if st.session_state[cite_key]:
                ticked.append(c)
        fact["citations"] = ticked


def draft_facts(draft_key: str, n_citations: int) -> list[dict]:
    """The draft as [{'text', 'citations'}] in its current order (a field's value, else the copy's)."""
    draft = st.session_state[draft_key]
    out = []
    for row in draft["rows"]:
        kept = draft["facts"].get(row, {"text": "", "citations": []})
        ticks = (
            st.session_state.get(_cite_key(draft_key, row, c), c in kept["citations"])
            for c in range(n_citations)
        )
        out.append(
            {
                "text": st.session_state.get(_text_key(draft_key, row), kept["text"]),
                "citations": [c for c, ticked in enumerate(ticks) if ticked],
            }
        )
    return out


def _move(draft_key: str, position: int, step: int) -> None:
    rows = st.session_state[draft_key]["rows"]
    other = position + step
    if 0 <= other < len(rows):
        rows[position], rows[other] = rows[other], rows[position]


def _delete(draft_key: str, position: int) -> None:
    draft = st.session_state[draft_key]
    draft["facts"].pop(draft["rows"].pop(position), None)


def _add(draft_key: str, citations: list[int]) -> None:
    draft = st.session_state[draft_key]
    row_id = draft["next"]
    draft["next"] += 1
    draft["rows"].append(row_id)
    draft["facts"][row_id] = {"text": "", "citations": list(citations)}


def facts_editor(
    sentence: Sentence, draft_key: str, on_confirm, *, on_edit=None, guidance: bool = True
) -> None:
    """Show the draft for `sentence`; `on_confirm(facts)` is called with the checked list, and
    `on_edit(facts)` (when given) with the draft whenever an edit changed it. A tick never goes
    to the server by itself: it travels with the next edit or click. The fact list is a
    fragment: a pause in typing or a click on Add, Up, Down or Remove reruns only the list, not
    the page with its players; Confirm (outside it) reruns the page once, for the next question.
    `guidance=False` leaves the guidance (`GUIDANCE`) for the caller to show, e.g. as a tooltip."""
    if guidance:
        st.caption(GUIDANCE)
    _fact_list(sentence, draft_key, on_edit)
    # A callback, not `if st.button(...)`: callbacks run before the script, so a click that
    # arrives while the page is still drawing (a slow clip, a busy server) is never dropped.
    st.button(
        "Confirm facts",
        key=f"{draft_key}:confirm",
        type="primary",
        shortcut="Ctrl+Enter",
        width="stretch",
        on_click=_confirm,
        args=(draft_key, len(sentence.citations), on_confirm),
    )
    problems = st.session_state.pop(_problems_key(draft_key), None)
    if problems:
        st.warning(problems)


@st.fragment
def _fact_list(sentence: Sentence, draft_key: str, on_edit) -> None:
    if draft_key not in st.session_state:
        return  # confirmed a moment ago (a field's own message asked for this rerun): nothing to save
    n = len(sentence.citations)
    _hold_fields(draft_key, n)
    rows = st.session_state[draft_key]["rows"]
    for position, row in enumerate(rows):
        _fact_row(sentence, draft_key, position, row, len(rows))
    st.button(
        "Add a fact", key=f"{draft_key}:add", on_click=_add, args=(draft_key, sentence.valid_citation_indices)
    )
    if on_edit is not None:
        facts = draft_facts(draft_key, n)
        if st.session_state.get(_saved_key(draft_key)) != facts:
            on_edit(facts)
            st.session_state[_saved_key(draft_key)] = facts
            st.session_state[_saved_at_key(draft_key)] = time.strftime("%H:%M:%S")
        if _saved_at_key(draft_key) in st.session_state:
            st.caption(f"Draft saved at {st.session_state[_saved_at_key(draft_key)]}.")


def _fact_row(sentence: Sentence, draft_key: str, position: int, row: int, n_rows: int) -> None:
    """One fact on one line: its text, a tick per citation, and move / remove (a horizontal
    container, not columns: half the elements to send; styles.css wraps it on a phone)."""
    line = st.container(horizontal=True, vertical_alignment="center", gap="small", key=f"fact_row_{position}")
    line.text_input(
        f"Fact {position + 1}",
        key=_text_key(draft_key, row),
        label_visibility="collapsed",
        placeholder=f"Fact {position + 1}",
        live=TYPING_PAUSE,
    )
    for c, citation in enumerate(sentence.citations):
        line.checkbox(
            # an invalid citation shows the response's text; never ticked for the person (it
            # supports nothing), but they may tick it for a fact that cites nothing else
            literal(chip_label(citation)),
            key=_cite_key(draft_key, row, c),
            on_change="ignore",  # a tick stays in the browser until the next edit or click
        )
    moves = (("Up", "up", -1, position == 0), ("Down", "down", 1, position == n_rows - 1))
    for label, name, step, disabled in moves:
        line.button(
            label,
            key=f"{draft_key}:{name}:{row}",
            on_click=_move,
            args=(draft_key, position, step),
            disabled=disabled,
            type="tertiary",
            help=f"Move fact {position + 1} {name}",
        )
    line.button(
        "Remove",
        key=f"{draft_key}:delete:{row}",
        on_click=_delete,
        args=(draft_key, position),
        type="tertiary",
        help=f"Remove fact {position + 1}",
    )


def _saved_key(draft_key: str) -> str:
    return f"{draft_key}:saved"


def _saved_at_key(draft_key: str) -> str:
    return f"{draft_key}:saved_at"


def _problems_key(draft_key: str) -> str:
    return f"{draft_key}:problems"


def _confirm(draft_key: str, n_citations: int, on_confirm) -> None:
    facts = draft_facts(draft_key, n_citations)
    problems = check_fact_list(facts, n_citations)
    if problems:
        st.session_state[_problems_key(draft_key)] = "; ".join(problems).capitalize() + "."
    else:
        on_confirm(facts)
        forget_draft(draft_key)


def forget_draft(draft_key: str) -> None:
    """Drop the draft from session state (it was confirmed): an undo starts it again from what
    the caller gives `start_draft`, not from widget values Streamlit may have dropped meanwhile."""
    st.session_state.pop(draft_key, None)
    rows = (f"{draft_key}:text:", f"{draft_key}:cite:")
    for key in [k for k in st.session_state if str(k).startswith(rows)]:
        del st.session_state[key]
    for key in (_saved_key(draft_key), _saved_at_key(draft_key)):
        st.session_state.pop(key, None)
