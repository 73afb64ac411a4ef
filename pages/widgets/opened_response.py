"""A response opened from the calibration page: its scores, its text, gold against the judge
sentence by sentence, its citations with the annotation view's player, and a link to its
disputes. A click on the scatter opens the response; the chooser below it does too."""

from __future__ import annotations

import streamlit as st

from pages.widgets import player, response_view
from pages.widgets.context import APP_DIR, current_state, literal

OPEN_KEY = "calibrate_response"
LAST_PICK_KEY = "calibrate_last_pick"
DISPUTES_FILTER = "disputes_response"  # read by the disputes page: the response to show
DISPUTES_PAGE = "pages/disputes.py"


def picked_from_scatter(picked: str | None, response_ids: list[str]) -> str | None:
    """The response to open: a new click on the scatter (`picked`) sets the chooser, which
    otherwise keeps the admin's own choice. Must run before anything reads the chooser."""
    if st.session_state.get(OPEN_KEY) not in response_ids:  # e.g. a response no longer in gold
        st.session_state[OPEN_KEY] = None
    if picked != st.session_state.get(LAST_PICK_KEY):
        st.session_state[LAST_PICK_KEY] = picked
        if picked in response_ids:
            st.session_state[OPEN_KEY] = picked
    return st.selectbox(
        "Open a response",
        [None, *response_ids],
        key=OPEN_KEY,
        format_func=lambda rid: "— click a point on the scatter, or choose —" if rid is None else rid,
    )


def _flag(value) -> str:
    return {True: "yes", False: "no"}.get(value, "—")


def sentence_rows(gold_record, judge_record) -> list[dict]:
    """Gold against the judge per sentence: verifiable, and how many facts each found."""
    rows = []
    judged = judge_record.sentences if judge_record is not None else []
    for i, sentence in enumerate(gold_record.sentences):
        mine = judged[i] if i < len(judged) and judged[i].text == sentence.text else None
        rows.append(
            {
                "#": i + 1,
                "gold: verifiable": _flag(sentence.verifiable),
                "judge: verifiable": _flag(mine.verifiable if mine else None),
                "gold facts": len(sentence.facts),
                "judge facts": len(mine.facts) if mine else None,
                "sentence": sentence.text,
            }
        )
    return rows


def open_response(
    store, response_id: str, inspected, scores: tuple[float | None, float | None], gold_record, judge_record
) -> None:
    """The opened response (see module doc); `scores` = (gold, judge) MURGAT-S in the
    inspected configuration's precision mode."""
    response = store.response(response_id)
    if response is None:
        st.warning(f"Response {literal(response_id)} is not in the project.")
        return
    st.subheader(f"Response {literal(response_id)}")
    gold_score, judge_score = scores
    left, middle, right = st.columns([1, 1, 2])
    left.metric("Gold MURGAT-S", "—" if gold_score is None else f"{gold_score:.3f}")
    middle.metric("Judge MURGAT-S", "—" if judge_score is None else f"{judge_score:.3f}", help=inspected.name)
    if (APP_DIR / DISPUTES_PAGE).exists() and right.button(
        "Open its disputes", key="open_disputes", icon=":material/gavel:"
    ):
        st.session_state[DISPUTES_FILTER] = response_id
        st.switch_page(DISPUTES_PAGE)
    text_side, media_side = st.columns([3, 2], gap="large")
    with text_side:
        response_view.show_question(response)
        response_view.show_response_text(response, None)
        st.dataframe(sentence_rows(gold_record, judge_record), hide_index=True, width="stretch")
    with media_side:
        sentences = store.response_sentences(response_id)
        cited = [(i, j) for i, s in enumerate(sentences) for j in range(len(s.citations))]
        if not cited:
            st.caption("This response cites nothing.")
            return
        i, j = st.selectbox(
            "Citation to play",
            cited,
            key=f"calibrate_citation:{response_id}",
            format_func=lambda ij: (
                f"sentence {ij[0] + 1} · " + response_view.chip_label(sentences[ij[0]].citations[ij[1]])
            ),
        )
        pad_s = current_state(store).settings.pad_s  # the revision's, read once for every page
        player.play_citation(store, response.video, sentences[i].citations[j], pad_s)
