"""One dispute on screen: what each annotator said and how long they took, the cited segments
played by the annotation view's own player, and the controls that rule a gold value.

A ruling is written by `annotation.agreement.gold.adjudicate` in a button callback, before the rerun
that derives the gold set again, so the page never shows a stale value after a click.
"""

from __future__ import annotations

import streamlit as st

from annotation.agreement.gold import FAST_MS, REASONS, GoldValue, adjudicate
from annotation.protocol.ids import Task
from annotation.protocol.records import Response, Sentence
from pages.widgets import decisions, player, response_view
from pages.widgets.context import literal, show_text
from pages.widgets.facts_editor import facts_editor, start_draft

STAGE_NAMES = {
    "verifiable": "Stage 1 · verifiable",
    "decomposition": "Stage 2 · atomic facts",
    "entailment_all": "Stage 3 · all",
    "entailment_alone": "Stage 3 · alone",
    "entailment_without": "Stage 3 · without",
}
FACTS_WORDING = "How should this sentence be split into atomic facts?"
ALL = "all"
STAGE_REQUEST = "disputes_stage_request"  # set by a link to the disputes page: the stage to show
REASON_KEY = "ruling_reason"
NOTICE_KEY = "ruling_notice"
ERROR_KEY = "ruling_error"
_RESET_REASON = "ruling_reset_reason"


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


def describe(value: GoldValue) -> str:
    """One line naming a dispute: response, sentence, question, agreement, fast flags."""
    fast = f" · ⚡ {', '.join(value.fast_annotators)}" if value.fast_annotators else ""
    ruled = " · ruled" if value.ruling is not None else ""
    return (
        f"{value.response_id} · sentence {value.sentence + 1} · {value.question} · "
        f"{value.agreement:.0%} agree{fast}{ruled}"
    )


def fact_lines(facts: list[dict], sentence: Sentence) -> str:
    """A fact list as text lines, each with the chips of its citations."""

    def chips(indices) -> str:
        return ", ".join(
            response_view.chip_label(sentence.citations[i])
            for i in indices
            if 0 <= i < len(sentence.citations)
        )

    return "\n".join(f"• {f['text']}  [{chips(f.get('citations', []))}]" for f in facts) or "(no facts)"


def show_question(value: GoldValue, sentence: Sentence) -> None:
    """The sentence, the fact when the question is about one, and the question in words."""
    show_text(sentence.text, "murgat-sentence")
    kind = Task.from_value_name(value.question).question
    if value.fact is not None:
        st.markdown("**Fact**")
        show_text(value.fact, "murgat-fact")
    st.markdown(f"**{FACTS_WORDING if kind == 'facts' else decisions.WORDING[kind]}**")
    if kind in ("alone", "without"):
        about = ", ".join(response_view.chip_label(sentence.citations[i]) for i in value.segments)
        st.caption(
            ("This segment: " if kind == "alone" else "The other segments: ") + literal(about or "none")
        )


def annotator_values(value: GoldValue, sentence: Sentence) -> None:
    """Each annotator's value side by side, with their time on the item (fast ones flagged)."""
    names = sorted(value.values)
    if not names:
        st.info(
            "No annotator answered this question (their facts differ from the gold fact); "
            "only a ruling settles it."
        )
        return
    for column, name in zip(st.columns(len(names)), names, strict=True):
        with column.container(border=True):
            st.markdown(f"**{literal(name)}**")
            answer = value.values[name]
            if isinstance(answer, list):
                show_text(fact_lines(answer, sentence), "murgat-facts")
            else:
                st.markdown(answer_words(value.question, answer))
            st.caption(time_words(value.spent_ms.get(name)))
    shown = (
        fact_lines(value.value, sentence)
        if isinstance(value.value, list)
        else answer_words(value.question, value.value)
    )
    st.caption(f"Gold now: {literal(shown)} — {literal(value.provenance)}")


def play_segments(store, response: Response, sentence: Sentence, value: GoldValue, pad_s: float) -> None:
    """The segments the question is about, through the annotation view's player."""
    if not value.segments:
        st.caption("This sentence cites nothing; there is nothing to play.")
    for index in value.segments:
        player.play_citation(store, response.video, sentence.citations[index], pad_s)


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
    st.session_state[NOTICE_KEY] = (
        f"Ruled “{answer_words(value.question, answer)}” on {literal(value.response_id)}, "
        f"sentence {value.sentence + 1}, {value.question}" + (f" ({reason})" if reason else "") + "."
    )
    return True


def ruling_controls(store, who: str, value: GoldValue, sentence: Sentence) -> None:
    """The optional reason tag, then one button per answer (yes/no questions) or, for a fact
    list, one button per annotator's list and an editor that starts from any of them."""
    if st.session_state.pop(_RESET_REASON, False):
        st.session_state[REASON_KEY] = None
    error = st.session_state.pop(ERROR_KEY, None)
    if error:
        st.error(f"The ruling was not recorded: {literal(error)}")
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
        for column, (label, _shortcut, answer) in zip(columns, decisions.ANSWERS[kind], strict=True):
            # The dispute is in the key: a click on a button still on screen from the dispute
            # before must rule that one again, not the next one unseen.
            column.button(
                f"Rule: {label}",
                key=f"rule:{answer}:{value.key}",
                width="stretch",
                on_click=_record_ruling,
                args=(store, who, value, answer),
            )
        return
    lists = {name: value.values[name] for name in sorted(value.values)}
    if isinstance(value.value, list):
        lists["the current gold"] = value.value
    names = list(lists)
    for start in range(0, len(names), 2):  # two per row: the labels stay readable
        for column, name in zip(st.columns(2), names[start : start + 2], strict=False):
            column.button(
                f"Rule {literal(name)}'s facts" if name in value.values else "Rule the current gold facts",
                key=f"rule_facts:{name}:{value.key}",
                width="stretch",
                on_click=_record_ruling,
                args=(store, who, value, lists[name]),
            )
    with st.expander("Or edit a fact list and rule it"):
        start = st.selectbox("Start from", list(lists) or ["an empty list"], key="ruling_start")
        draft_key = f"gold_draft:{value.key}:{start}"
        start_draft(draft_key, lists.get(start, []))
        facts_editor(sentence, draft_key, lambda facts: _record_ruling(store, who, value, facts))
