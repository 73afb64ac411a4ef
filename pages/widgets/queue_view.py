"""The signed-in person's queue, kept in session state between reruns and refreshed only
when it can have changed (a response finished, undone, skipped, reopened, or the queue
settings changed), so a label click does not re-read the whole queue."""
from __future__ import annotations

import streamlit as st

from annotation.protocol.records import EvaluationRecord
from annotation.work import queues, session
from annotation.work.labels import labels_by_unit


def mark_dirty() -> None:
    """Re-read the queue on the next run (something it depends on changed)."""
    st.session_state["queue_dirty"] = True


def _settings_key(store) -> tuple:
    return (store.count_responses(), tuple(queues.pool(store)), queues.overlap(store),
            store.get_setting("campaign_mode"))


def snapshot(store, who: str) -> dict:
    """{'assigned': [ids], 'done': set, 'skipped': {id: reason}, 'gold': {id: record}}."""
    key = _settings_key(store)
    cached = st.session_state.get("queue")
    if cached is not None and cached["key"] == key and not st.session_state.pop("queue_dirty", False):
        return cached
    staged = session.normalise_campaign_mode(key[3]) == "staged"
    cached = {"key": key, "assigned": queues.assigned_response_ids(store, who),
              "done": queues.done_response_ids(store, who),
              "skipped": queues.skipped_response_ids(store, who),
              "gold": _gold_records(store) if staged else {}}
    st.session_state["queue"] = cached
    return cached


def _gold_records(store) -> dict[str, EvaluationRecord]:
    return {r.response_id: r for r in store.list_records(source="gold")}


def progress_of(queue: dict) -> queues.Progress:
    mine = set(queue["assigned"])
    done = queue["done"] & mine
    return queues.Progress("me", len(mine), len(done), len(set(queue["skipped"]) & mine - done))


def current_item(store, who: str, mode: str):
    """(response_id, labels, question, waiting_ids) of what to show now; response_id None
    when nothing is left to do. A response found complete is marked done on the way."""
    waiting: list[str] = []
    for _ in range(10_000):
        queue = snapshot(store, who)
        rid = st.session_state.get("current_response")
        finished = queue["done"] | set(queue["skipped"]) | set(waiting)
        if rid is None or rid in finished:
            rid = next((r for r in queue["assigned"] if r not in finished), None)
        if rid is None:
            return None, {}, None, waiting
        st.session_state["current_response"] = rid
        labels = labels_by_unit(store.events.current_labels(who, rid))
        result = session.next_question(store.response_sentences(rid), labels, mode, queue["gold"].get(rid))
        if isinstance(result, session.Question):
            return rid, labels, result, waiting
        if result is None:
            if not session.is_done(labels):
                session.mark_done(store, who, rid)
            queue["done"].add(rid)  # the only change: no need to re-read the whole queue
        else:
            waiting.append(rid)
        st.session_state["current_response"] = None
    raise RuntimeError("the queue did not settle")  # unreachable: each pass finishes one response
