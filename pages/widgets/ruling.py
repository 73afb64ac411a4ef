"""One dispute on screen: the question, every annotator's wording and value side by side with their
time, the cited segments played by the annotation view's own player (and its sound view), and the
controls that rule a gold value — one button per answer, each with its key.

A ruling is written by `annotation.agreement.adjudication.adjudicate` in a button callback, before the rerun
that derives the gold set again, so the page never shows a stale value after a click. Everything a
person typed (facts, reasons) or a file brought in is shown as text (`show_text`, tables), never as
Markdown.
"""

from __future__ import annotations

import streamlit as st

from annotation.agreement.adjudication import REASONS, adjudicate
from annotation.agreement.dispute_index import DisputeIndex, DisputeView
from annotation.agreement.gold import FAST_MS, GoldValue
from annotation.protocol.ids import Task
from annotation.protocol.records import Response, Sentence
from pages.widgets import decisions, keys, player, response_view
from pages.widgets.context import escaped, literal, show_text
from pages.widgets.facts_editor import facts_editor, start_draft

# The stages in protocol order, by the stable id the URL holds (?stage=s3-all).
STAGE_IDS = {
    "s1": "verifiable",
    "s2": "decomposition",
    "s3-all": "entailment_all",
    "s3-alone": "entailment_alone",
    "s3-without": "entailment_without",
}
STAGE_NAMES = {
    "verifiable": "Stage 1 · verifiable",
    "decomposition": "Stage 2 · atomic facts",
    "entailment_all": "Stage 3 · all",
    "entailment_alone": "Stage 3 · alone",
    "entailment_without": "Stage 3 · without",
}
FACTS_WORDING = "How should this sentence be split into atomic facts?"
ALL = "all"
STAGE_REQUEST = "disputes_stage_request"  # set by a link to the disputes page: the stage id to show
REASON_KEY = "ruling_reason"
NOTICE_KEY = "ruling_notice"
ERROR_KEY = "ruling_error"
_RESET_REASON = "ruling_reset_reason"
LIST_KEYS = "123456789"  # the keys of the fact-list rulings, one per annotator's list


@st.cache_resource(show_spinner=False)
def _dispute_index(project: str) -> DisputeIndex:
    """The project's disputes, kept per response for every session of this server process."""
    return DisputeIndex()


def dispute_view(store, state) -> DisputeView:
    """The disputes of `state` as the Disputes page lists them (`annotation.agreement.dispute_index`)."""
    return _dispute_index(str(store.directory)).view(state)


def stage_id(stage: str) -> str:
    """The URL id of an agreement stage ('entailment_all' → 's3-all')."""
    return next(key for key, name in STAGE_IDS.items() if name == stage)


def answer_words(question: str, answer) -> str:
    """An annotator's or the gold value in the words of the annotation buttons."""
    if answer is None:
        return "no value"
    if isinstance(answer, list):
        return f"{len(answer)} fact{'' if len(answer) == 1 else 's'}"
    if question == "verifiable":
        return "Verifiable" if answer else "Not verifiable"
    return "Yes, supported" if answer else "No"


def time_words(spent_ms: int | None) -> str:
    """'4.2 s', flagged when under FAST_MS; 'time not recorded' when unknown."""
    if spent_ms is None:
        return "time not recorded"
    words = f"{spent_ms / 1000:.1f} s on this item"
    return words + (f" · ⚡ under {FAST_MS // 1000} s" if spent_ms < FAST_MS else "")


def chips(sentence: Sentence, indices) -> str:
    return ", ".join(
        response_view.chip_label(sentence.citations[i]) for i in indices if 0 <= i < len(sentence.citations)
    )


def fact_lines(facts: list[dict], sentence: Sentence) -> str:
    """A fact list as text lines, each with the chips of its citations."""
    return (
        "\n".join(f"• {f['text']}  [{chips(sentence, f.get('citations', []))}]" for f in facts)
        or "(no facts)"
    )


def question_words(value: GoldValue) -> str:
    kind = Task.from_value_name(value.question).question
    return FACTS_WORDING if kind == "facts" else decisions.WORDING[kind]


def ruling_keys(value: GoldValue, players: int) -> list[tuple[str, str]]:
    """The keys of this dispute's rulings (and P to play), as the legend shows them."""
    if value.question == "facts":
        names = sorted(value.values)
        pairs = [(LIST_KEYS[n], f"{name}'s facts") for n, name in enumerate(names) if n < len(LIST_KEYS)]
        if isinstance(value.value, list):
            pairs.append(("G", "current gold"))
    else:
        kind = "verifiable" if value.question == "verifiable" else "entailment"
        pairs = [
            (key, "rule " + label.lower().removesuffix(", supported"))
            for label, key, _ in decisions.ANSWERS[kind]
        ]
    if players:
        pairs.append(("P", "play all" if players > 1 else "play"))
    return pairs


def ruling_panel(value: GoldValue, sentence: Sentence, *, players: int, cooldown_ms: int) -> None:
    """The dispute's words — stage and place, the question, the sentence or fact — and its keys, as
    one element (the annotate page's: `pages.widgets.keys.legend`). A new dispute ignores keys for
    `cooldown_ms`, as a new question does, so a double press never rules the next one unseen."""
    kind = Task.from_value_name(value.question).question
    note = ""
    if value.fact is not None:
        note = f"Sentence: {sentence.text}"
    if kind in ("alone", "without"):
        about = chips(sentence, value.segments)
        note += (" · " if note else "") + ("This segment: " if kind == "alone" else "The other segments: ")
        note += about or "none"
    header = {
        "stage": STAGE_NAMES[value.stage],
        "where": f"response {value.response_id} · sentence {value.sentence + 1} · "
        f"{value.agreement:.0%} agree · {value.provenance}",
        "wording": question_words(value),
        "subject": value.fact if value.fact is not None else sentence.text,
        "subject_class": "murgat-fact" if value.fact is not None else "murgat-sentence",
        "note": note,
    }
    keys.legend(
        ruling_keys(value, players), value.key, cooldown_ms=cooldown_ms, play_all=players > 1, header=header
    )


def whose(names) -> str:
    """'bob's version', 'ann and cy's version', or — nobody's — 'a version no annotator gave'."""
    names = sorted(names)
    if not names:
        return "a version no annotator gave"
    joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{literal(joined)}'s version"


def _wording(value: GoldValue, name: str) -> str | None:
    """`name`'s own wording of the fact, when it is not the gold fact's."""
    found = next((text for author, text, _ in value.wordings if author == name), None)
    return found if found is not None and found.strip() != (value.fact or "").strip() else None


def annotator_values(value: GoldValue, sentence: Sentence) -> None:
    """Each annotator's value — a fact in their own words — with their time on the item (fast ones
    flagged), one line each; a fact list as a table of its facts across annotators."""
    names = sorted(value.values)
    if not names:
        st.info(
            "No annotator answered this question (their facts differ from the gold fact); "
            "only a ruling settles it."
        )
        return
    if value.clusters is not None:
        cluster_table(value, sentence)
        st.caption(" · ".join(f"{literal(name)}: {time_words(value.spent_ms.get(name))}" for name in names))
        lines = ""
    else:
        lines = "".join(
            f"<tr><th>{escaped(name)}</th><td>{escaped(answer_words(value.question, value.values[name]))}</td>"
            f"<td>{escaped(time_words(value.spent_ms.get(name)))}</td>"
            f"<td>{escaped(f'in their words: {wording}') if (wording := _wording(value, name)) else ''}</td></tr>"
            for name in names
        )
    shown = (
        fact_lines(value.value, sentence)
        if isinstance(value.value, list)
        else answer_words(value.question, value.value)
    )
    # one element for the whole table: a ruling redraws it at once
    st.html(
        (f'<table class="murgat-values">{lines}</table>' if lines else "")
        + f'<div class="murgat-gold-now">{escaped(f"Gold now: {shown} — {value.provenance}")}</div>'
    )


def cluster_rows(value: GoldValue, sentence: Sentence) -> list[dict]:
    """One row per fact cluster of the sentence: each annotator's wording (with its citations when
    they differ from the cluster's), how many stated it, and what is disputed about it."""
    clusters = value.clusters
    names = list(clusters.decomposers)
    combined = {c.combined: c.covered for c in clusters.combinations}
    majority = {c.index for c in clusters.majority()}
    rows = []
    for cluster in clusters.clusters:
        row = {"fact": cluster.canonical, "stated by": f"{cluster.support} of {len(names)}", "disputed": ""}
        for name in names:
            member = cluster.member(name)
            own = "" if member is None else member.text
            if member is not None and member.citations != cluster.citations:
                own += f"  [{chips(sentence, member.citations)}]"
            row[name] = own or "—"
        notes = []
        if cluster.index in combined:
            notes.append(f"combines {len(combined[cluster.index])} facts the others state apart")
        if cluster.support < len(names):
            notes.append("short of all" if cluster.index in majority else "short of a majority")
        if cluster.citations_differ:
            notes.append(f"citations differ (most cite {chips(sentence, cluster.citations)})")
        row["disputed"] = "; ".join(notes)
        rows.append(row)
    return rows


CLUSTER_ROW_PX = 66  # three lines of a cell's text


def cluster_table(value: GoldValue, sentence: Sentence) -> None:
    rows = cluster_rows(value, sentence)
    st.caption("The facts as the annotators stated them, each row one fact however it was worded:")
    # rows of three lines, so a long wording or note wraps instead of being cut off (Streamlit
    # wraps a cell's text only in rows above 4rem); at most three rows tall (the table scrolls),
    # so the ruling buttons below stay in view
    widths = {name: "small" if name == "stated by" else "medium" for name in (rows[0] if rows else ())}
    st.dataframe(
        rows,
        hide_index=True,
        width="stretch",
        row_height=CLUSTER_ROW_PX,
        height=35 + CLUSTER_ROW_PX * min(len(rows), 3) + 3,
        column_config={name: st.column_config.TextColumn(width=width) for name, width in widths.items()},
    )


def play_segments(store, response: Response, sentence: Sentence, value: GoldValue, pad_s: float) -> None:
    """The segments the question is about, in the annotation page's players (an audio segment's
    sound drawn under its controls)."""
    if not value.segments:
        st.caption("This sentence cites nothing; there is nothing to play.")
    cited = [sentence.citations[index] for index in value.segments]
    player.play_citations(store, response.video, cited, pad_s, with_sound=True, key=f"dispute:{value.key}")


def _record_ruling(store, who: str, value: GoldValue, answer, version: str | None = None) -> bool:
    """Write the ruling; a refusal goes to the error slot. True when it was written. `version`
    names whose value the ruling took (default: the annotators who gave `answer`)."""
    reason = st.session_state.get(REASON_KEY)
    try:
        adjudicate(
            store,
            who,
            value.response_id,
            value.unit,
            value.task,
            answer,
            reason,
            spent_ms=decisions.spent_ms(f"dispute|{value.key}"),
        )
    except (ValueError, PermissionError) as exc:
        st.session_state[ERROR_KEY] = str(exc)
        return False
    st.session_state[_RESET_REASON] = True  # the tag is per ruling, not sticky
    if version is None:
        version = whose(name for name, given in value.values.items() if given == answer)
    st.session_state[NOTICE_KEY] = (
        f"Ruled {version}: {answer_words(value.question, answer)} — {literal(value.response_id)}, "
        f"sentence {value.sentence + 1}, {value.question}" + (f" ({reason})" if reason else "") + "."
    )
    return True


def ruling_controls(store, who: str, value: GoldValue, sentence: Sentence) -> None:
    """One button per answer (yes/no questions) or, for a fact list, one button per annotator's
    list; every button carries its key (shown on it); then the optional reason tag and, for a fact
    list, an editor that starts from any of the lists."""
    if st.session_state.pop(_RESET_REASON, False):
        st.session_state[REASON_KEY] = None
    error = st.session_state.pop(ERROR_KEY, None)
    if error:
        st.error("The ruling was not recorded:")
        show_text(error)
    decisions.shown_at(f"dispute|{value.key}")
    if value.question != "facts":
        kind = "verifiable" if value.question == "verifiable" else "entailment"
        row = st.container(horizontal=True, gap="small")  # one block, not a block per column
        for label, shortcut, answer in decisions.ANSWERS[kind]:
            # The dispute is in the key: a click on a button still on screen from the dispute
            # before must rule that one again, not the next one unseen.
            row.button(
                f"Rule: {label}",
                key=f"rule:{answer}:{value.key}",
                shortcut=shortcut,
                width="stretch",
                on_click=_record_ruling,
                args=(store, who, value, answer),
            )
    else:
        fact_list_controls(store, who, value, sentence)
    st.pills(
        "Reason (optional, before the ruling)",
        REASONS,
        key=REASON_KEY,
        selection_mode="single",
        help="Why the annotators disagreed, for the guideline discussion.",
    )
    if value.question == "facts":
        fact_list_editor(store, who, value, sentence)


def _fact_lists(value: GoldValue) -> dict[str, list]:
    """Each annotator's fact list, and the current gold list when there is one."""
    lists = {name: value.values[name] for name in sorted(value.values)}
    if isinstance(value.value, list):
        lists["the current gold"] = value.value
    return lists


def fact_list_controls(store, who: str, value: GoldValue, sentence: Sentence) -> None:
    """One button per annotator's fact list (keys 1, 2, …) and the current gold list (key G), in
    one row."""
    lists = _fact_lists(value)
    row = st.container(horizontal=True, gap="small")
    for position, name in enumerate(lists):
        gold = name not in value.values
        row.button(
            "Keep the gold now" if gold else f"Rule {literal(name)}'s",
            key=f"rule_facts:{name}:{value.key}",
            shortcut="G" if gold else LIST_KEYS[position] if position < len(LIST_KEYS) else None,
            on_click=_record_ruling,
            args=(store, who, value, lists[name], _list_version(value, name)),
        )


def fact_list_editor(store, who: str, value: GoldValue, sentence: Sentence) -> None:
    """An editor that starts from any of the fact lists; its list is ruled as edited."""
    lists = _fact_lists(value)
    with st.expander("Or edit a fact list and rule it"):
        start = st.selectbox("Start from", list(lists) or ["an empty list"], key="ruling_start")
        draft_key = f"gold_draft:{value.key}:{start}"
        start_draft(draft_key, lists.get(start, []))
        facts_editor(
            sentence,
            draft_key,
            lambda facts: _record_ruling(
                store, who, value, facts, f"a list edited from {_list_version(value, start)}"
            ),
        )


def _list_version(value: GoldValue, name: str) -> str:
    """Whose fact list `name` is: an annotator's, or the current gold's (with its provenance)."""
    if name in value.values:
        return whose([name])
    return f"the current gold ({value.provenance})" if name == "the current gold" else name
