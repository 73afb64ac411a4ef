"""Disputes: where the annotators disagree in substance, lowest agreement first — a rewording is not
a dispute (fact clusters, `annotation.agreement.clusters`); two wordings the matcher is unsure of
are a "Same fact?" question, counted apart and asked first (Y/N; `pages.widgets.same_fact`). A click on a row of the list opens a
dispute: every annotator's wording and value side by side with their time (decisions under 2 s
flagged), the cited segments with the annotation view's player and sound view, and the ruling
buttons, each with its key. After a ruling the next dispute opens in its place, scrolled into view.
Unanimous units are accepted automatically unless an admin turns that off. The list can keep only
the disputes that need a ruling (no majority settles them). The gold set, with the
provenance of every value, downloads as evaluation records or CSV. The URL holds the stage filter
by its stable id (?stage=s3-all) and the response filter by the response id.
"""

from __future__ import annotations

import hashlib
import io
import tempfile
from pathlib import Path

import streamlit as st

from annotation.agreement.gold import RULES, write_gold_csv
from annotation.agreement.same_fact import open_questions, wording_only
from annotation.formats.readers import write_records_jsonl
from annotation.state import ProjectSettings
from pages.widgets import player, response_view, ruling
from pages.widgets.context import current_state, literal, show_text
from pages.widgets.frame import run_page
from pages.widgets.model_filter import choose_models, model_label
from pages.widgets.opened_response import DISPUTES_FILTER
from pages.widgets.ruling import ALL, STAGE_IDS, STAGE_NAMES, STAGE_REQUEST
from pages.widgets.same_fact import same_fact_question

STAGE_KEY = "stage"  # the stage filter; the URL holds it as ?stage=s3-all
RESPONSE_KEY = "dispute_response"  # the response filter; the URL holds it as ?response=…
OPEN_KEY = "dispute_open"  # the key (GoldValue.key) of the dispute on screen
POSITION_KEY = "dispute_position"  # its place in the list: where the next one opens after a ruling
RULE_NAMES = {
    "majority": "Majority — more than half of the annotators",
    "unanimity": "Unanimity — every annotator; the rest waits for a ruling",
}
# Scrolls the open dispute's header to the top of the view (below the top bar); written only on the
# run after a click on a row or a ruling, so the page stays put while one dispute is ruled or the
# list is filtered.
SCROLL_SCRIPT = (
    '<div id="murgat-open-dispute" data-dispute="{digest}" style="scroll-margin-top: 4.5rem"></div><script>'
    'document.getElementById("murgat-open-dispute").scrollIntoView({{block: "start"}});</script>'
)


# -- downloads: derived at click time, so they include the latest rulings ----------------------
def gold_jsonl(store) -> str:
    out = io.StringIO()
    write_records_jsonl(current_state(store).gold.records, out)
    return out.getvalue()


def gold_csv(store) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "gold.csv"
        write_gold_csv(current_state(store).gold.values, path)
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
        rule, auto_accept = ProjectSettings.of(store).gold
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
def overview_rows(shown, model_of: dict) -> list[dict]:
    """One row per dispute (with the response's model when the project knows models)."""
    with_models = any(model_of.values())
    return [
        {
            "response": v.response_id,
            **({"model": model_label(model_of.get(v.response_id))} if with_models else {}),
            "sentence": v.sentence + 1,
            "stage": STAGE_NAMES[v.stage],
            "question": v.question,
            "fact": v.fact or "",
            "agreement": f"{v.agreement:.0%}",
            "values": ", ".join(
                f"{n}: {ruling.answer_words(v.question, a)}" for n, a in sorted(v.values.items())
            ),
            "under 2 s": ", ".join(v.fast_annotators),
            "status": "ruled" if v.ruling else "open",
        }
        for v in shown
    ]


def _table_key(open_key: str, ids: list[str]) -> str:
    """The list's widget key: new whenever the list or the open dispute changes, so the row it shows
    selected is always the open one."""
    return "dispute_table:" + hashlib.sha1("|".join([open_key, *ids]).encode()).hexdigest()[:12]


def open_dispute(shown):
    """The dispute to show: the one clicked in the list, else the one open before, else — after a
    ruling took it off the list — the one now at its place. Returns (it, the one after it)."""
    ids = [v.key for v in shown]
    if st.session_state.get(OPEN_KEY) not in ids:
        st.session_state[OPEN_KEY] = ids[min(st.session_state.get(POSITION_KEY, 0), len(ids) - 1)]
    clicked = (st.session_state.get(_table_key(st.session_state[OPEN_KEY], ids)) or {}).get("selection", {})
    rows = [*clicked.get("rows", []), *(row for row, _column in clicked.get("cells", []))]
    # the open row stays selected beside a click on a cell: the other row is the one clicked
    other = [ids[row] for row in rows if 0 <= row < len(ids) and ids[row] != st.session_state[OPEN_KEY]]
    if other:
        st.session_state[OPEN_KEY] = other[0]
        st.session_state[ruling.SCROLL_KEY] = True
    position = ids.index(st.session_state[OPEN_KEY])
    st.session_state[POSITION_KEY] = position
    return shown[position], shown[position + 1] if position + 1 < len(shown) else None


def dispute_list(shown, chosen, model_of: dict) -> None:
    """The list, the open dispute's row selected; a click on a row opens that dispute."""
    ids = [v.key for v in shown]
    st.caption(f"{len(shown)} disputes, lowest agreement first — click a row to open it")
    st.dataframe(
        overview_rows(shown, model_of),
        hide_index=True,
        width="stretch",
        height=min(35 * (len(shown) + 1) + 3, 35 * 6 + 3),
        key=_table_key(chosen.key, ids),
        on_select="rerun",
        selection_mode=["single-row", "single-cell"],  # a click on any cell of a row opens it
        selection_default={"selection": {"rows": [ids.index(chosen.key)], "columns": []}},
    )


def show_dispute(store, who: str, value, upcoming, pad_s: float, notice: str | None) -> None:
    response = store.response(value.response_id)
    sentences = store.response_sentences(value.response_id)
    sentence = sentences[value.sentence]
    if st.session_state.pop(ruling.SCROLL_KEY, False):
        digest = hashlib.sha1(value.key.encode()).hexdigest()[:12]  # no user text in the script
        st.html(SCROLL_SCRIPT.format(digest=digest), unsafe_allow_javascript=True)
    st.subheader(
        f"{STAGE_NAMES[value.stage]} · response {literal(value.response_id)} · sentence {value.sentence + 1}"
    )
    text_side, media_side = st.columns([3, 2], gap="large")
    with text_side:
        if notice:  # inline, not a toast: a toast would cover the media of the next dispute
            st.success(notice, icon=":material/gavel:")
        ruling.show_question(value, sentence)
        ruling.annotator_values(value, sentence)
        ruling.ruling_controls(store, who, value, sentence)
        with st.expander("The whole response"):
            response_view.show_response_text(response, sentence)
    with media_side:
        ruling.play_segments(store, response, sentence, value, pad_s)
        response_view.show_question(response)
    if upcoming is not None:  # the next dispute's clips, cut while this one is ruled
        nxt = store.response(upcoming.response_id)
        cited = store.response_sentences(upcoming.response_id)[upcoming.sentence].citations
        player.prefetch(store, nxt.video, [cited[i] for i in upcoming.segments], pad_s)


def url_choice(where, label: str, options: tuple, key: str, param: str, format_func) -> str:
    """A selectbox whose choice the URL holds as the option itself (`?{param}=s3-all`), not its label
    (Streamlit's own binding writes the label): a session starts from the URL's value when it is an
    option, and every choice is written back."""
    if key not in st.session_state:
        requested = st.query_params.get(param)
        st.session_state[key] = requested if requested in options else options[0]
    elif st.session_state[key] not in options:  # e.g. a response whose disputes are all gone
        st.session_state[key] = options[0]
    chosen = where.selectbox(label, options, key=key, format_func=format_func)
    if chosen == options[0]:
        st.query_params.pop(param, None)
    else:
        st.query_params[param] = chosen
    return chosen


def filters(every, model_of: dict) -> list:
    """The stage (stable ids, protocol order), model, response, ruled and needing-a-ruling filters; the
    disputes they keep."""
    models = choose_models(list(dict.fromkeys(model_of.values())), key="dispute_models")
    stage_column, response_column, ruled_column = st.columns([2, 2, 1])
    if STAGE_REQUEST in st.session_state:  # a link from the agreement page
        st.session_state[STAGE_KEY] = st.session_state.pop(STAGE_REQUEST)
    stage = url_choice(
        stage_column,
        "Stage",
        (ALL, *STAGE_IDS),
        STAGE_KEY,
        "stage",
        lambda s: "All stages" if s == ALL else STAGE_NAMES[STAGE_IDS[s]],
    )
    responses = sorted({v.response_id for v in every})
    requested = st.session_state.pop(DISPUTES_FILTER, None)  # a link from the calibrate page
    if requested in responses:
        st.session_state[RESPONSE_KEY] = requested
    response_id = url_choice(
        response_column,
        "Response",
        (ALL, *responses),
        RESPONSE_KEY,
        "response",
        lambda r: "All responses" if r == ALL else r,
    )
    with_ruled = ruled_column.toggle("Show ruled ones too", key="show_ruled")
    # a majority settles most disputes; these are the ones only an adjudicator can decide
    unsettled_only = ruled_column.toggle("Only those needing a ruling", key="needing_ruling")
    return [
        v
        for v in every
        if (with_ruled or v.ruling is None)
        and (v.needs_ruling or not unsettled_only)
        and stage in (ALL, ruling.stage_id(v.stage))
        and response_id in (ALL, v.response_id)
        and model_of.get(v.response_id) in models
    ]


def disputes(me: dict, store) -> None:
    st.title("Disputes")
    notice = st.session_state.pop(ruling.NOTICE_KEY, None)  # the ruling just made
    if me["role"] == "admin":
        gold_settings_panel(store)
    try:
        state = current_state(store)  # once per rerun: rulings are written before the rerun
    except ValueError as exc:  # an unknown gold_rule setting
        st.error(
            "The project's gold rule is unknown; an admin sets the rule under Gold settings on this page."
        )
        show_text(str(exc))
        return
    gold = state.gold
    questions = open_questions(gold)  # wordings the matcher could not settle: asked before disputes
    every = [v for v in gold.disputes() if not wording_only(v)]  # a wording is never a dispute
    open_count = sum(1 for v in every if v.ruling is None)
    counts = gold.counts()
    for column, (label, number) in zip(
        st.columns(5),
        (
            ("Open disputes", open_count),
            ("Need a ruling", sum(1 for v in every if v.needs_ruling)),  # the rest a majority settles
            ("Ruled", len(every) - open_count),
            ("Unanimous values", counts.get("unanimous", 0)),
            ("Majority values", counts.get("majority", 0)),
        ),
        strict=True,
    ):
        column.metric(label, number)
    if questions:
        same_fact_question(store, me["name"], questions, float(store.get_setting("pad_s", 1.0)))
        st.divider()
        downloads(store)
        return
    model_of = dict(store.response_models())
    shown = filters(every, model_of)
    if not shown:
        st.session_state.pop(ruling.SCROLL_KEY, None)  # nothing to bring into view
        if notice:
            st.success(notice, icon=":material/gavel:")
        st.success(
            "None of the disputes here needs a ruling: a majority settles each."
            if every and st.session_state.get("needing_ruling")
            else "No open disputes here."
            if every
            else "No disputes: the annotators agree everywhere (or nothing is labelled yet).",
            icon=":material/check_circle:",
        )
        downloads(store)
        return
    value, upcoming = open_dispute(shown)
    dispute_list(shown, value, model_of)
    show_dispute(store, me["name"], value, upcoming, state.settings.pad_s, notice)
    st.divider()
    downloads(store)


run_page(disputes, "adjudicator", "admin", title="the disputes page")
