"""Named annotation queues (annotation/work/sample_queues.py): a reproducible stratified random
sample stored as a queue, and annotators asked those responses."""

import pytest

from annotation.protocol.records import Response, Sentence
from annotation.store.project_store import ProjectStore
from annotation.work.queues import assigned_response_ids, next_unfinished
from annotation.work.sample_queues import (
    annotation_response_ids,
    create_sample_queue,
    queue_state,
    queue_summaries,
    sample_queue,
    set_annotation_scope,
    stratified_sample,
)
from annotation.work.session import mark_done

STRATA = {"a": [f"a{i}" for i in range(10)], "b": [f"b{i}" for i in range(10)], None: ["x0", "x1"]}


@pytest.fixture
def store(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response(f"r{i}", f"text {i}"), [Sentence(f"text {i}.")]) for i in range(6)])
    for name in ("ann", "bea"):
        store.add_user(name, "annotator", None)
    store.set_setting("overlap", 1)
    return store


def test_a_stratified_sample_draws_the_asked_number_from_each_stratum_without_repeats():
    sample = stratified_sample(STRATA, {"a": 3, "b": 5}, seed=0)
    drawn = [rid for rid, _ in sample]
    assert len(set(drawn)) == len(drawn) == 8
    assert sorted(s for _, s in sample) == ["a"] * 3 + ["b"] * 5
    assert all(rid in STRATA[stratum] for rid, stratum in sample)


def test_the_same_seed_draws_the_same_sample_and_another_seed_another():
    assert stratified_sample(STRATA, {"a": 3}, seed=7) == stratified_sample(STRATA, {"a": 3}, seed=7)
    assert stratified_sample(STRATA, {"a": 3}, seed=7) != stratified_sample(STRATA, {"a": 3}, seed=8)


def test_a_stratum_smaller_than_its_count_gives_all_of_it():
    sample = stratified_sample(STRATA, {None: 5}, seed=0)
    assert sorted(rid for rid, _ in sample) == ["x0", "x1"]


def test_the_sample_interleaves_the_strata_so_a_half_done_queue_covers_each():
    sample = stratified_sample(STRATA, {"a": 2, "b": 3, None: 1}, seed=0)
    assert [s for _, s in sample] == [None, "a", "b", "a", "b", "b"]


def test_a_negative_sample_size_is_refused():
    with pytest.raises(ValueError, match="negative"):
        stratified_sample(STRATA, {"a": -1}, seed=0)


def test_a_created_queue_keeps_its_order_and_strata(store):
    summary = create_sample_queue(store, "next", [("r4", "m"), ("r1", "n"), ("r2", "m")])
    assert (summary.name, summary.size, summary.strata) == ("next", 3, {"m": 2, "n": 1})
    assert sample_queue(store, "next") == [("r4", "m"), ("r1", "n"), ("r2", "m")]


@pytest.mark.parametrize(
    ("name", "sample", "why"),
    [
        (" ", [("r1", None)], "needs a name"),
        ("q", [], "empty"),
        ("q", [("r1", None), ("r1", None)], "twice"),
        ("q", [("r1", None), ("nope", None)], "not in the project: nope"),
    ],
)
def test_a_bad_queue_is_refused_and_nothing_is_written(store, name, sample, why):
    with pytest.raises(ValueError, match=why):
        create_sample_queue(store, name, sample)
    assert queue_summaries(store) == []


def test_a_queue_name_is_used_once(store):
    create_sample_queue(store, "next", [("r1", None)])
    with pytest.raises(ValueError, match="exists already"):
        create_sample_queue(store, "next", [("r2", None)])
    assert sample_queue(store, "next") == [("r1", None)]


def test_queued_responses_are_asked_first_then_the_rest_in_import_order(store):
    create_sample_queue(store, "first", [("r4", None), ("r2", None)])
    create_sample_queue(store, "second", [("r2", None), ("r5", None)])
    assert annotation_response_ids(store) == ["r4", "r2", "r5", "r0", "r1", "r3"]


def test_a_project_that_asks_only_queued_responses_asks_nothing_else(store):
    set_annotation_scope(store, "queues")
    assert annotation_response_ids(store) == []
    create_sample_queue(store, "first", [("r3", None), ("r1", None)])
    assert annotation_response_ids(store) == ["r3", "r1"]
    assert assigned_response_ids(store, "ann") + assigned_response_ids(store, "bea") == ["r3", "r1"]


def test_a_new_queue_reaches_an_annotator_who_had_finished_everything(store):
    set_annotation_scope(store, "queues")
    create_sample_queue(store, "first", [("r0", None), ("r1", None)])
    for rid in assigned_response_ids(store, "ann"):
        mark_done(store, "ann", rid)
    assert next_unfinished(store, "ann") is None
    create_sample_queue(store, "more", [("r5", None), ("r3", None)])
    assert next_unfinished(store, "ann") in {"r5", "r3"}


def test_work_done_outside_the_queues_stays_with_its_annotator(store):
    mark_done(store, "bea", "r5")
    set_annotation_scope(store, "queues")
    assert "r5" in assigned_response_ids(store, "bea")


def test_the_queue_state_changes_with_a_new_queue_or_scope(store):
    before = queue_state(store)
    create_sample_queue(store, "first", [("r0", None)])
    after_queue = queue_state(store)
    set_annotation_scope(store, "queues")
    assert len({before, after_queue, queue_state(store)}) == 3


def test_an_unknown_scope_is_refused(store):
    with pytest.raises(ValueError, match="queues"):
        set_annotation_scope(store, "some")
