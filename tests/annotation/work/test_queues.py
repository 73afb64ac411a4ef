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
    # the ruling on r0 takes no one's place; boss's label on r1 is one of its two: one more of the pool
    assert sum("r0" in assigned_response_ids(store, who) for who in ("ann", "bea", "cat")) == 2
    assert total.assigned == 7


# -- the pool changing mid-campaign (QA: adding a person reshuffled everyone's work) ----------------
def labelled(store, who: str, *rids: str) -> None:
    for rid in rids:
        store.events.append(who, rid, "s0", "verifiable", True)


@pytest.fixture
def six(tmp_path):
    """Six responses, overlap 2, pool ann, bea, cat: r0 ann,bea · r1 cat,ann · r2 bea,cat ·
    r3 ann,bea · r4 cat,ann · r5 bea,cat (round robin from 2p mod 3)."""
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response(f"r{i}", f"text {i}"), [Sentence(f"text {i}.")]) for i in range(6)])
    for name in ("ann", "bea", "cat"):
        store.add_user(name, "annotator", None)
    store.set_setting("overlap", 2)
    return store


def people_of(store) -> dict[str, list[str]]:
    names = pool(store)
    return {
        rid: [who for who in names if rid in assigned_response_ids(store, who)]
        for rid in store.response_ids()
    }


def test_before_anyone_starts_assignment_is_plain_round_robin(six):
    assert people_of(six) == {
        "r0": ["ann", "bea"], "r1": ["ann", "cat"], "r2": ["bea", "cat"],
        "r3": ["ann", "bea"], "r4": ["ann", "cat"], "r5": ["bea", "cat"],
    }  # fmt: skip


def test_a_newcomer_takes_the_work_nobody_started_and_no_response_gets_more_than_overlap(six):
    labelled(six, "ann", "r0", "r1", "r3", "r4")  # ann has done her share
    six.add_user("dan", "annotator", None)
    people = people_of(six)
    assert all(len(who) == 2 for who in people.values())  # overlap kept: 12 places, not more
    assert [rid for rid, who in people.items() if "ann" in who] == ["r0", "r1", "r3", "r4"]  # no new work
    assert sorted(len([r for r, who in people.items() if name in who]) for name in ("bea", "cat", "dan")) == [
        2, 3, 3
    ]  # the remaining eight places spread over the others  # fmt: skip


def test_a_response_its_people_started_keeps_them_when_the_pool_grows(six):
    labelled(six, "bea", "r2")
    labelled(six, "cat", "r2")
    six.add_user("dan", "annotator", None)
    assert people_of(six)["r2"] == ["bea", "cat"]


def test_someone_who_left_the_pool_still_counts_on_what_they_started(six):
    labelled(six, "cat", "r1")
    six.set_setting("pool", ["ann", "bea"])
    assert people_of(six)["r1"] == ["ann"]  # and cat: two in all
    assert assigned_response_ids(six, "cat") == ["r1"]


def test_work_an_answer_left_is_planned_again_once_the_campaign_mode_has_changed(tmp_path):
    from annotation.protocol.citations import Citation
    from annotation.work.queues import next_item, read_queue
    from annotation.work.session import answer, open_response

    store = ProjectStore.open(tmp_path / "p", create=True)
    cited = Sentence("The man points (visual, 0:12).", citations=[Citation("visual", 12.0, 12.0)])
    store.add_responses([(Response("r0", cited.text), [cited])])
    store.add_user("ann", "annotator", None)
    work = open_response(store, "ann", "r0", "end_to_end")
    left = answer(store, "ann", work, work.question, True)  # the page drew it end to end
    store.set_setting("campaign_mode", "staged")  # the admin switches meanwhile
    assert left.question.kind == "facts"  # end to end, the facts come next
    item = next_item(store, read_queue(store, "ann"), "staged", "r0", left)
    # staged, they wait for the sentence's gold: not asked before it, as the stale plan would
    assert (item.response_id, item.waiting) == (None, ("r0",))
    assert (
        next_item(store, read_queue(store, "ann"), "end_to_end", "r0", left).work is left
    )  # unchanged: kept
