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

from annotation.project_settings import ProjectSettings
from annotation.protocol.ids import Unit
from annotation.store.rows import Person
from annotation.work import session
from annotation.work.drafts import load_draft, save_draft
from annotation.work.flags import project_flags
from annotation.work.proposals import atomic_split, rule_based_facts
from annotation.work.queues import unskip
from annotation.work.session import (
    Question,
    ResponseWork,
    normalise_campaign_mode,
    propose_facts,
    undone_fact_list,
)
from pages.widgets import decisions, player, queue_view, response_view, timeline
from pages.widgets.context import APP_DIR, friendly_errors, literal, show_text
from pages.widgets.facts_editor import GUIDANCE, facts_editor, start_draft
from pages.widgets.frame import run_page

STAGE_NAMES = {1: "Stage 1 · verifiable sentences", 2: "Stage 2 · atomic facts", 3: "Stage 3 · entailment"}
ANSWERED_KEY = "answered_work"  # the work an answer left, for the run it causes (read once, then gone)
FLAGGED_SENTENCE_KEY = "flagged_sentence"  # (response, sentence) of the question on screen, for a flag


# -- the controller: what a click does (the widgets only lay out and call these) -----------------
def answer(store, who: str, work: ResponseWork, question: Question, value) -> None:
    """Record the answer; the work it leaves goes to the next run, which shows it as it is."""
    after = session.answer(
        store, who, work, question, value, spent_ms=decisions.spent_ms(question.key(work.response_id))
    )
    if after is None:
        st.session_state["notice"] = "That click was for a decision you had already made; nothing changed."
        return
    st.session_state[ANSWERED_KEY] = after
    if after.done:
        queue_view.mark_dirty()  # finished: the queue moves on


def undo(store, who: str) -> None:
    undone = session.undo_last_decision(store, who)
    if undone is None:
        st.session_state["notice"] = "Nothing to undo."
        return
    st.session_state["current_response"] = undone.response_id
    queue_view.mark_dirty()
    st.session_state["notice"] = "Undone: your last decision is open again."


def reopen(store, who: str, response_id: str) -> None:
    unskip(store, who, response_id)
    st.session_state["current_response"] = response_id
    queue_view.mark_dirty()


def skip(store, who: str) -> None:
    response_id = st.session_state.get("current_response")
    if response_id is None:
        st.session_state["notice"] = "There is no response to set aside."
        return
    try:
        session.skip_response(store, who, response_id, st.session_state.get("skip_reason", ""))
    except ValueError as exc:
        st.session_state["notice"] = f"Not set aside: {exc}"
        return
    st.session_state["current_response"] = None
    queue_view.mark_dirty()
    st.session_state["skip_popover"] = False


def flag(store, who: str) -> None:
    response_id = st.session_state.get("current_response")
    if response_id is None:
        st.session_state["notice"] = "There is no response to flag."
        return
    try:
        # about the sentence whose question is on screen: the adjudicator reading it sees where
        shown = st.session_state.get(FLAGGED_SENTENCE_KEY)
        unit = Unit.of_sentence(shown[1]) if shown and shown[0] == response_id else None
        session.flag_for_guidelines(store, who, response_id, st.session_state.get("flag_text", ""), unit)
    except ValueError as exc:
        st.session_state["notice"] = f"Not flagged: {exc}"
        return
    st.session_state["notice"] = "Flagged; thank you. Carry on labelling."
    st.session_state["flag_popover"] = False


# -- the page ----------------------------------------------------------------------------------


def tools(store, who: str) -> None:
    """The timeline switch, Undo, Skip, Flag and the guidelines, on one line above the decision
    (outside it: a decision does not redraw them)."""
    with st.container(horizontal=True, gap="small", horizontal_alignment="right", key="annotate_tools"):
        st.toggle("Timeline of all citations", key="show_timeline")
        decisions.actions(
            undo=lambda: undo(store, who), skip=lambda: skip(store, who), flag=lambda: flag(store, who)
        )
        guidelines = st.popover("Guidelines", key="guidelines_popover", on_change="rerun")
        if guidelines.open:  # drawn only when open: nothing to send on every decision
            guidelines.markdown((APP_DIR / "assets" / "guidelines.md").read_text())
        own_flags(store, who)


def own_flags(store, who: str) -> None:
    """The person's flags with the adjudicators' answers (Disputes page), in a popover shown once
    they have flagged something; its content drawn only when open."""
    flags = project_flags(store, who=who)
    if not flags:
        return
    answered = sum(1 for f in flags if f.answer is not None)
    label = f"Your flags ({answered} answered)" if answered else "Your flags"
    mine = st.popover(label, icon=":material/flag:", key="own_flags_popover", on_change="rerun")
    if not mine.open:
        return
    with mine:
        for flag in flags:
            st.caption(literal(f"{flag.when} · {flag.where}"))
            show_text(flag.text)
            if flag.answer is None:
                st.caption("Waiting for an answer.")
            else:
                st.caption(literal(f"Answered by {flag.answer.who} · {flag.answer.when}"))
                show_text(flag.answer.text or "(marked dealt with, no reply)")


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
    elif getattr(store.user(who), "role", None) == "admin":  # lands here, and is in no pool unless named
        st.info(
            "No responses are assigned to you: unless named, the pool is every annotator. To annotate, "
            "name the pool with yourself in it (Admin → Queue and campaign)."
        )
    else:
        st.info("No responses are assigned to you yet; an admin adds you to the pool.")
    decisions.set_aside(queue.skipped, lambda rid: reopen(store, who, rid))


def facts_decision(store, who: str, work: ResponseWork, sentence, question: Question) -> None:
    """Stage 2: the fact list, restored from the person's saved draft when there is one, else
    the list they confirmed before an undo, else a proposal."""
    rid = work.response_id
    draft_key = f"draft:{rid}:{question.unit}"
    if draft_key not in st.session_state:
        saved = load_draft(store, who, rid, question.unit)
        if saved is None:
            saved = undone_fact_list(store, who, rid, question)
        if saved is None:
            judged = store.list_records("judge", response_id=rid)
            saved = propose_facts(question.sentence_index, sentence, judged, rule_based_facts, atomic_split)
        start_draft(draft_key, saved)
    decisions.shown_at(question.key(rid))
    facts_editor(
        sentence,
        draft_key,
        lambda facts: answer(store, who, work, question, facts),
        on_edit=lambda facts: save_draft(store, who, rid, question.unit, facts),
        guidance=False,
    )


def decision_header(sentence, question: Question, where: str) -> dict:
    """The decision's words: its stage and where it is, the question, what it is about."""
    header = {"stage": STAGE_NAMES[question.stage], "where": where, "note": ""}
    if question.kind == "facts":
        wording, subject, css = (
            "Split the highlighted sentence into atomic facts.",
            sentence.text,
            "murgat-sentence",
        )
        header["note"] = GUIDANCE
    elif question.kind == "verifiable":
        wording, subject, css = decisions.WORDING["verifiable"], sentence.text, "murgat-sentence"
    else:
        wording, subject, css = decisions.WORDING[question.kind], question.fact.text, "murgat-fact"
        # identical segments ("visual, 0:05; video, 0:05") once: the record keeps both citations
        about = ", ".join(
            dict.fromkeys(response_view.chip_label(sentence.citations[i]) for i in question.segments)
        )
        header["note"] = f"Segments: {about}"
        if question.kind == "without":
            removed = sentence.citations[question.fact.citations[question.j]]
            header["note"] = (
                f"Without {response_view.chip_label(removed)}; the other segments: {about or 'none'}"
            )
    return {**header, "wording": wording, "subject": subject, "subject_class": css}


def decision(
    store,
    who: str,
    work: ResponseWork,
    sentence,
    question: Question,
    where: str,
    players: int,
    cooldown_ms: int,
) -> None:
    """The decision's words and keys, then its answer controls."""
    rid = work.response_id
    decisions.panel(
        question, rid, decision_header(sentence, question, where), players=players, cooldown_ms=cooldown_ms
    )
    if question.kind == "facts":
        facts_decision(store, who, work, sentence, question)
    else:
        decisions.answer_buttons(rid, question, lambda value: answer(store, who, work, question, value))


def decisions_done(questions: list[Question], labels: dict, answered: int, waiting) -> str:
    """'8/12 decisions', or '8 of at least 12 decisions' while later questions are not known yet
    (stage 1 or 2 of the response unfinished, or waiting for gold): the total never seems to grow."""
    known = waiting is None and all(
        (q.unit, q.task) in labels for q in questions if q.stage < 3
    )  # every fact known, so every stage-3 question is planned
    return (
        f"{answered}/{len(questions)} decisions"
        if known
        else f"{answered} of at least {len(questions)} decisions"
    )


def segments_to_play(sentences, sentence, question: Question, chosen: int | None, timeline_key: str) -> list:
    """The citations the players show: one chosen on the timeline or among the chips, else
    every segment the question is about."""
    jump = timeline.jumped_to(timeline_key)
    if jump is not None:
        return [sentences[jump[0]].citations[jump[1]]]
    if chosen is not None:
        return [sentence.citations[chosen]]
    # one player per distinct segment (two citations of the same moment play the same thing)
    return list(dict.fromkeys(sentence.citations[i] for i in question.segments))


def annotate(me: Person, store) -> None:
    tools(store, me.name)
    decision_screen(me.name, store)


@st.fragment
def decision_screen(who: str, store) -> None:
    """Everything that changes with a decision, as a fragment: a decision reruns this, not the
    frame and the tools around it (so errors are caught here too: a fragment's rerun does not
    pass through the frame)."""
    with friendly_errors("the annotation page"):
        notice = st.session_state.pop("notice", None)
        if notice:
            st.toast(notice)
        decision_body(who, store)


def decision_body(who: str, store) -> None:
    """The person's next decision, from their work on the response as read once in this run (or
    as their answer left it)."""
    settings = ProjectSettings.of(store)  # once per run, one query, typed
    mode = normalise_campaign_mode(settings.campaign_mode)
    queue = queue_view.snapshot(store, who)
    item = queue_view.current_item(store, queue, mode, st.session_state.pop(ANSWERED_KEY, None))
    rid, work, question = item.response_id, item.work, item.question
    mine = queue.progress
    done = f"{mine.done} of {mine.assigned} responses done" + (
        f", {mine.skipped} set aside" if mine.skipped else ""
    )
    if rid is None:
        st.caption(done)
        empty_queue(store, who, queue, item.waiting)
        return
    response = store.response(rid)
    sentences = work.sentences
    sentence = sentences[question.sentence_index]
    st.session_state[FLAGGED_SENTENCE_KEY] = (rid, question.sentence_index)  # what a flag is about
    where = (
        f"{rid} · sentence {question.sentence_index + 1}/{len(sentences)}"
        f" · {decisions_done(work.questions, work.labels, work.answered, work.waiting)} · {done}"
    )
    pad_s = settings.pad_s
    timeline_key = f"timeline:{question.key(rid)}"  # a new question starts afresh
    chips_key = f"chips:{question.key(rid)}"
    to_play = segments_to_play(sentences, sentence, question, st.session_state.get(chips_key), timeline_key)
    # Two sides (styles.css: 11 to 9, stacked on a phone); no st.columns: fewer elements to send.
    screen = st.container(horizontal=True, gap="medium", key="murgat_screen")
    with screen.container(key="murgat_decision", border=True):
        decision(
            store,
            who,
            work,
            sentence,
            question,
            where,
            players=sum(c.valid for c in to_play),
            cooldown_ms=settings.key_cooldown_ms,
        )
        response_view.citation_chips(sentence, key=chips_key, playable=question.segments)
    with screen.container(key="murgat_context"):
        player.play_citations(
            store,
            response.video,
            to_play,
            pad_s,
            with_sound=True,
            key=question.key(rid),
            lead_in_s=settings.lead_in_s,
        )
        response_view.show_context(response, sentence)
        if st.session_state.get("show_timeline"):
            timeline.citation_timeline(store, response.video, sentences, timeline_key)
        decisions.set_aside(queue.skipped, lambda rid: reopen(store, who, rid))
    prefetch_players(store, queue, rid, pad_s)


def prefetch_players(store, queue, rid: str, pad_s: float) -> None:
    """Once per response and session, prepare in the background the players of every citation of
    this response and of the next in the queue: a decision then finds its clips, posters and
    sounds ready."""
    done = st.session_state.setdefault("players_prepared", set())
    following = [r for r in queue.assigned if r not in queue.done and r not in queue.skipped and r != rid]
    for response_id in [rid, *following[:1]]:
        if response_id in done:
            continue
        citations = [c for s in store.response_sentences(response_id) for c in s.citations]
        player.prefetch(store, store.response(response_id).video, list(dict.fromkeys(citations)), pad_s)
        done.add(response_id)


run_page(annotate, title="the annotation page")
