"""Annotate: the signed-in person's next unfinished response, one decision at a time.

Stage 1 (verifiable?), stage 2 (atomic facts), stage 3 (entailment, only what PROTOCOL §2
cannot derive), each next to a player for exactly the segments it is about. Every decision
is written to the event log at once; only this person's own labels are ever read here.
"""

from __future__ import annotations

import streamlit as st

from annotation.work.proposals import rule_based_facts
from annotation.work.session import Question, normalise_campaign_mode, plan, propose_facts
from pages.widgets import decisions, player, queue_view, response_view, sound, timeline
from pages.widgets.context import APP_DIR, literal, show_text
from pages.widgets.facts_editor import facts_editor, start_draft
from pages.widgets.frame import run_page

STAGE_NAMES = {1: "Stage 1 · verifiable sentences", 2: "Stage 2 · atomic facts", 3: "Stage 3 · entailment"}


def header():
    """The guidelines button and any notice; returns the slot for the progress bar."""
    left, right = st.columns([4, 1])
    with right.popover("Guidelines", icon=":material/menu_book:", width="stretch"):
        st.markdown((APP_DIR / "assets" / "guidelines.md").read_text())
    notice = st.session_state.pop("notice", None)
    if notice:
        st.toast(notice)  # our own words only (no typed or imported text)
    return left


def empty_queue(store, who: str, queue: dict, waiting: list[str]) -> None:
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


def decision(store, who: str, rid: str, sentence, question: Question) -> None:
    """The question in words and its answer controls."""
    if question.kind == "verifiable":
        st.markdown(f"**{decisions.WORDING['verifiable']}**")
        show_text(sentence.text, "murgat-sentence")
        decisions.answer_buttons(store, who, rid, question)
    elif question.kind == "facts":
        st.markdown("**Split the highlighted sentence into atomic facts.**")
        draft_key = f"draft:{rid}:{question.unit}"
        if draft_key not in st.session_state:
            judged = store.list_records("judge", response_id=rid)
            start_draft(draft_key, propose_facts(question.sentence_index, sentence, judged, rule_based_facts))
        decisions.shown_at(question.key(rid))
        facts_editor(
            sentence, draft_key, lambda facts: decisions.confirm_facts(store, who, rid, question, facts)
        )
    else:
        st.markdown("**Fact**")
        show_text(question.fact.text, "murgat-fact")
        st.markdown(f"**{decisions.WORDING[question.kind]}**")
        about = ", ".join(response_view.chip_label(sentence.citations[i]) for i in question.segments)
        if question.kind == "without":
            removed = sentence.citations[question.fact.citations[question.j]]
            st.caption(
                literal(f"Without {response_view.chip_label(removed)}; the other segments: {about or 'none'}")
            )
        else:
            st.caption(literal(f"Segments: {about}"))
        decisions.answer_buttons(store, who, rid, question)


def media_panel(
    store,
    response,
    sentences,
    sentence,
    question: Question,
    chosen: int | None,
    pad_s: float,
    upcoming: list[Question],
) -> None:
    """Players for what the question is about (or the chip / timeline choice), the sound
    view on request, the citation timeline, and background preparation of the next clips."""
    timeline_key = f"timeline:{question.key(response.response_id)}"  # a new question starts afresh
    jump = timeline.jumped_to(timeline_key)
    if jump is not None:
        to_play = [sentences[jump[0]].citations[jump[1]]]
        st.caption(f"From the timeline: sentence {jump[0] + 1}")
    elif chosen is not None:
        to_play = [sentence.citations[chosen]]
    else:
        to_play = [sentence.citations[i] for i in question.segments]
    play_all = len(to_play) > 1 and st.toggle("Play all together", key="play_all")
    for citation in to_play:
        player.play_citation(store, response.video, citation, pad_s, autoplay=play_all)
    audio = [c for c in to_play if c.valid and c.modality == "audio"]
    if audio and st.toggle("See the sound", key="see_sound"):
        for citation in audio:
            sound.sound_view(store, response.video, citation, pad_s)
    if st.toggle("Timeline of all citations", key="show_timeline"):
        timeline.citation_timeline(store, response.video, sentences, timeline_key)
    player.prefetch(
        store,
        response.video,
        [sentences[q.sentence_index].citations[i] for q in upcoming for i in q.segments],
        pad_s,
    )


def annotate(me: dict, store) -> None:
    who = me["name"]
    mode = normalise_campaign_mode(store.get_setting("campaign_mode"))
    pad_s = float(store.get_setting("pad_s", 1.0))
    progress_slot = header()
    item = queue_view.current_item(store, who, mode)
    rid, labels, question, waiting = item.response_id, item.labels, item.question, item.waiting
    queue = queue_view.snapshot(store, who)
    mine = queue.progress
    progress_slot.progress(
        mine.done / mine.assigned if mine.assigned else 1.0,
        text=f"{mine.done} of {mine.assigned} responses done"
        + (f", {mine.skipped} set aside" if mine.skipped else ""),
    )
    if rid is None:
        empty_queue(store, who, queue, waiting)
        return
    response = store.response(rid)
    sentences = store.response_sentences(rid)
    sentence = sentences[question.sentence_index]
    questions, _ = plan(sentences, labels, mode, queue.gold.get(rid))
    open_questions = [q for q in questions if (q.unit, q.task) not in labels]

    st.subheader(f"{STAGE_NAMES[question.stage]}  ·  response {literal(rid)}")
    st.caption(
        f"Sentence {question.sentence_index + 1} of {len(sentences)} · "
        f"{len(questions) - len(open_questions)} of {len(questions)} decisions known so far · "
        f"{'staged' if mode == 'staged' else 'end-to-end'} campaign"
    )
    text_side, media_side = st.columns([3, 2], gap="large")
    with text_side:
        response_view.show_response_text(response, sentence)
        chosen = response_view.citation_chips(
            sentence, key=f"chips:{question.key(rid)}", playable=question.segments
        )
        st.divider()
        decision(store, who, rid, sentence, question)
        st.divider()
        decisions.actions(store, who, rid, queue.skipped)
    with media_side:
        response_view.show_question(response)
        media_panel(store, response, sentences, sentence, question, chosen, pad_s, open_questions[1:3])


run_page(annotate, title="the annotation page")
