"""One dispute on screen: the question, every annotator's wording and value side by side with their
time, the cited segments played by the annotation view's own player (and its sound view), and the
controls that rule a gold value — one button per answer, each with its key.

A ruling is written by `annotation.agreement.gold.adjudicate` in a button callback, before the rerun
that derives the gold set again, so the page never shows a stale value after a click. Everything a
person typed (facts, reasons) or a file brought in is shown as text (`show_text`, tables), never as
Markdown.
"""

from __future__ import annotations

import streamlit as st

from annotation.agreement.gold import FAST_MS, REASONS, GoldValue, adjudicate
from annotation.protocol.ids import Task
from annotation.protocol.records import Response, Sentence
from pages.widgets import decisions, player, response_view
from pages.widgets.context import literal, show_text
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
SCROLL_KEY = "dispute_scroll"  # set when another dispute opens by a click or a ruling: bring it into view
_RESET_REASON = "ruling_reset_reason"
LIST_KEYS = "123456789"  # the keys of the fact-list rulings, one per annotator's list


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


def show_question(value: GoldValue, sentence: Sentence) -> None:
    """The sentence, the fact when the question is about one, and the question in words."""
    show_text(sentence.text, "murgat-sentence")
    kind = Task.from_value_name(value.question).question
    if value.fact is not None:
        st.markdown("**Fact**")
        show_text(value.fact, "murgat-fact")
    st.markdown(f"**{FACTS_WORDING if kind == 'facts' else decisions.WORDING[kind]}**")
    if kind in ("alone", "without"):
        about = chips(sentence, value.segments)
        st.caption(
            ("This segment: " if kind == "alone" else "The other segments: ") + literal(about or "none")
        )


def _wording(value: GoldValue, name: str) -> str | None:
    """`name`'s own wording of the fact, when it is not the gold fact's."""
    found = next((text for author, text, _ in value.wordings if author == name), None)
    return found if found is not None and found.strip() != (value.fact or "").strip() else None


def annotator_values(value: GoldValue, sentence: Sentence) -> None:
    """Each annotator's value side by side — a fact in their own words — with their time on the item
    (fast ones flagged); a fact list as a table of its facts across annotators."""
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
    else:
        for column, name in zip(st.columns(len(names)), names, strict=True):
            with column.container(border=True):
                st.markdown(f"**{literal(name)}**")
                wording = _wording(value, name)
                if wording is not None:
                    show_text(f"in their words: {wording}", "murgat-wording")
                st.markdown(answer_words(value.question, value.values[name]))
                st.caption(time_words(value.spent_ms.get(name)))
    shown = (
        fact_lines(value.value, sentence)
        if isinstance(value.value, list)
        else answer_words(value.question, value.value)
    )
    show_text(f"Gold now: {shown} — {value.provenance}", "murgat-gold-now")


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


def cluster_table(value: GoldValue, sentence: Sentence) -> None:
    st.caption("The facts as the annotators stated them, each row one fact however it was worded:")
    st.dataframe(cluster_rows(value, sentence), hide_index=True, width="stretch")


def play_segments(store, response: Response, sentence: Sentence, value: GoldValue, pad_s: float) -> None:
    """The segments the question is about, in the annotation page's players (an audio segment's
    sound drawn under its controls)."""
    if not value.segments:
        st.caption("This sentence cites nothing; there is nothing to play.")
    cited = [sentence.citations[index] for index in value.segments]
    player.play_citations(store, response.video, cited, pad_s, with_sound=True, key=f"dispute:{value.key}")


def _record_ruling(store, who: str, value: GoldValue, answer) -> bool:
    """Write the ruling; a refusal goes to the error slot. True when it was written."""
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
    st.session_state[SCROLL_KEY] = True  # the next dispute opens where this one was
    st.session_state[NOTICE_KEY] = (
        f"Ruled “{answer_words(value.question, answer)}” on {literal(value.response_id)}, "
        f"sentence {value.sentence + 1}, {value.question}" + (f" ({reason})" if reason else "") + "."
    )
    return True


def ruling_controls(store, who: str, value: GoldValue, sentence: Sentence) -> None:
    """The optional reason tag, then one button per answer (yes/no questions) or, for a fact
    list, one button per annotator's list and an editor that starts from any of them; every
    button carries its key (shown on it)."""
    if st.session_state.pop(_RESET_REASON, False):
        st.session_state[REASON_KEY] = None
    error = st.session_state.pop(ERROR_KEY, None)
    if error:
        st.error("The ruling was not recorded:")
        show_text(error)
    decisions.shown_at(f"dispute|{value.key}")
    st.pills(
        "Reason (optional)",
        REASONS,
        key=REASON_KEY,
        selection_mode="single",
        help="Why the annotators disagreed, for the guideline discussion.",
    )
    if value.question != "facts":
        kind = "verifiable" if value.question == "verifiable" else "entailment"
        columns = st.columns(2)
        for column, (label, shortcut, answer) in zip(columns, decisions.ANSWERS[kind], strict=True):
            # The dispute is in the key: a click on a button still on screen from the dispute
            # before must rule that one again, not the next one unseen.
            column.button(
                f"Rule: {label}",
                key=f"rule:{answer}:{value.key}",
                shortcut=shortcut,
                width="stretch",
                on_click=_record_ruling,
                args=(store, who, value, answer),
            )
        return
    fact_list_controls(store, who, value, sentence)


def fact_list_controls(store, who: str, value: GoldValue, sentence: Sentence) -> None:
    """One button per annotator's fact list (keys 1, 2, …) and the current gold list (key G), and
    an editor that starts from any of them."""
    lists = {name: value.values[name] for name in sorted(value.values)}
    if isinstance(value.value, list):
        lists["the current gold"] = value.value
    names = list(lists)
    for start in range(0, len(names), 2):  # two per row: the labels stay readable
        for column, name in zip(st.columns(2), names[start : start + 2], strict=False):
            position = names.index(name)
            gold = name not in value.values
            column.button(
                "Rule the current gold facts" if gold else f"Rule {literal(name)}'s facts",
                key=f"rule_facts:{name}:{value.key}",
                shortcut="G" if gold else LIST_KEYS[position] if position < len(LIST_KEYS) else None,
                width="stretch",
                on_click=_record_ruling,
                args=(store, who, value, lists[name]),
            )
    with st.expander("Or edit a fact list and rule it"):
        start = st.selectbox("Start from", list(lists) or ["an empty list"], key="ruling_start")
        draft_key = f"gold_draft:{value.key}:{start}"
        start_draft(draft_key, lists.get(start, []))
        facts_editor(sentence, draft_key, lambda facts: _record_ruling(store, who, value, facts))
