"""The signed-in person's queue, kept in session state between reruns and read again only when
it can have changed (a response finished, undone, skipped, reopened, or the queue settings
changed), so a label click does not re-read the whole queue. What the queue holds and what is
asked next are `annotation.work.queues`'s; this module only caches them."""

from __future__ import annotations

import streamlit as st

from annotation.work import queues, sample_queues
from annotation.work.session import ResponseWork, normalise_campaign_mode
from pages.widgets.context import current_state


def mark_dirty() -> None:
    """Re-read the queue on the next run (something it depends on changed)."""
    st.session_state["queue_dirty"] = True


def _settings_key(store) -> tuple:
    return (
        store.count_responses(),
        tuple(queues.pool(store)),
        queues.overlap(store),
        store.get_setting("campaign_mode"),
        sample_queues.queue_state(store),  # a new named queue changes what is asked
    )


def snapshot(store, who: str) -> queues.Queue:
    """The person's queue, from session state unless something it depends on changed."""
    key = _settings_key(store)
    cached = st.session_state.get("queue")
    if cached is not None and cached[0] == key and not st.session_state.pop("queue_dirty", False):
        return cached[1]
    staged = normalise_campaign_mode(key[3]) == "staged"
    gold = current_state(store).gold_so_far_by_response() if staged else {}
    queue = queues.read_queue(store, who, gold)
    st.session_state["queue"] = (key, queue)
    return queue


def current_item(store, queue: queues.Queue, mode: str, known: ResponseWork | None = None) -> queues.NextItem:
    """What to show now; the response shown stays current until it is finished. `known`: the
    person's work as their answer left it (not read again)."""
    item = queues.next_item(store, queue, mode, st.session_state.get("current_response"), known)
    st.session_state["current_response"] = item.response_id
    return item
