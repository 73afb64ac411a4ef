"""Disputes: where the annotators disagree in substance, lowest agreement first — a rewording is not
a dispute (fact clusters, `annotation.agreement.clusters`). One screen at 1440×900: the counts (which
add up), the filters and the list on the left (radio buttons: Tab reaches them, the arrow keys open
another dispute), the open dispute beside them — its question and keys, every annotator's wording
and value with their time (decisions under 2 s flagged), the ruling buttons each with its key, and
the cited segments in the annotation view's player and sound view. A ruling reruns only that part
(a fragment) and reads the project state, which re-derives gold for its response only; the next
dispute opens in its place and the notice names whose version was ruled. Unanimous units are
accepted automatically unless an admin turns that off. The gold set, with the provenance of every
value, downloads as evaluation records or CSV. The URL holds the stage filter by its stable id
(?stage=s3-all) and the response filter by the response id.
Two wordings the matcher is unsure of are a "Same fact?" question, counted apart and asked first
(Y/N; `pages.widgets.same_fact`).
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import streamlit as st

from annotation.agreement.gold import RULES, write_gold_csv
from annotation.agreement.same_fact import open_questions, wording_only
from annotation.formats.readers import write_records_jsonl
from annotation.project_settings import ProjectSettings, SettingError, write_settings
from pages.widgets import player, response_view, ruling
from pages.widgets.context import current_state, friendly_errors, literal, show_text
from pages.widgets.frame import run_page
from pages.widgets.model_filter import choose_models
from pages.widgets.opened_response import DISPUTES_FILTER
from pages.widgets.ruling import ALL, STAGE_IDS, STAGE_NAMES, STAGE_REQUEST
from pages.widgets.same_fact import same_fact_question

STAGE_KEY = "stage"  # the stage filter; the URL holds it as ?stage=s3-all
RESPONSE_KEY = "dispute_response"  # the response filter; the URL holds it as ?response=…
OPEN_KEY = "dispute_open"  # the key (GoldValue.key) of the dispute on screen
CHOICE_KEY = "dispute_choice"  # the list's radio buttons
POSITION_KEY = "dispute_position"  # its place in the list: where the next one opens after a ruling
LIST_WINDOW = 12  # radio buttons shown around the open dispute (the page needs no scroll)
RULE_NAMES = {
    "majority": "Majority — more than half of the annotators",
    "unanimity": "Unanimity — every annotator; the rest waits for a ruling",
}


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
    try:
        write_settings(store, {name: st.session_state[widget_key]})
    except SettingError as exc:
        st.error(literal(f"Nothing was saved: {exc}"))


def gold_settings_panel(store) -> None:
    """The gold rule and auto-acceptance of unanimous units (admins only). A bad stored value
    (the page says so above) starts at its default, so the admin can pick a good one."""
    rule, auto_accept = ProjectSettings.for_correction(store)[0].gold
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


# -- the counts and the list ----------------------------------------------------------------
def dispute_counts(every) -> dict[str, int]:
    """Every dispute is in exactly one of three states, so the counts add up: it needs a ruling (no
    majority or rule settles it), a majority settles it until someone rules, or it is ruled."""
    ruled = sum(1 for v in every if v.ruling is not None)
    need = sum(1 for v in every if v.needs_ruling)
    return {
        "disputes": len(every),
        "need a ruling": need,
        "settled by a majority": len(every) - ruled - need,
        "ruled": ruled,
    }


def counts_line(every) -> None:
    counts = dispute_counts(every)
    st.markdown(
        f"**{counts['disputes']}** dispute{'' if counts['disputes'] == 1 else 's'} = **{counts['need a ruling']}** need a ruling + "
        f"**{counts['settled by a majority']}** settled by a majority, not yet ruled + "
        f"**{counts['ruled']}** ruled",
        help="A dispute a majority settles gives gold now; a ruling overrides it. The list shows "
        "the ones not yet ruled unless asked for the ruled ones too.",
    )


def status_words(value) -> str:
    return "ruled" if value.ruling is not None else "needs a ruling" if value.needs_ruling else "majority"


def list_label(value) -> str:
    """One line of the list: response, sentence, question, agreement, state. Streamlit reads a
    radio option as Markdown: the response id came in a file, so it is shown literally."""
    return (
        f"{literal(value.response_id)} · sentence {value.sentence + 1} · {value.question} · "
        f"{value.agreement:.0%} · {status_words(value)}"
    )


def _list_chosen() -> None:
    """A choice in the list (a click, or the arrow keys) opens that dispute."""
    st.session_state[OPEN_KEY] = st.session_state[CHOICE_KEY]


def open_dispute(shown):
    """The dispute to show: the one chosen in the list or open before, else — after a ruling took it
    off the list — the one now at its place. Returns (it, the one after it)."""
    ids = [v.key for v in shown]
    if st.session_state.get(OPEN_KEY) not in ids:
        st.session_state[OPEN_KEY] = ids[min(st.session_state.get(POSITION_KEY, 0), len(ids) - 1)]
    position = ids.index(st.session_state[OPEN_KEY])
    st.session_state[POSITION_KEY] = position
    return shown[position], shown[position + 1] if position + 1 < len(shown) else None


def list_window(count: int, position: int) -> range:
    """The places of the list shown around the open dispute: LIST_WINDOW of them, the open one
    with a few before it, so the arrow keys walk on past either edge."""
    start = max(0, min(position - LIST_WINDOW // 4, count - LIST_WINDOW))
    return range(start, min(count, start + LIST_WINDOW))


def dispute_list(shown, chosen) -> None:
    """The disputes around the open one as radio buttons, the open one chosen: Tab reaches them,
    the arrow keys (or a click) open another; the ruling keys keep working while they have the
    focus. A window of the list, not all of it: a browser redraws a few radio buttons after each
    ruling at once, and hundreds slowly."""
    ids = [v.key for v in shown]
    window = list_window(len(shown), ids.index(chosen.key))
    st.session_state[CHOICE_KEY] = chosen.key
    labels = {shown[i].key: list_label(shown[i]) for i in window}
    st.caption(
        f"{len(shown)} dispute{'' if len(shown) == 1 else 's'}, lowest agreement first; ↑ ↓ open one"
        + (f" (here {window.start + 1}–{window.stop})" if len(window) < len(shown) else "")
    )
    st.radio(
        "Disputes",
        list(labels),
        key=CHOICE_KEY,
        format_func=labels.get,
        on_change=_list_chosen,
        label_visibility="collapsed",
    )


def show_dispute(store, who: str, value, upcoming, settings: ProjectSettings, notice: str | None) -> None:
    pad_s = settings.pad_s
    response = store.response(value.response_id)
    sentences = store.response_sentences(value.response_id)
    sentence = sentences[value.sentence]
    cited = [c for i in value.segments if (c := sentence.citations[i]).valid]
    decision_side, media_side = st.columns([3, 2], gap="medium")
    with decision_side:
        # inline, not a toast (it would cover the media of the next dispute), in a slot of its own:
        # the elements below keep their places, so a ruling redraws them rather than rebuilds them
        with st.container(key="ruling_notice"):
            if notice:
                st.success(notice, icon=":material/gavel:")
        ruling.ruling_panel(value, sentence, players=len(cited), cooldown_ms=settings.key_cooldown_ms)
        ruling.annotator_values(value, sentence)
        ruling.ruling_controls(store, who, value, sentence)
        with st.expander("The whole response"):
            response_view.show_question(response)
            response_view.show_response_text(response, sentence)
    with media_side:
        ruling.play_segments(store, response, sentence, value, pad_s)
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
    # the label is read out (and named by tests), not shown: the list below keeps the room
    chosen = where.selectbox(label, options, key=key, format_func=format_func, label_visibility="collapsed")
    if chosen == options[0]:
        st.query_params.pop(param, None)
    else:
        st.query_params[param] = chosen
    return chosen


def filters(every, model_of: dict) -> list:
    """The stage (stable ids, protocol order), model, response, ruled and needing-a-ruling filters,
    one under the other; the disputes they keep."""
    models = choose_models(list(dict.fromkeys(model_of.values())), key="dispute_models")
    if STAGE_REQUEST in st.session_state:  # a link from the agreement page
        st.session_state[STAGE_KEY] = st.session_state.pop(STAGE_REQUEST)
    stage = url_choice(
        st,
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
        st,
        "Response",
        (ALL, *responses),
        RESPONSE_KEY,
        "response",
        lambda r: "All responses" if r == ALL else r,
    )
    with_ruled = st.toggle("Show ruled ones too", key="show_ruled")
    # a majority settles most disputes; these are the ones only an adjudicator can decide
    unsettled_only = st.toggle("Only those needing a ruling", key="needing_ruling")
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
    dispute_screen(me, store)
    st.divider()
    downloads(store)
    if me["role"] == "admin":
        gold_settings_panel(store)


@st.fragment
def dispute_screen(me: dict, store) -> None:
    """The counts, the list and the open dispute, as a fragment: a ruling reruns this, not the
    page around it (so errors are caught here too: a fragment's rerun does not pass through the
    frame)."""
    with friendly_errors("the disputes page"):
        dispute_body(me, store)


def dispute_body(me: dict, store) -> None:
    notice = st.session_state.pop(ruling.NOTICE_KEY, None)  # the ruling just made
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
    counts_line(every)
    if questions:
        same_fact_question(store, me["name"], questions, state.settings.pad_s)
        return
    model_of = dict(store.response_models())
    list_side, dispute_side = st.columns([1.25, 3.4], gap="medium")
    with list_side:
        shown = filters(every, model_of)
    if not shown:
        with dispute_side:
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
        return
    value, upcoming = open_dispute(shown)
    with list_side:
        dispute_list(shown, value)
    with dispute_side:
        show_dispute(store, me["name"], value, upcoming, state.settings, notice)


run_page(disputes, "adjudicator", "admin", title="the disputes page")
