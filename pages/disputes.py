"""Disputes: the units where the annotators disagree, lowest agreement first. Each shows what
every annotator said and how long they took (decisions under 2 s flagged), plays the cited
segments with the annotation view's player, and takes the adjudicator's ruling with an
optional reason. Unanimous units are accepted automatically unless an admin turns that off.
The gold set, with the provenance of every value, downloads as evaluation records or CSV.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import streamlit as st

from annotation.agreement.gold import RULES, gold_from_store, gold_settings, write_gold_csv
from annotation.agreement.reliability import STAGES
from annotation.formats.readers import write_records_jsonl
from pages.widgets import player, response_view, ruling
from pages.widgets.context import literal
from pages.widgets.frame import run_page
from pages.widgets.opened_response import DISPUTES_FILTER
from pages.widgets.ruling import ALL, STAGE_REQUEST

STAGE_KEY = "stage"  # also the URL query parameter (?stage=entailment_all), bound to the filter
RULE_NAMES = {
    "majority": "Majority — more than half of the annotators",
    "unanimity": "Unanimity — every annotator; the rest waits for a ruling",
}


# -- downloads: derived at click time, so they include the latest rulings ----------------------
def gold_jsonl(store) -> str:
    out = io.StringIO()
    write_records_jsonl(gold_from_store(store).records, out)
    return out.getvalue()


def gold_csv(store) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "gold.csv"
        write_gold_csv(gold_from_store(store).values, path)
        return path.read_bytes()


def downloads(store) -> None:
    left, middle = st.columns(2)
    left.download_button(
        "Gold records (JSONL)",
        lambda: gold_jsonl(store),
        file_name="gold.jsonl",
        mime="application/jsonl",
        key="download_gold_jsonl",
        icon=":material/download:",
        on_click="ignore",
        width="stretch",
    )
    middle.download_button(
        "Gold values (CSV)",
        lambda: gold_csv(store),
        file_name="gold.csv",
        mime="text/csv",
        key="download_gold_csv",
        icon=":material/table:",
        on_click="ignore",
        width="stretch",
    )
    st.caption(
        "Gold is derived from the current labels and rulings whenever it is read: staged "
        "campaigns, Calibrate and every export see a ruling as soon as it is made."
    )


# -- admin settings -----------------------------------------------------------------------------
def _save_setting(store, name: str, widget_key: str) -> None:
    store.set_setting(name, st.session_state[widget_key])


def gold_settings_panel(store) -> None:
    """The gold rule and auto-acceptance of unanimous units (admins only)."""
    try:
        rule, auto_accept = gold_settings(store)
    except ValueError:  # a bad stored rule (the page says so below): let the admin pick a good one
        rule, auto_accept = RULES[0], bool(store.get_setting("auto_accept_unanimous", True))
    with st.expander("Gold settings", icon=":material/settings:"):
        st.radio(
            "How the annotators' values become gold",
            RULES,
            index=RULES.index(rule),
            key="gold_rule_input",
            format_func=RULE_NAMES.get,
            on_change=_save_setting,
            args=(store, "gold_rule", "gold_rule_input"),
        )
        st.toggle(
            "Accept unanimous units automatically",
            value=auto_accept,
            key="auto_accept_input",
            help="Off: unanimous units too wait for an adjudicator's confirmation.",
            on_change=_save_setting,
            args=(store, "auto_accept_unanimous", "auto_accept_input"),
        )


# -- the list -----------------------------------------------------------------------------------
def overview_rows(shown) -> list[dict]:
    return [
        {
            "response": v.response_id,
            "sentence": v.sentence + 1,
            "question": v.question,
            "agreement": f"{v.agreement:.0%}",
            "values": ", ".join(
                f"{n}: {ruling.answer_words(v.question, a)}" for n, a in sorted(v.values.items())
            ),
            "under 2 s": ", ".join(v.fast_annotators),
            "status": "ruled" if v.ruling else "open",
        }
        for v in shown
    ]


def choose_dispute(shown):
    """The selected dispute; after a ruling takes one off the list, the next one at its place."""
    ids = [v.key for v in shown]
    if st.session_state.get("dispute_choice") not in ids:
        st.session_state["dispute_choice"] = ids[
            min(st.session_state.get("dispute_position", 0), len(ids) - 1)
        ]
    by_id = dict(zip(ids, shown, strict=True))
    chosen = st.selectbox(
        f"Dispute ({len(ids)} shown, lowest agreement first)",
        ids,
        key="dispute_choice",
        format_func=lambda i: ruling.describe(by_id[i]),
    )
    st.session_state["dispute_position"] = ids.index(chosen)
    return by_id[chosen], shown[ids.index(chosen) + 1] if ids.index(chosen) + 1 < len(ids) else None


def show_dispute(store, who: str, value, upcoming, pad_s: float) -> None:
    response = store.response(value.response_id)
    sentences = store.response_sentences(value.response_id)
    sentence = sentences[value.sentence]
    st.subheader(
        f"{ruling.STAGE_NAMES[value.stage]} · response {literal(value.response_id)} · sentence {value.sentence + 1}"
    )
    text_side, media_side = st.columns([3, 2], gap="large")
    with text_side:
        with st.expander("The whole response"):
            response_view.show_response_text(response, sentence)
        ruling.show_question(value, sentence)
        ruling.annotator_values(value, sentence)
        st.divider()
        ruling.ruling_controls(store, who, value, sentence)
    with media_side:
        response_view.show_question(response)
        ruling.play_segments(store, response, sentence, value, pad_s)
    if upcoming is not None:  # the next dispute's clips, cut while this one is ruled
        nxt = store.response(upcoming.response_id)
        cited = store.response_sentences(upcoming.response_id)[upcoming.sentence].citations
        player.prefetch(store, nxt.video, [cited[i] for i in upcoming.segments], pad_s)


def disputes(me: dict, store) -> None:
    st.title("Disputes")
    notice = st.session_state.pop(ruling.NOTICE_KEY, None)
    if notice:  # a toast: the person is scrolled down at the ruling buttons
        st.toast(notice, icon=":material/gavel:")
    if me["role"] == "admin":
        gold_settings_panel(store)
    try:
        gold = gold_from_store(store)  # once per rerun: rulings are written before the rerun
    except ValueError as exc:  # an unknown gold_rule setting
        st.error(f"{literal(exc)}. An admin sets the rule under Gold settings on this page.")
        return
    every = gold.disputes()
    open_count = sum(1 for v in every if v.ruling is None)
    counts = gold.counts()
    for column, (label, number) in zip(
        st.columns(4),
        (
            ("Open disputes", open_count),
            ("Ruled", len(every) - open_count),
            ("Unanimous values", counts.get("unanimous", 0)),
            ("Majority values", counts.get("majority", 0)),
        ),
        strict=True,
    ):
        column.metric(label, number)
    downloads(store)

    stage_column, response_column, ruled_column = st.columns([2, 2, 1])
    if STAGE_REQUEST in st.session_state:  # a link from the agreement page
        st.session_state[STAGE_KEY] = st.session_state.pop(STAGE_REQUEST)
    stage = stage_column.selectbox(
        "Stage",
        (ALL, *STAGES),
        key=STAGE_KEY,
        bind="query-params",
        format_func=lambda s: "All stages" if s == ALL else ruling.STAGE_NAMES[s],
    )
    responses = sorted({v.response_id for v in every})
    requested = st.session_state.pop(DISPUTES_FILTER, None)  # a link from the calibrate page
    if requested in responses:
        st.session_state["dispute_response"] = requested
    response_id = response_column.selectbox(
        "Response",
        (ALL, *responses),
        key="dispute_response",
        format_func=lambda r: "All responses" if r == ALL else r,
    )
    with_ruled = ruled_column.toggle("Show ruled ones too", key="show_ruled")
    shown = [
        v
        for v in every
        if (with_ruled or v.ruling is None)
        and stage in (ALL, v.stage)
        and response_id in (ALL, v.response_id)
    ]
    if not shown:
        st.success(
            "No open disputes here."
            if every
            else "No disputes: the annotators agree everywhere (or nothing is labelled yet).",
            icon=":material/check_circle:",
        )
        return
    with st.expander(f"The list ({len(shown)})"):
        st.dataframe(overview_rows(shown), hide_index=True, width="stretch")
    value, upcoming = choose_dispute(shown)
    show_dispute(store, me["name"], value, upcoming, float(store.get_setting("pad_s", 1.0)))


run_page(disputes, "adjudicator", "admin", title="the disputes page")
