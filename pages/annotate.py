"""Annotate: the signed-in person's next unfinished response, one decision at a time.

Stage 1 (verifiable?), stage 2 (atomic facts), stage 3 (entailment, only what PROTOCOL §2
cannot derive). One screen per decision: the decision (its words, its buttons, its keys) on one
side; on the other, at the top, a player for each segment it is about, then the question and the
whole response. On a phone the two sides stack: the decision, then its media right under it.
Every decision is written to the event log at once; only this person's own labels are ever read
here.
"""

from __future__ import annotations

import streamlit as st

from annotation.work.drafts import load_draft, save_draft
from annotation.work.proposals import atomic_split, rule_based_facts
from annotation.work.session import Question, normalise_campaign_mode, plan, propose_facts
from pages.widgets import decisions, player, queue_view, response_view, timeline
from pages.widgets.context import APP_DIR, show_text
from pages.widgets.facts_editor import GUIDANCE, facts_editor, start_draft
from pages.widgets.frame import run_page
from pages.widgets.keys import DEFAULT_COOLDOWN_MS

STAGE_NAMES = {1: "Stage 1 · verifiable sentences", 2: "Stage 2 · atomic facts", 3: "Stage 3 · entailment"}


def header(store, who: str, rid: str | None, summary: str) -> None:
    """One line: where the person is, and the response-level actions and the guidelines."""
    where, tools = st.columns([3, 2], vertical_alignment="center")
    where.markdown(summary)
    with tools:
        row = st.container(horizontal=True, gap="small", horizontal_alignment="right")
        with row:
            if rid is not None:
                decisions.actions(store, who, rid)
            with st.popover("Guidelines"):
                st.markdown((APP_DIR / "assets" / "guidelines.md").read_text())
    notice = st.session_state.pop("notice", None)
    if notice:
        st.toast(notice)


def empty_queue(store, who: str, queue, waiting: list[str]) -> None:
    mine = queue.progress
    if waiting:
        st.info(
            f"{len(waiting)} of your responses wait for the adjudicated labels of an earlier stage "
            "(staged campaign). Come back later."
        )
        st.button("Check again", key="check_again", on_click=queue_view.mark_dirty)
    elif mine.assigned:
        st.success("Your queue is done. Thank you!")
    else:
        st.info("No responses are assigned to you yet; an admin adds you to the pool.")
    decisions.set_aside(store, who, queue.skipped)


def facts_decision(store, who: str, rid: str, sentence, question: Question) -> None:
    """Stage 2: the fact list, restored from the person's saved draft when there is one."""
    st.markdown("**Split the highlighted sentence into atomic facts.**", help=GUIDANCE)
    show_text(sentence.text, "murgat-sentence")
    draft_key = f"draft:{rid}:{question.unit}"
    if draft_key not in st.session_state:
        saved = load_draft(store, who, rid, question.unit)
        if saved is None:
            judged = store.list_records("judge", response_id=rid)
            saved = propose_facts(question.sentence_index, sentence, judged, rule_based_facts, atomic_split)
        start_draft(draft_key, saved)
    decisions.shown_at(question.key(rid))
    facts_editor(
        sentence,
        draft_key,
        lambda facts: decisions.confirm_facts(store, who, rid, question, facts),
        on_edit=lambda facts: save_draft(store, who, rid, question.unit, facts),
        guidance=False,
    )


def decision(store, who: str, rid: str, sentence, question: Question) -> None:
    """The question in words and its answer controls."""
    if question.kind == "verifiable":
        st.markdown(f"**{decisions.WORDING['verifiable']}**")
        show_text(sentence.text, "murgat-sentence")
        decisions.answer_buttons(store, who, rid, question)
    elif question.kind == "facts":
        facts_decision(store, who, rid, sentence, question)
    else:
        st.markdown(f"**{decisions.WORDING[question.kind]}**")
        show_text(question.fact.text, "murgat-fact")
        about = ", ".join(response_view.chip_label(sentence.citations[i]) for i in question.segments)
        if question.kind == "without":
            removed = sentence.citations[question.fact.citations[question.j]]
            st.caption(f"Without {response_view.chip_label(removed)}; the other segments: {about or 'none'}")
        else:
            st.caption(f"Segments: {about}")
        decisions.answer_buttons(store, who, rid, question)


def segments_to_play(sentences, sentence, question: Question, chosen: int | None, timeline_key: str) -> list:
    """The citations the players show: one chosen on the timeline or among the chips, else
    every segment the question is about."""
    jump = timeline.jumped_to(timeline_key)
    if jump is not None:
        return [sentences[jump[0]].citations[jump[1]]]
    if chosen is not None:
        return [sentence.citations[chosen]]
    return [sentence.citations[i] for i in question.segments]


def players(store, response, citations: list, pad_s: float, slot: str) -> None:
    """One player per citation, two side by side."""
    if not citations:
        return
    columns = st.columns(2 if len(citations) > 1 else 1, gap="small")
    for i, citation in enumerate(citations):
        with columns[i % len(columns)]:
            player.play_citation(store, response.video, citation, pad_s, with_sound=True, key=f"{slot}:{i}")


def annotate(me: dict, store) -> None:
    who = me["name"]
    mode = normalise_campaign_mode(store.get_setting("campaign_mode"))
    pad_s = float(store.get_setting("pad_s", 1.0))
    item = queue_view.current_item(store, who, mode)
    rid, labels, question = item.response_id, item.labels, item.question
    queue = queue_view.snapshot(store, who)
    mine = queue.progress
    done = f"{mine.done} of {mine.assigned} responses done" + (
        f", {mine.skipped} set aside" if mine.skipped else ""
    )
    if rid is None:
        header(store, who, None, done)
        empty_queue(store, who, queue, item.waiting)
        return
    response = store.response(rid)
    sentences = store.response_sentences(rid)
    sentence = sentences[question.sentence_index]
    questions, _ = plan(sentences, labels, mode, queue.gold.get(rid))
    open_questions = [q for q in questions if (q.unit, q.task) not in labels]
    header(
        store,
        who,
        rid,
        f"**{STAGE_NAMES[question.stage]}** · {rid} · sentence {question.sentence_index + 1}/{len(sentences)}"
        f" · {len(questions) - len(open_questions)}/{len(questions)} decisions · {done}",
    )
    decision_side, context_side = st.columns([11, 9], gap="medium")
    timeline_key = f"timeline:{question.key(rid)}"  # a new question starts afresh
    chips_key = f"chips:{question.key(rid)}"
    to_play = segments_to_play(sentences, sentence, question, st.session_state.get(chips_key), timeline_key)
    with decision_side:
        with st.container(key="murgat_decision", border=True):
            decision(store, who, rid, sentence, question)
            cooldown_ms = int(store.get_setting("key_cooldown_ms", DEFAULT_COOLDOWN_MS))
            decisions.key_legend(
                question, rid, players=sum(c.valid for c in to_play), cooldown_ms=cooldown_ms
            )
            response_view.citation_chips(sentence, key=chips_key, playable=question.segments)
    with context_side:
        players(store, response, to_play, pad_s, question.key(rid))
        response_view.show_question(response)
        response_view.show_response_text(response, sentence)
        if st.toggle("Timeline of all citations", key="show_timeline"):
            timeline.citation_timeline(store, response.video, sentences, timeline_key)
        decisions.set_aside(store, who, queue.skipped)
    player.prefetch(
        store,
        response.video,
        [sentences[q.sentence_index].citations[i] for q in open_questions[1:3] for i in q.segments],
        pad_s,
    )


run_page(annotate, title="the annotation page")
