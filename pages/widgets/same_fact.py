"""The "Same fact?" question on the Disputes page: two annotators' wordings the matcher could neither
join nor keep apart (annotation/agreement/same_fact.py), the sentence and its cited segments, and
two buttons with their keys — Y "Same fact", N "Different facts" — plus U to undo the last answer.

An answer is a ruling written by `annotation.agreement.adjudication.adjudicate` in the button's callback,
before the rerun that derives gold again, so the next question (or, when none is left, the disputes)
is what the page shows next. The wordings and the sentence are shown as text, never as Markdown.
"""

from __future__ import annotations

import streamlit as st

from annotation.agreement.adjudication import adjudicate
from annotation.agreement.same_fact import SAME_TASK, SameFactQuestion
from pages.widgets import decisions, player
from pages.widgets.context import literal, show_text

NOTICE_KEY = "same_fact_notice"
ERROR_KEY = "same_fact_error"
ANSWERS = (("Same fact", "Y", True), ("Different facts", "N", False))


def _answer(store, who: str, question: SameFactQuestion, same: bool) -> None:
    try:
        adjudicate(
            store,
            who,
            question.response_id,
            question.unit,
            SAME_TASK,
            same,
            spent_ms=decisions.spent_ms(f"same|{question.key}"),
        )
    except (PermissionError, ValueError) as exc:
        st.session_state[ERROR_KEY] = str(exc)
        return
    st.session_state[NOTICE_KEY] = "Same fact" if same else "Different facts"


def _undo(store, who: str) -> None:
    # the last "Same fact?" answer, not whatever ruling came last
    undone = store.events.undo_last(who, task=SAME_TASK.as_ruling)
    st.session_state[NOTICE_KEY] = None if undone is None else "undone"


def same_fact_question(store, who: str, questions: list[SameFactQuestion], pad_s: float) -> None:
    """The first of the open questions, with its keys (module doc); `questions` is not empty."""
    question = questions[0]
    st.metric("Same fact? questions", len(questions))
    response = store.response(question.response_id)
    sentence = store.response_sentences(question.response_id)[question.sentence]
    st.subheader(f"Same fact? · response {literal(question.response_id)} · sentence {question.sentence + 1}")
    left = len(questions)
    st.caption(
        f"{left} question{'' if left == 1 else 's'} on wording before the disputes: do these two "
        "wordings state the same fact? Your answer is used for this pair from now on."
    )
    notice = st.session_state.pop(NOTICE_KEY, None)
    if notice == "undone":
        st.info("Your last answer was undone.", icon=":material/undo:")
    elif notice:
        st.success(f"Answered “{notice}”.", icon=":material/check:")
    error = st.session_state.pop(ERROR_KEY, None)
    if error:
        st.error("The answer was not recorded:")
        show_text(error)
    text_side, media_side = st.columns([3, 2], gap="large")
    with text_side:
        decisions.shown_at(f"same|{question.key}")
        st.markdown("**One annotator wrote**")
        show_text(question.text_a)
        st.markdown("**Another wrote**")
        show_text(question.text_b)
        st.markdown("**The sentence**")
        show_text(sentence.text)
        columns = st.columns(3)
        for column, (label, shortcut, same) in zip(columns, ANSWERS, strict=False):
            # the question is in the key: a click on a button left from the question before
            # must not answer this one
            column.button(
                label,
                key=f"same:{same}:{question.key}",
                shortcut=shortcut,
                width="stretch",
                on_click=_answer,
                args=(store, who, question, same),
            )
        columns[2].button(
            "Undo", key="same:undo", shortcut="U", width="stretch", on_click=_undo, args=(store, who)
        )
    with media_side:
        if not question.segments:
            st.caption("Neither wording cites anything; there is nothing to play.")
        cited = [sentence.citations[i] for i in question.segments]
        player.play_citations(
            store, response.video, cited, pad_s, with_sound=True, key=f"same:{question.key}"
        )
