"""Stage-2 drafts (annotation/work/drafts.py): saved as a person edits, restored later, never labels."""

import pytest
from app_support import tiny_project

from annotation.work.drafts import discard_draft, load_draft, save_draft
from annotation.work.session import plan, record_answer


@pytest.fixture
def store(tmp_path):
    return tiny_project(tmp_path / "p")


FACTS = [{"text": "A man points.", "citations": [0]}, {"text": "", "citations": []}]


def test_a_saved_draft_comes_back_as_it_was_left(store):
    save_draft(store, "ann", "r1", "s0", FACTS)
    assert load_draft(store, "ann", "r1", "s0") == FACTS


def test_a_later_draft_replaces_the_earlier_one(store):
    save_draft(store, "ann", "r1", "s0", FACTS)
    save_draft(store, "ann", "r1", "s0", [{"text": "Edited.", "citations": [0]}])
    assert load_draft(store, "ann", "r1", "s0") == [{"text": "Edited.", "citations": [0]}]


def test_drafts_are_per_person_response_and_sentence(store):
    save_draft(store, "ann", "r1", "s0", FACTS)
    assert load_draft(store, "bob", "r1", "s0") is None
    assert load_draft(store, "ann", "r2", "s0") is None and load_draft(store, "ann", "r1", "s1") is None


def test_a_draft_is_not_a_label(store):
    save_draft(store, "ann", "r1", "s0", FACTS)
    assert store.events.current_labels("ann", "r1") == []


def test_a_discarded_draft_is_gone(store):
    save_draft(store, "ann", "r1", "s0", FACTS)
    discard_draft(store, "ann", "r1", "s0")
    assert load_draft(store, "ann", "r1", "s0") is None


def test_confirming_the_facts_discards_the_draft(store):
    for i in range(3):
        store.events.append("ann", "r1", f"s{i}", "verifiable", i == 0)
    labels = {(e.unit, e.task): e.value for e in store.events.current_labels("ann", "r1")}
    facts_question = next(q for q in plan(store.response_sentences("r1"), labels)[0] if q.kind == "facts")
    save_draft(store, "ann", "r1", "s0", FACTS)
    record_answer(store, "ann", "r1", facts_question, [{"text": "A man points.", "citations": [0]}])
    assert load_draft(store, "ann", "r1", "s0") is None
