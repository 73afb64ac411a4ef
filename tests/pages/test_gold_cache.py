"""The disputes page's kept gold set: after new events, re-deriving only the responses they touch and
splicing them in gives exactly what a whole derivation gives; a ruling shows by its own value at
once, and exactly once its response is re-derived in the background."""

import streamlit as st
from app_support import tiny_project

from annotation.agreement.gold import Ruling, adjudicate, gold_from_store
from annotation.protocol.ids import fact_unit
from pages.widgets.gold_cache import current_gold, note_ruling, splice

LIGHT = [{"text": "A red light blinks.", "citations": [0]}]


def labelled(directory):
    store = tiny_project(directory)
    for who, answer in (("ann", True), ("bob", False)):
        store.events.append(who, "r1", "s0", "verifiable", answer)
        store.events.append(who, "r2", "s0", "verifiable", True)
        store.events.append(who, "r2", "s0", "facts", LIGHT)
        store.events.append(who, "r2", fact_unit(0, LIGHT[0]["text"], [0]), "all", answer)
    return store


def same(a, b) -> bool:
    shown = [(v.key, v.fact, v.question, v.value, v.provenance, v.agreement) for v in a.values]
    return shown == [(v.key, v.fact, v.question, v.value, v.provenance, v.agreement) for v in b.values] and [
        r.to_dict() for r in a.records
    ] == [r.to_dict() for r in b.records]


def test_a_ruling_spliced_into_the_kept_gold_equals_a_whole_derivation(tmp_path):
    store = labelled(tmp_path / "p")
    kept, since = gold_from_store(store), store.events.last_id()
    adjudicate(store, "ada", "r1", "s0", "verifiable", True, "annotator error")
    changed = store.events.response_ids_since(since)
    assert changed == {"r1"}
    spliced = splice(kept, gold_from_store(store, changed), changed)
    assert same(spliced, gold_from_store(store)) and not same(spliced, kept)


def test_a_stage_one_ruling_that_removes_facts_splices_like_a_whole_derivation(tmp_path):
    store = labelled(tmp_path / "p")
    kept, since = gold_from_store(store), store.events.last_id()
    adjudicate(store, "ada", "r2", "s0", "verifiable", False)  # r2's fact and its stage-3 dispute go
    store.events.append("ann", "r1", "s0", "verifiable", False)  # and ann changes her mind on r1
    changed = store.events.response_ids_since(since)
    spliced = splice(kept, gold_from_store(store, changed), changed)
    assert same(spliced, gold_from_store(store))
    assert not [v for v in spliced.disputes() if v.question == "all"]


def test_a_response_new_to_the_kept_gold_asks_for_a_whole_derivation(tmp_path):
    store = tiny_project(tmp_path / "p")
    store.events.append("ann", "r1", "s0", "verifiable", True)
    kept, since = gold_from_store(store), store.events.last_id()
    store.events.append("ann", "r2", "s0", "verifiable", True)
    changed = store.events.response_ids_since(since)
    assert splice(kept, gold_from_store(store, changed), changed) is None


def test_a_ruling_shows_at_once_and_its_response_is_re_derived_exactly(tmp_path):
    st.session_state.clear()  # bare mode: one session state for the whole test process
    store = labelled(tmp_path / "p")
    before = current_gold(store)
    disputed = next(v for v in before.values if (v.response_id, v.question) == ("r2", "verifiable"))
    event_id = adjudicate(store, "ada", "r2", "s0", "verifiable", False)  # r2's fact disputes go
    note_ruling(store, disputed, Ruling("ada", False, None, event_id))

    at_once = {v.key: v for v in current_gold(store).values}[disputed.key]
    assert (at_once.value, at_once.provenance, at_once.needs_ruling) == (False, "adjudicated:ada", False)
    exact = current_gold(store, exact=True)
    assert same(exact, gold_from_store(store))
    assert not [v for v in exact.disputes() if v.response_id == "r2" and v.question == "all"]


def test_labels_written_by_others_meanwhile_are_re_derived_too(tmp_path):
    st.session_state.clear()
    store = labelled(tmp_path / "p")
    current_gold(store)
    store.events.append("ann", "r1", "s0", "verifiable", False)  # another session's label
    assert same(current_gold(store), gold_from_store(store))
