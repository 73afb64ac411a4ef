"""Assignment with overlap, progress and resume (annotation/queues.py)."""

import pytest

from annotation.protocol.records import Response, Sentence
from annotation.store.project_store import ProjectStore
from annotation.work.queues import (
    assigned_response_ids,
    is_assigned,
    next_unfinished,
    overlap,
    pool,
    progress,
    skipped_response_ids,
    team_progress,
    unskip,
)
from annotation.work.session import mark_done, skip_response


@pytest.fixture
def store(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response(f"r{i}", f"text {i}"), [Sentence(f"text {i}.")]) for i in range(4)])
    for name in ("ann", "bea", "cat"):
        store.add_user(name, "annotator", None)
    store.add_user("boss", "admin", None)
    store.set_setting("overlap", 2)
    return store


def test_round_robin_gives_each_response_exactly_overlap_members():
    for position in range(7):
        assert sum(is_assigned(position, m, 3, 2) for m in range(3)) == 2


def test_overlap_larger_than_pool_gives_everyone_everything():
    assert all(is_assigned(p, m, 2, 5) for p in range(3) for m in range(2))


def test_pool_defaults_to_annotator_accounts(store):
    assert pool(store) == ["ann", "bea", "cat"]


def test_pool_setting_ignores_unknown_names(store):
    store.set_setting("pool", ["cat", "ghost", "boss"])
    assert pool(store) == ["boss", "cat"]


def test_overlap_setting_is_at_least_one(store):
    store.set_setting("overlap", 0)
    assert overlap(store) == 1


def test_assignment_with_overlap_two_of_three(store):
    # position p starts at member (2p mod 3): r0→ann,bea  r1→cat,ann  r2→bea,cat  r3→ann,bea
    assert assigned_response_ids(store, "ann") == ["r0", "r1", "r3"]
    assert assigned_response_ids(store, "cat") == ["r1", "r2"]


def test_touched_response_stays_assigned_after_leaving_the_pool(store):
    store.events.append("cat", "r2", "s0", "verifiable", True)
    store.set_setting("pool", ["ann", "bea"])
    assert assigned_response_ids(store, "cat") == ["r2"]


def test_next_unfinished_resumes_after_the_done_ones(store):
    mark_done(store, "ann", "r0")
    assert next_unfinished(store, "ann") == "r1"


def test_undone_done_mark_puts_the_response_back_in_the_queue(store):
    mark_done(store, "ann", "r0")
    store.events.undo_last("ann")
    assert next_unfinished(store, "ann") == "r0"


def test_skipped_response_is_passed_over_with_its_reason(store):
    skip_response(store, "ann", "r0", "video is black")
    assert next_unfinished(store, "ann") == "r1"
    assert skipped_response_ids(store, "ann") == {"r0": "video is black"}


def test_unskip_returns_the_response_to_the_queue(store):
    skip_response(store, "ann", "r0", "video is black")
    unskip(store, "ann", "r0")
    assert next_unfinished(store, "ann") == "r0"


def test_queue_is_empty_when_everything_is_done(store):
    for rid in ("r1", "r2"):
        mark_done(store, "cat", rid)
    assert next_unfinished(store, "cat") is None


def test_progress_counts_done_and_skipped_of_assigned(store):
    mark_done(store, "ann", "r0")
    skip_response(store, "ann", "r1", "no audio")
    assert progress(store, "ann").to_dict() == {
        "who": "ann",
        "assigned": 3,
        "done": 1,
        "skipped": 1,
        "remaining": 1,
    }


def test_team_progress_sums_over_the_pool(store):
    mark_done(store, "bea", "r0")
    rows, total = team_progress(store)
    assert [r.who for r in rows] == ["ann", "bea", "cat"]
    assert (total.assigned, total.done) == (8, 1)


def test_team_progress_counts_annotators_only_not_an_adjudicators_rulings(store):
    store.add_user("ada", "adjudicator", None)
    store.events.append("ada", "r0", "s0", "gold.verifiable", {"value": True, "reason": None})
    store.events.append("boss", "r1", "s0", "verifiable", True)
    rows, total = team_progress(store)
    assert [r.who for r in rows] == ["ann", "bea", "cat"]
    assert total.assigned == 8
