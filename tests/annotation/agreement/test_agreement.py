"""Agreement per stage (annotation/agreement.py): α against the krippendorff package on
matrices built here from the records, the unit rules, degenerate cases, fact-set P/R/F1."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.agreement.reliability import (
    STAGES,
    agreement_json,
    bootstrap_alpha,
    decomposition_prf,
    measure_agreement,
    pair_confusion,
    stage_units,
)
from annotation.protocol.citations import Citation
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence

VISUAL = Citation("visual", 1.0, 1.0)
AUDIO = Citation("audio", 2.0, 4.0)
BROKEN = Citation("visual", None, None, valid=False, raw="visual, 0:75", reason="seconds must be below 60")
NAN = np.nan


def record(name, rid, sentences, source=None):
    return EvaluationRecord(rid, source or f"human:{name}", sentences)


def labelled(verifiable_labels):
    """One sentence per label, no facts."""
    return [Sentence(f"Sentence {i}.", v, [VISUAL]) for i, v in enumerate(verifiable_labels)]


def fact(text, cites, all=None, alone=(), without=()):
    return Fact(text, list(cites), Entailment(all, list(alone), list(without)))


def one_sentence(facts, citations=(VISUAL, AUDIO)):
    return [Sentence("The man points (visual, 0:01; audio, 0:02-0:04).", True, list(citations), list(facts))]


def alpha_of(rows, level="nominal"):
    return krippendorff.alpha(reliability_data=np.array(rows, dtype=float), level_of_measurement=level)


# -- α equals the package's on the same units -------------------------------------------------
def test_verifiable_alpha_equals_krippendorff_nominal_on_a_matrix_built_from_the_records():
    labels = {
        "alice": {"r1": [True, False, True], "r2": [True, True]},
        "bob": {"r1": [True, True, True], "r2": [False, True]},
        "carol": {"r1": [True, False, None], "r2": [True, True]},
    }
    records = [record(n, rid, labelled(v)) for n, by in labels.items() for rid, v in by.items()]
    matrix = [
        [NAN if v is None else float(v) for rid in ("r1", "r2") for v in labels[n][rid]]
        for n in ("alice", "bob", "carol")
    ]
    result = measure_agreement(records, n_resamples=10)["verifiable"]
    assert result.alpha == pytest.approx(alpha_of(matrix), abs=1e-9)
    assert (result.n_units, result.n_annotators) == (5, 3)


def test_entailment_all_alpha_equals_krippendorff_on_the_facts_two_annotators_share():
    # alice/bob share "A man points." (case and full stop differ); carol's "A woman points."
    # is shared with nobody; all three share the audio fact
    records = [
        record("alice", "r1", one_sentence([fact("A man points.", [0], True), fact("He talks.", [1], True)])),
        record("bob", "r1", one_sentence([fact("a man points", [0], False), fact("He talks.", [1], True)])),
        record(
            "carol", "r1", one_sentence([fact("A woman points.", [0], True), fact("He talks", [1], False)])
        ),
        record("alice", "r2", one_sentence([fact("A dog barks.", [1], True)])),
        record("bob", "r2", one_sentence([fact("A dog barks.", [1], False)])),
    ]
    matrix = [[1, 1, 1], [0, 1, 0], [NAN, 0, NAN]]  # units: r1 man, r1 talks, r2 dog
    result = measure_agreement(records, n_resamples=10)["entailment_all"]
    assert result.alpha == pytest.approx(alpha_of(matrix), abs=1e-9)
    assert result.n_units == 3


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from([True, False, None]), min_size=3, max_size=3), min_size=2, max_size=12)
)
def test_verifiable_alpha_matches_krippendorff_on_random_labels(columns):
    names = ("alice", "bob", "carol")
    records = [record(n, "r1", labelled([column[row] for column in columns])) for row, n in enumerate(names)]
    matrix = np.array([[NAN if c[row] is None else float(c[row]) for c in columns] for row in range(3)])
    result = measure_agreement(records, n_resamples=5)["verifiable"]
    try:
        with np.errstate(invalid="ignore", divide="ignore"):  # one value among pairable units: NaN
            expected = alpha_of(matrix)
    except ValueError:
        expected = None
    if expected is None or not math.isfinite(expected):
        assert result.alpha is None and result.reason
    else:
        assert result.alpha == pytest.approx(expected, abs=1e-9)


# -- which units --------------------------------------------------------------------------------
def test_a_one_citation_facts_alone_unit_takes_the_value_of_all():
    records = [
        record("alice", "r1", one_sentence([fact("A man points.", [0], True)])),
        record("bob", "r1", one_sentence([fact("A man points.", [0], False)])),
    ]
    alone = stage_units(records)["entailment_alone"]
    assert list(alone.values()) == [{"alice": 1.0, "bob": 0.0}]


def test_values_the_protocol_fixes_are_not_units():
    # one-citation without[0] = false (not given) and an invalid citation's alone = false
    facts = [fact("A man points.", [0], True), fact("A light flashes.", [0, 1], True, [True, None])]
    citations = (VISUAL, BROKEN)
    records = [record(n, "r1", one_sentence(facts, citations)) for n in ("alice", "bob")]
    units = stage_units(records)

    def fact_and_segments(stage):  # a unit: (response, sentence, cluster, canonical text, segments)
        return sorted((canonical, segments) for *_, canonical, segments in units[stage])

    # alone: man's (= all) and light's valid citation; not light's invalid one
    assert fact_and_segments("entailment_alone") == [("A light flashes.", (0,)), ("A man points.", (0,))]
    # without: light's invalid citation's (= all: the valid segment 0 alone); not its only valid
    # one's (False whatever anyone says: every other citation is invalid), nor man's
    assert fact_and_segments("entailment_without") == [("A light flashes.", (0,))]


def test_alone_units_follow_the_cited_segment_not_the_position_in_the_fact():
    records = [
        record("alice", "r1", one_sentence([fact("He talks.", [0, 1], True, [True, False])])),
        record("bob", "r1", one_sentence([fact("He talks.", [1, 0], True, [False, True])])),
    ]
    alone = stage_units(records)["entailment_alone"]
    assert sorted(alone.values(), key=repr) == [{"alice": 0.0, "bob": 0.0}, {"alice": 1.0, "bob": 1.0}]


def test_a_record_without_any_label_is_not_an_annotator():
    records = [
        record("alice", "r1", labelled([True, False])),
        record("bob", "r1", labelled([True, True])),
        record("ada", "r1", labelled([None, None])),
    ]
    assert measure_agreement(records, n_resamples=5)["verifiable"].n_annotators == 2


def test_judge_records_are_ignored():
    records = [
        record("alice", "r1", labelled([True, False])),
        record("x", "r1", labelled([False, True]), source="judge:x"),
    ]
    assert measure_agreement(records, n_resamples=5)["verifiable"].reason == "fewer than two annotators (1)"


# -- degenerate cases ---------------------------------------------------------------------------
def test_a_single_annotator_leaves_every_stage_undefined_and_says_why():
    results = measure_agreement([record("alice", "r1", labelled([True, False]))], n_resamples=5)
    assert results["verifiable"].alpha is None
    assert results["verifiable"].reason == "fewer than two annotators (1)"


def test_one_value_only_leaves_alpha_undefined_and_says_why():
    records = [record(n, "r1", labelled([True, True])) for n in ("alice", "bob")]
    result = measure_agreement(records, n_resamples=5)["verifiable"]
    assert (result.alpha, result.ci_low, result.ci_high) == (None, None, None)
    assert result.reason == "only one value occurs (true on every unit)"


def test_no_records_give_every_stage_undefined_without_crashing():
    results = measure_agreement([], n_resamples=5)
    assert all(results[stage].alpha is None for stage in STAGES)


def test_units_nobody_shares_say_so():
    records = [record("alice", "r1", labelled([True])), record("bob", "r2", labelled([False]))]
    assert (
        measure_agreement(records, n_resamples=5)["verifiable"].reason
        == "no unit was labelled by two or more annotators"
    )


# -- bootstrap ----------------------------------------------------------------------------------
def test_degenerate_resamples_are_skipped_and_counted():
    # units (1,1), (0,0), (1,0): a resample of one unit repeated holds one value only
    matrix = np.array([[1, 0, 1], [1, 0, 0]], dtype=float)
    alphas, degenerate = bootstrap_alpha(matrix, "nominal", 1000, seed=3)
    assert degenerate > 0
    assert len(alphas) + degenerate == 1000


def test_bootstrap_ci_is_reproducible_with_the_same_seed():
    records = [
        record("alice", "r1", labelled([True, False, True, True, False])),
        record("bob", "r1", labelled([True, False, False, True, False])),
    ]
    first = measure_agreement(records, n_resamples=200, seed=7)["verifiable"]
    again = measure_agreement(records, n_resamples=200, seed=7)["verifiable"]
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    assert first.ci_low <= first.ci_high


# -- decomposition ------------------------------------------------------------------------------
def decomposed(texts):
    return one_sentence([Fact(t, [0]) for t in texts]) if texts else one_sentence([])


def test_decomposition_alpha_uses_the_jaccard_distance_between_the_fact_clusters_people_stated():
    # r1: the same fact reworded (distance 0); r2: alice states the dog and the cat, bob the dog only
    # (distance 1 − 1/2). Values {man}, {dog, cat}, {dog}: n = 4, D_o = (0.5 + 0.5) / 4 = 1/4;
    # D_e = 2 (2·1·1 + 2·1·1 + 1·1·0.5) / (4·3) = 3/4 (sets of different sentences share nothing).
    records = [
        record("alice", "r1", decomposed(["A man points."])),
        record("bob", "r1", decomposed(["A man is pointing."])),
        record("alice", "r2", decomposed(["A dog barks.", "A cat meows."])),
        record("bob", "r2", decomposed(["The dog barks."])),
    ]
    result = measure_agreement(records, n_resamples=10)["decomposition"]
    assert result.alpha == pytest.approx(1 - (1 / 4) / (3 / 4))
    assert (result.precision, result.recall, result.f1) == (pytest.approx(2 / 3), 1.0, pytest.approx(0.8))


def test_fact_set_prf_pools_the_facts_of_every_annotator_pair():
    records = [
        record("alice", "r1", decomposed(["A man points.", "A dog barks."])),
        record("bob", "r1", decomposed(["A man points."])),
        record("carol", "r1", decomposed(["A man points.", "A dog barks.", "A cat sits."])),
    ]
    # pairs (shared, first's, second's): alice-bob (1, 2, 1); alice-carol (2, 2, 3); bob-carol (1, 1, 3)
    precision, recall, f1, pairs = decomposition_prf(records)
    assert pairs == 3
    assert precision == pytest.approx(4 / 5)
    assert recall == pytest.approx(4 / 7)
    assert f1 == pytest.approx(2 * (4 / 5) * (4 / 7) / (4 / 5 + 4 / 7))


def test_an_annotator_who_shares_one_sentence_weighs_one_sentence_in_the_fact_set_f1():
    agreeing = [f"Fact {n} is seen." for n in range(2)]
    records = [
        record(name, f"r{k}", decomposed(agreeing)) for k in range(10) for name in ("alice", "bob")
    ] + [record("dana", "r0", decomposed(["Something else entirely happens."]))]
    # (shared, first's, second's): alice-bob (20, 20, 20) over ten sentences; alice-dana and
    # bob-dana (0, 2, 1) over one. A mean over the pairs would say precision 1/3.
    precision, recall, f1, pairs = decomposition_prf(records)
    assert pairs == 3
    assert precision == pytest.approx(20 / 24)
    assert recall == pytest.approx(20 / 22)


def test_fact_set_prf_is_none_when_no_pair_shares_a_sentence():
    assert decomposition_prf([record("alice", "r1", decomposed(["A man points."]))]) == (None, None, None, 0)


# -- outputs ------------------------------------------------------------------------------------
def test_json_form_has_the_five_stages_and_fact_set_figures_for_decomposition():
    records = [
        record("alice", "r1", decomposed(["A man points."])),
        record("bob", "r1", decomposed(["A man points."])),
    ]
    out = agreement_json(measure_agreement(records, n_resamples=5))
    assert list(out) == list(STAGES)
    assert set(out["verifiable"]) == {"alpha", "ci_low", "ci_high", "n_units", "n_annotators", "reason"}
    assert {"precision", "recall", "f1"} <= set(out["decomposition"])


def test_pair_confusion_counts_the_units_both_labelled():
    units = {
        ("r1", 0): {"alice": 1.0, "bob": 1.0},
        ("r1", 1): {"alice": 1.0, "bob": 0.0},
        ("r1", 2): {"alice": 0.0, "carol": 0.0},
    }
    assert pair_confusion(units, "alice", "bob") == {(1.0, 1.0): 1, (1.0, 0.0): 1}


def test_cant_tell_rates_count_each_annotators_cant_tell_among_their_stage_three_answers(tmp_path):
    from annotation.agreement.annotator_stats import cant_tell_rates
    from annotation.protocol.ids import Unit
    from annotation.protocol.records import Response, Sentence
    from annotation.store.project_store import ProjectStore

    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response("r1", "…"), [Sentence("A tone plays (audio, 0:01).")])])
    for who, task, value in [
        ("ana", "all", {"cant_tell": "the audio is inaudible"}),
        ("ana", "alone.0", True),
        ("ana", "verifiable", True),  # stage 1: not counted
        ("ben", "all", False),
    ]:
        unit = "s0" if task == "verifiable" else str(Unit.of_fact(0, "A tone plays.", [0]))
        store.events.append(who, "r1", unit, task, value)
    assert cant_tell_rates(store.events.current_labels()) == {"ana": (1, 2), "ben": (0, 1)}
