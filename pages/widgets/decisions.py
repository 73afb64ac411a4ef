"""The decision controls: one button per answer (with a key), and the response-level
actions undo, skip with a reason, and flag for the guidelines. They lay out only: each click
calls the callback it is given (pages/annotate.py's controller), which writes to the event log
before the rerun that shows the next question."""

from __future__ import annotations

import time

import streamlit as st

from annotation.work import session
from pages.widgets import keys

WORDING = {
    "verifiable": "Does this sentence state something directly observable in the video or its audio?",
    "all": "Do the cited segments, taken together, support the fact?",
    "alone": "Does this one segment, by itself, support the fact?",
    "without": "Is the fact still supported by the other segments, without this one?",
}
CANT_TELL_KEY = "T"  # C and R are Streamlit's own (clear cache, rerun)
REASONS_KEY = "cant_tell_open"  # the question whose "can't tell" reasons are on screen
# The player's keys (assets/player.js), shown with the decision's own.
PLAYER_KEYS = [("L", "lead-in"), ("O", "loop"), ("S", "slow"), (",/.", "frame")]
ANSWERS = {
    "verifiable": (("Verifiable", "V", True), ("Not verifiable", "N", False)),
    "entailment": (("Yes, supported", "Y", True), ("No", "N", False)),
}


def panel(
    question: session.Question,
    response_id: str,
    header: dict,
    *,
    players: int,
    cooldown_ms: int,
) -> None:
    """The decision's words (`header`: stage, where, wording, subject, subject_class, note) and
    its keys, as one element (see pages.widgets.keys.legend)."""
    if question.kind == "facts":
        # the first fact field has the focus (assets/keys.js): a letter types there until Esc
        pairs = [("Ctrl+Enter", "confirm facts"), ("Esc", "leave the fact field, then")]
    elif reasons_open(question.key(response_id)):
        pairs = [(str(n), reason) for n, reason in enumerate(session.CANT_TELL_REASONS, start=1)]
    else:
        answers = ANSWERS["verifiable" if question.kind == "verifiable" else "entailment"]
        pairs = [(key, label.lower().removesuffix(", supported")) for label, key, _ in answers]
        if question.stage == 3:
            pairs.append((CANT_TELL_KEY, "can't tell"))
    pairs.append(("U", "undo"))
    if players:
        pairs.append(("P", "play all" if players > 1 else "play"))
        pairs += PLAYER_KEYS
    keys.legend(
        pairs, question.key(response_id), cooldown_ms=cooldown_ms, play_all=players > 1, header=header
    )


def shown_at(item_key: str) -> float:
    """When the item was first shown in this session (the start of its time on task)."""
    clock = st.session_state.setdefault("shown_at", {})
    return clock.setdefault(item_key, time.monotonic())


def spent_ms(item_key: str) -> int:
    started = st.session_state.get("shown_at", {}).pop(item_key, None)
    return None if started is None else int((time.monotonic() - started) * 1000)


def answer_buttons(response_id: str, question: session.Question, on_answer) -> None:
    """Yes/no buttons for a stage-1 or stage-3 question (keys V/N or Y/N); on stage 3 a "Can't
    tell" button (T) that asks for the reason (keys 1-3 or a reason typed). A click calls
    `on_answer(value)`."""
    shown_at(question.key(response_id))
    if reasons_open(question.key(response_id)):
        cant_tell_reasons(response_id, question, on_answer)
        return
    answers = ANSWERS["verifiable" if question.kind == "verifiable" else "entailment"]
    row = st.container(horizontal=True, gap="small")  # side by side on a phone too
    if question.stage == 3:
        answers = (*answers, ("Can't tell", CANT_TELL_KEY, None))
    for label, key, value in answers:
        if value is None:
            row.button(
                label,
                key=f"cant_tell:{question.key(response_id)}",
                shortcut=key,
                width="stretch",
                help="The segments cannot show it either way (inaudible, unreadable, does not play)",
                on_click=_open_reasons,
                args=(question.key(response_id),),
            )
            continue
        # The question is in the key: a click on the button of the question before (still on
        # screen while the page redraws) then runs that question's callback, which refuses it,
        # instead of answering the new question unseen.
        row.button(
            label,
            key=f"answer:{value}:{question.key(response_id)}",
            shortcut=key,
            width="stretch",
            on_click=on_answer,
            args=(value,),
        )


def reasons_open(item_key: str) -> bool:
    return st.session_state.get(REASONS_KEY) == item_key


def _open_reasons(item_key: str) -> None:
    st.session_state[REASONS_KEY] = item_key


def _close_reasons() -> None:
    st.session_state.pop(REASONS_KEY, None)


def _cant_tell(item: str, on_answer, reason: str | None = None) -> None:
    typed = st.session_state.get(f"cant_tell_reason:{item}", "")
    try:
        value = session.cant_tell_answer(typed if reason is None else reason)
    except ValueError as exc:
        st.session_state["notice"] = f"Not recorded: {exc}."
        return
    _close_reasons()
    on_answer(value)


def cant_tell_reasons(response_id: str, question: session.Question, on_answer) -> None:
    """Why the person cannot tell: a preset reason (keys 1-3), or their own words; or back."""
    item = question.key(response_id)
    st.caption("Why can't you tell?")
    row = st.container(horizontal=True, gap="small")
    for n, reason in enumerate(session.CANT_TELL_REASONS, start=1):
        row.button(
            reason.capitalize(),
            key=f"cant_tell_reason:{n}:{item}",
            shortcut=str(n),
            on_click=_cant_tell,
            args=(item, on_answer, reason),
        )
    with st.form(f"cant_tell_form:{item}", border=False, clear_on_submit=True):
        line = st.container(horizontal=True, gap="small", vertical_alignment="bottom")
        line.text_input("Another reason", key=f"cant_tell_reason:{item}", placeholder="Another reason")
        line.form_submit_button("Can't tell", on_click=_cant_tell, args=(item, on_answer))
    st.button("Back to the question", key=f"cant_tell_back:{item}", type="tertiary", on_click=_close_reasons)


def actions(undo, skip, flag) -> None:
    """Undo, skip (reason required) and flag (text required), side by side, about the response
    on screen; each calls its callback. A popover's form is drawn only while it is open (nothing
    to send on every decision)."""
    st.button("Undo", key="undo", shortcut="U", help="Undo your last decision", on_click=undo)
    skip_popover = st.popover(
        "Skip", help="Set this response aside, with a reason", key="skip_popover", on_change="rerun"
    )
    if skip_popover.open:
        with skip_popover, st.form("skip_form", clear_on_submit=True):
            st.text_input("Why do you skip it?", key="skip_reason")
            st.form_submit_button("Set it aside", on_click=skip)
    flag_popover = st.popover(
        "Flag", help="Flag a case the guidelines should settle", key="flag_popover", on_change="rerun"
    )
    if flag_popover.open:
        with flag_popover, st.form("flag_form", clear_on_submit=True):
            st.text_area("What should the guidelines settle?", key="flag_text")
            st.form_submit_button("Send the flag", on_click=flag)


def set_aside(skipped: dict[str, str], reopen) -> None:
    """The responses this person skipped, each with its reason and a way back (`reopen(rid)`)."""
    if skipped:
        with st.expander(f"Set aside ({len(skipped)})"):
            for rid, reason in skipped.items():
                first, second = st.columns([3, 1])
                first.text(f"{rid}: {reason}")
                second.button("Reopen", key=f"reopen:{rid}", on_click=reopen, args=(rid,))
