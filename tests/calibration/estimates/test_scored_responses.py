"""`scored_responses` per revision: a label that leaves every gold score as it was hands on the same
rows (so the Model scores page does not estimate 50,000 responses again), and one that changes a
gold score gives rows with the new score."""

from __future__ import annotations

import pytest

from annotation.demo.labellers import JUDGE_CONFIGS, judge_source
from annotation.protocol.ids import VERIFIABLE_TASK, Unit
from annotation.protocol.records import EvaluationRecord
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from calibration.estimates.inputs import calibrated_mode, judge_sources, scored_responses

MODE = "individual"


@pytest.fixture
def store(demo_copy):
    return ProjectStore.open(demo_copy)


def unanimous_sentence(store) -> tuple[str, int, bool]:
    """(response, sentence, answer) of a gold sentence whose stage-1 answer every annotator gave."""
    for record in project_state(store).gold.records:
        for index, sentence in enumerate(record.sentences):
            labels = {
                (event.who, event.value)
                for event in store.events.current_labels(response_id=record.response_id)
                if event.unit == Unit.of_sentence(index) and event.task == VERIFIABLE_TASK
            }
            if len(labels) == 3 and len({value for _, value in labels}) == 1:
                return record.response_id, index, sentence.verifiable
    raise AssertionError("the demo has no unanimous stage-1 sentence")


def test_a_label_that_leaves_every_gold_score_as_it_was_hands_on_the_same_rows(store):
    source = judge_source(JUDGE_CONFIGS[0])
    before = scored_responses(store, source, MODE)
    response, index, answer = unanimous_sentence(store)
    revision = project_state(store).revision
    store.events.append("dana", response, Unit.of_sentence(index), "verifiable", answer, spent_ms=1000)
    assert project_state(store).revision != revision
    assert scored_responses(store, source, MODE) is before


def test_a_label_that_changes_a_gold_score_gives_rows_with_the_new_score(store):
    source = judge_source(JUDGE_CONFIGS[0])
    before = scored_responses(store, source, MODE)
    response, index, answer = unanimous_sentence(store)
    for who in ("alice", "bob"):  # two of three now say the opposite: gold's answer turns
        store.events.append(who, response, Unit.of_sentence(index), "verifiable", not answer, spent_ms=1000)
    after = scored_responses(store, source, MODE)
    changed = [(old, new) for old, new in zip(before, after, strict=True) if old.gold != new.gold]
    assert [old.response_id for old, _ in changed] == [response]
    assert changed[0][0].gold.coverage != changed[0][1].gold.coverage


def test_a_label_that_leaves_every_gold_score_as_it_was_keeps_the_calibrated_mode_found(store):
    source = judge_source(JUDGE_CONFIGS[0])
    before = calibrated_mode(store, source)
    response, index, answer = unanimous_sentence(store)
    store.events.append("dana", response, Unit.of_sentence(index), "verifiable", answer, spent_ms=1000)
    assert calibrated_mode(store, source) is before


def test_judge_sources_are_counted_again_when_a_record_is_imported(store):
    source = judge_source(JUDGE_CONFIGS[0])
    counts = dict(judge_sources(store))
    record = next(r for r in store.list_records("judge", source=source))
    new_source = "judge:copy"
    store.add_records([EvaluationRecord(record.response_id, new_source, record.sentences)])
    assert dict(judge_sources(store)) == {**counts, new_source: 1}
