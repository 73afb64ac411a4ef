"""The agreement figures' inputs kept per response (annotation/agreement/agreement_index.py), on a
copy of the demo: the same units, annotator rows and "can't tell" rates as reading the whole
state, so the same α and CIs; after one label only the labelled response is read again."""

from annotation.agreement.agreement_index import AgreementIndex
from annotation.agreement.annotator_stats import (
    annotator_rows,
    cant_tell_rates,
    counts_added,
    impossible_answers,
    impossible_tallies,
)
from annotation.agreement.reliability import (
    labelled_units,
    measure_agreement,
    measure_units,
    records_by_response,
)
from annotation.protocol.ids import Unit
from annotation.state import project_state
from annotation.store.project_store import ProjectStore


def whole_state_figures(state):
    return (
        labelled_units(state.annotators, state.rulings),
        annotator_rows(state.gold.values, state.labels),
        cant_tell_rates(state.labels),
    )


def test_the_index_gives_the_units_and_rows_of_the_whole_state_on_the_demo(demo_copy):
    state = project_state(ProjectStore.open(demo_copy))
    inputs = AgreementIndex().inputs(state)
    units, rows, cant_tell = whole_state_figures(state)
    assert inputs.units == units and sum(len(u) for u in units.values()) > 500
    assert inputs.annotators == rows and len(rows) == 3
    assert inputs.cant_tell == cant_tell


def test_alpha_and_its_ci_from_the_index_are_those_of_the_whole_state_on_the_demo(demo_copy):
    state = project_state(ProjectStore.open(demo_copy))
    from_index = measure_units(AgreementIndex().inputs(state).units, n_resamples=200, seed=3)
    assert from_index == measure_agreement(state.annotators, rulings=state.rulings, n_resamples=200, seed=3)
    assert all(result.ci_low is not None for result in from_index.values())


def test_after_a_label_only_the_labelled_response_is_read_again_and_the_figures_follow(demo_copy):
    store = ProjectStore.open(demo_copy)
    index = AgreementIndex()
    before = index.inputs(project_state(store))
    parts = dict(index._parts)
    response = store.response_ids()[0]
    labelled = next(key for key in before.units["verifiable"] if key[0] == response)
    was = before.units["verifiable"][labelled]["alice"]
    store.events.append("alice", response, Unit.of_sentence(labelled[1]), "verifiable", not was, spent_ms=900)
    state = project_state(store)
    after = index.inputs(state)
    read_again = {rid for rid, part in index._parts.items() if part[1] is not parts[rid][1]}
    assert read_again == {response}
    assert after.units["verifiable"][labelled]["alice"] == float(not was)
    units, rows, cant_tell = whole_state_figures(state)
    assert (after.units, after.annotators, after.cant_tell) == (units, rows, cant_tell)
    assert after.name != before.name


def test_equal_units_have_equal_names(demo_copy):
    state = project_state(ProjectStore.open(demo_copy))
    first, again = AgreementIndex().inputs(state), AgreementIndex().inputs(state)
    assert first.name == again.name and first is not again


def whole_state_impossible(state):
    return counts_added(
        impossible_tallies(by_name) for by_name in records_by_response(state.annotators).values()
    )


def test_a_contradictory_answer_is_counted_once_labelled_as_reading_the_whole_state_counts_it(demo_copy):
    store = ProjectStore.open(demo_copy)
    index = AgreementIndex()
    before = index.inputs(project_state(store))
    assert before.impossible == whole_state_impossible(project_state(store))
    assert set(before.impossible) == {"alice", "bob", "carol"}
    # alice's first fact with a valid citation whose segments together she said support it
    record, i, found = next(
        (r, i, f)
        for r in project_state(store).annotators
        if r.source == "human:alice"
        for i, s in enumerate(r.sentences)
        for f in s.facts
        if f.entailment is not None and f.entailment.all is True and s.citations[f.citations[0]].valid
        and not impossible_answers(f, s)
    )  # fmt: skip
    unit = Unit.of_fact(i, found.text, found.citations)
    store.events.append("alice", record.response_id, unit, "all", False, spent_ms=900)
    store.events.append("alice", record.response_id, unit, "alone.0", True, spent_ms=900)
    state = project_state(store)
    after = index.inputs(state)
    assert after.impossible == whole_state_impossible(state)
    was, out_of = before.impossible["alice"]
    assert after.impossible["alice"] == (was + 1, out_of)
