"""Disputes: where the annotators disagree in substance, lowest agreement first — a rewording is not
a dispute (fact clusters, `annotation.agreement.clusters`). One screen at 1440×900: the counts (which
add up), the filters and the list on the left (radio buttons: Tab reaches them, the arrow keys open
another dispute), the open dispute beside them — its question and keys, every annotator's wording
and value with their time (decisions under 2 s flagged), the ruling buttons each with its key, and
the cited segments in the annotation view's player and sound view. The screen is a fragment (a
filter reruns it, not the page); inside it, what a ruling changes — the counts, the list and the
open dispute — is a fragment of its own drawn into the screen's slots, so a ruling or a choice in
the list reruns that part alone and the filters stay as they are. It reads the project state, which
re-derives gold for the ruled response only, and the disputes kept per response
(`annotation.agreement.dispute_index`); the next dispute opens in its place and the notice names
whose version was ruled. The whole response is drawn only while its expander is open. Unanimous units are
accepted automatically unless an admin turns that off. The gold set, with the provenance of every
value, downloads as evaluation records or CSV; under it, in an expander that starts closed, the
annotators' flags (their questions about a response or the guidelines), each answered there. The URL holds the stage
filter by its stable id (?stage=s3-all) and the response filter by the response id.
Two wordings the matcher is unsure of are a "Same fact?" question, counted apart and asked first
(Y/N; `pages.widgets.same_fact`).
"""

from __future__ import annotations

import io
import tempfile
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from annotation.agreement.gold import RULES
from annotation.formats.gold_csv import write_gold_csv
from annotation.formats.readers import write_records_jsonl
from annotation.project_settings import ProjectSettings, SettingError, write_settings
from annotation.store.rows import Person
from annotation.work.flags import answer_flag, project_flags
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
FILTER_KEY = "dispute_filter"  # what the filters keep, for the fragments inside the screen
_MODELS_KEY = "dispute_response_models"  # (responses counter, {response: model}): see response_models
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
    waiting = current_state(store).gold.awaiting_note()
    if waiting:
        st.caption(f"Gold records: {waiting}.")


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


# -- the annotators' flags ----------------------------------------------------------------------
def flags_panel(me: Person, store) -> None:
    """The flags annotators sent from the Annotate page (`annotation.work.flags`), the open ones
    first, each newest first, in a closed expander below the disputes, so the ruling controls keep
    their place: each with who, when, where, and the text as typed, shown as text (never Markdown
    or HTML); an open one with a reply box and "Mark answered", an answered one with its answer."""
    flags = project_flags(store)
    waiting = [f for f in flags if f.answer is None]
    count = f"{len(flags)} flag{'' if len(flags) == 1 else 's'}" + (f", {len(waiting)} open" if flags else "")
    # keyed: the panel keeps its place (and stays open) when an answer changes its label
    with st.expander(f"Flags from annotators ({count})", icon=":material/flag:", key="flags_panel"):
        notice = st.session_state.pop("flag_notice", None)
        if notice:
            st.error(literal(notice))
        if not flags:
            st.caption("No annotator has flagged anything yet.")
        for flag in waiting + [f for f in flags if f.answer is not None]:
            st.caption(literal(f"{flag.who} · {flag.when} · {flag.where}"))
            show_text(flag.text)
            if flag.answer is None:
                answer_form(me, store, flag.event_id)
            else:
                st.caption(literal(f"Answered by {flag.answer.who} · {flag.answer.when}"))
                if flag.answer.text:
                    show_text(flag.answer.text)


def answer_form(me: Person, store, flag_id: int) -> None:
    """A reply (optional) and "Mark answered"; the annotator reads the reply on the Annotate page."""
    with st.form(f"flag_answer_form_{flag_id}", clear_on_submit=True, border=False):
        st.text_area(
            "Answer (optional; the annotator reads it on the Annotate page)",
            key=f"flag_answer_{flag_id}",
            height=68,
        )
        st.form_submit_button(
            "Mark answered", icon=":material/done:", on_click=_answer_flag, args=(me, store, flag_id)
        )


def _answer_flag(me: Person, store, flag_id: int) -> None:
    try:  # the role is checked again there, as for a ruling
        answer_flag(store, me.name, flag_id, st.session_state.get(f"flag_answer_{flag_id}", ""))
    except (PermissionError, ValueError) as exc:
        st.session_state["flag_notice"] = f"Not answered: {exc}"


# -- the counts and the list ----------------------------------------------------------------
def counts_line(view) -> None:
    counts = view.counts()
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
    """The dispute to show among the rows `shown`: the one chosen in the list or open before, else —
    after a ruling took it off the list — the one now at its place. Returns (it, the one after it),
    as gold values."""
    ids = [row.key for row in shown]
    if st.session_state.get(OPEN_KEY) not in ids:
        st.session_state[OPEN_KEY] = ids[min(st.session_state.get(POSITION_KEY, 0), len(ids) - 1)]
    position = ids.index(st.session_state[OPEN_KEY])
    st.session_state[POSITION_KEY] = position
    return shown[position].value, shown[position + 1].value if position + 1 < len(shown) else None


def list_window(count: int, position: int) -> range:
    """The places of the list shown around the open dispute: LIST_WINDOW of them, the open one
    with a few before it, so the arrow keys walk on past either edge."""
    start = max(0, min(position - LIST_WINDOW // 4, count - LIST_WINDOW))
    return range(start, min(count, start + LIST_WINDOW))


def dispute_list(shown, chosen) -> None:
    """The disputes (rows) around the open one as radio buttons, the open one chosen: Tab reaches them,
    the arrow keys (or a click) open another; the ruling keys keep working while they have the
    focus. A window of the list, not all of it: a browser redraws a few radio buttons after each
    ruling at once, and hundreds slowly."""
    window = list_window(len(shown), st.session_state[POSITION_KEY])  # open_dispute set it
    st.session_state[CHOICE_KEY] = chosen.key
    labels = {shown[i].key: list_label(shown[i].value) for i in window}
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
        # drawn only while open: a ruling does not redraw a response nobody is reading
        whole = st.expander("The whole response", key="whole_response", on_change="rerun")
        if whole.open:
            with whole:
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


@dataclass(frozen=True)
class DisputeFilter:
    """What the filters keep: a stage id and a response id (or ALL), whether ruled disputes come
    back, whether only those needing a ruling stay, and the responses of the chosen models (None:
    every model is chosen)."""

    stage: str = ALL
    response_id: str = ALL
    with_ruled: bool = False
    unsettled_only: bool = False
    responses: frozenset | None = None

    def keeps(self, row) -> bool:
        """Does the filter keep this dispute (a `DisputeRow`)?"""
        return (
            (self.with_ruled or not row.ruled)
            and (row.needs_ruling or not self.unsettled_only)
            and (self.stage == ALL or STAGE_IDS[self.stage] == row.stage)
            and (self.response_id == ALL or self.response_id == row.value.response_id)
            and (self.responses is None or row.value.response_id in self.responses)
        )


def filters(view, model_of: dict) -> DisputeFilter:
    """The stage (stable ids, protocol order), model, response, ruled and needing-a-ruling filters,
    one under the other; what they keep."""
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
    responses = view.responses
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
    every_model = set(models) >= set(model_of.values())
    return DisputeFilter(
        stage,
        response_id,
        with_ruled,
        unsettled_only,
        None if every_model else frozenset(r for r, m in model_of.items() if m in models),
    )


def disputes(me: Person, store) -> None:
    st.title("Disputes")
    dispute_screen(me, store)
    st.divider()
    downloads(store)
    flags_panel(me, store)
    if me.role == "admin":
        gold_settings_panel(store)


def response_models(store, state) -> dict:
    """{response id: model} of the project, read again only when responses were imported."""
    cached = st.session_state.get(_MODELS_KEY)
    if cached is None or cached[0] != (store.directory, state.revision.responses):
        cached = ((store.directory, state.revision.responses), dict(store.response_models()))
        st.session_state[_MODELS_KEY] = cached
    return cached[1]


def shown_disputes(view) -> list:
    """The disputes (rows) the filters keep, as the screen last drew them."""
    chosen = st.session_state.get(FILTER_KEY) or DisputeFilter()
    return [row for row in view.rows if chosen.keeps(row)]


@st.fragment
def dispute_screen(me: Person, store) -> None:
    """The counts, the filters, the list and the open dispute, as a fragment: a filter reruns
    this, not the page around it (so errors are caught here too: a fragment's rerun does not
    pass through the frame)."""
    with friendly_errors("the disputes page"):
        screen_body(me, store)


def screen_body(me: Person, store) -> None:
    try:
        state = current_state(store)  # once per revision: rulings are written before the rerun
    except SettingError as exc:  # a stored setting refused: name which (Gold settings or Admin)
        st.error(
            f"The project setting {', '.join(exc.names)} holds a value this tool refuses; an admin sets "
            "it again (the gold rule under Gold settings on this page, the others on the Admin page)."
        )
        show_text(str(exc))
        return
    view = ruling.dispute_view(store, state)
    if view.questions:  # wordings the matcher could not settle: asked first
        counts_line(view)
        same_fact_question(store, me.name, list(view.questions), state.settings.pad_s)
        return
    counts_slot = st.container()
    list_side, dispute_side = st.columns([1.25, 3.4], gap="medium")
    with list_side:
        st.session_state[FILTER_KEY] = filters(view, response_models(store, state))
        list_slot = st.container()
    ruled_part(me, store, counts_slot, list_slot, dispute_side)


@st.fragment
def ruled_part(me: Person, store, counts_slot, list_slot, dispute_slot) -> None:
    """What a ruling changes — the counts, the list and the open dispute — as a fragment inside
    the screen, drawn into the screen's slots: a ruling or a choice in the list reruns this, and
    the filters stay as they are."""
    with friendly_errors("the disputes page"):
        ruled_body(me, store, counts_slot, list_slot, dispute_slot)


def ruled_body(me: Person, store, counts_slot, list_slot, dispute_slot) -> None:
    state = current_state(store)
    view = ruling.dispute_view(store, state)
    if view.questions:  # a ruling raised a "Same fact?" question: asked first
        st.rerun()
    shown = shown_disputes(view)
    with counts_slot:
        counts_line(view)
    with dispute_slot:
        value = open_body(me, store, state, view, shown)
    if value is not None:
        with list_slot:
            dispute_list(shown, value)


def open_body(me: Person, store, state, view, shown):
    """The open dispute (returned), or why there is none (None)."""
    notice = st.session_state.pop(ruling.NOTICE_KEY, None)  # the ruling just made
    if not shown:
        if notice:
            st.success(notice, icon=":material/gavel:")
        st.success(
            "None of the disputes here needs a ruling: a majority settles each."
            if view.rows and st.session_state.get("needing_ruling")
            else "No open disputes here."
            if view.rows
            else "No disputes: the annotators agree everywhere (or nothing is labelled yet).",
            icon=":material/check_circle:",
        )
        return None
    value, upcoming = open_dispute(shown)
    show_dispute(store, me.name, value, upcoming, state.settings, notice)
    return value


run_page(disputes, "adjudicator", "admin", title="the disputes page")
