"""α computed from per-unit sums (reliability.SetUnitSums, NominalUnitSums) is today's α: the
krippendorff package on the full coincidence matrix (units × values × values), with the Jaccard δ²
between coded fact sets for the decomposition — equal to 1e-12 on the demo's labels and on small
random cases, the bootstrap resample by resample for the same seed."""

from __future__ import annotations

import random
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.agreement.reliability import (
    NominalUnitSums,
    SetUnitSums,
    bootstrap_alpha,
    bootstrap_unit_alphas,
    jaccard_distance,
    labelled_units,
    measure_agreement,
    reliability_matrix,
    shared_units,
    stage_agreement,
)
from annotation.demo.ground_truth import align_plan
from annotation.demo.labellers import ANNOTATORS, label_response, labelled_record
from annotation.demo.project import RESPONSES_PER_VIDEO, VIDEO_NAMES
from annotation.demo.texts import make_response
from annotation.demo.videos import make_video_truth
from annotation.protocol.sentences import sentences_for_response

EXACT = 1e-12


# -- today's α: the package on the whole coincidence matrix ------------------------------------
def coded_sets(units):
    """Set-valued units with each distinct set, qualified by its unit, replaced by a float code."""
    sets: dict[frozenset, int] = {}
    coded = {}
    for key, values in units.items():
        for name, value in values.items():
            qualified = frozenset((key, element) for element in value)
            coded.setdefault(key, {})[name] = float(sets.setdefault(qualified, len(sets)))
    return coded, list(sets)


def package_matrix(units):
    """(matrix, δ² callable or "nominal") as the module computed α before the per-unit sums."""
    if any(isinstance(v, frozenset) for values in units.values() for v in values.values()):
        coded, sets = coded_sets(units)
        table = np.array([[jaccard_distance(a, b) for b in sets] for a in sets]).reshape(len(sets), len(sets))

        def metric(v1, v2, i1, i2, n_v, dtype=np.float64):
            return table[np.asarray(v1).astype(int), np.asarray(v2).astype(int)].astype(dtype)

        return reliability_matrix(coded)[2], metric
    return reliability_matrix(units)[2], "nominal"


def package_alpha(units) -> float:
    matrix, metric = package_matrix(units)
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=metric))


def package_bootstrap(units, n_resamples, seed):
    """Each resample's α from krippendorff's value counts of the resampled columns (NaN: degenerate)."""
    matrix, metric = package_matrix(units)
    domain = np.unique(matrix[~np.isnan(matrix)])
    counts = np.stack([(matrix == v).sum(axis=0) for v in domain], axis=1).astype(float)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_resamples):
        sample = counts[rng.integers(0, counts.shape[0], counts.shape[0])]
        with np.errstate(divide="ignore", invalid="ignore"):
            value = float(
                krippendorff.alpha(value_counts=sample, value_domain=domain, level_of_measurement=metric)
            )
        if np.isfinite(value):
            out.append(value)
    return np.array(out)


def unit_sums(units):
    if any(isinstance(v, frozenset) for values in units.values() for v in values.values()):
        return SetUnitSums.of(units, reliability_matrix(coded_sets(units)[0])[1])
    return NominalUnitSums.of(reliability_matrix(units)[2])


# -- the demo's labels --------------------------------------------------------------------------
def demo_records(seed: int = 0):
    """The demo's three annotators' records of its labelled responses (annotation/demo)."""
    records = []
    for name in VIDEO_NAMES:
        truth = make_video_truth(name, random.Random(f"{seed}:video:{name}"))
        for k in range(RESPONSES_PER_VIDEO):
            rid = f"{Path(name).stem}-{k + 1:02d}"
            plan = make_response(rid, truth, k, random.Random(f"{seed}:response:{rid}"))
            gold = align_plan(plan, sentences_for_response(plan.response.text, truth.duration_s))
            for person, who in ANNOTATORS.items():
                labels = label_response(truth, gold, who, random.Random(f"{seed}:human:{person}:{rid}"))
                records.append(labelled_record(rid, f"human:{person}", gold, labels))
    return records


@pytest.fixture(scope="module")
def demo_units():
    return {stage: shared_units(units) for stage, units in labelled_units(demo_records()).items()}


def test_on_the_demo_every_stage_alpha_is_the_package_alpha(demo_units):
    results = measure_agreement(demo_records(), n_resamples=3)
    for stage, units in demo_units.items():
        assert results[stage].alpha == pytest.approx(package_alpha(units), abs=EXACT), stage
    assert len(demo_units["decomposition"]) > 20


def test_on_the_demo_the_decomposition_bootstrap_is_the_package_bootstrap(demo_units):
    units = demo_units["decomposition"]
    ours, degenerate = bootstrap_unit_alphas(unit_sums(units), 40, seed=5)
    theirs = package_bootstrap(units, 40, seed=5)
    assert degenerate == 40 - len(theirs)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=EXACT)


def test_on_the_demo_the_verifiable_bootstrap_is_the_package_bootstrap(demo_units):
    units = demo_units["verifiable"]
    ours, _ = bootstrap_alpha(reliability_matrix(units)[2], "nominal", 40, seed=2)
    np.testing.assert_allclose(ours, package_bootstrap(units, 40, seed=2), rtol=0, atol=EXACT)


# -- small random cases -------------------------------------------------------------------------
PEOPLE = ("ann", "ben", "cat", "dan")
fact_sets = st.frozensets(st.integers(0, 3), max_size=3)


@st.composite
def set_units(draw, values=fact_sets):
    """1–8 units, each labelled by 2–4 people (empty sets included: they are alike across units)."""
    out = {}
    for u in range(draw(st.integers(1, 8))):
        people = draw(st.lists(st.sampled_from(PEOPLE), min_size=2, max_size=4, unique=True))
        out[(f"r{u // 3}", u % 3)] = {p: draw(values) for p in people}
    return out


@settings(max_examples=150)
@given(set_units())
def test_set_alpha_and_its_bootstrap_equal_the_package_on_random_units(units):
    matrix, _ = package_matrix(units)
    if len(np.unique(matrix[~np.isnan(matrix)])) < 2:
        return  # "only one value occurs": the package refuses, the module says why
    sums = unit_sums(units)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = package_alpha(units)
    assert sums.alpha() == pytest.approx(expected, abs=EXACT, nan_ok=True)
    ours, degenerate = bootstrap_unit_alphas(sums, 12, seed=1)
    theirs = package_bootstrap(units, 12, seed=1)
    assert degenerate == 12 - len(theirs)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=EXACT)


@settings(max_examples=100)
@given(set_units(st.sampled_from([0.0, 1.0])))
def test_nominal_bootstrap_equals_the_package_on_random_units(units):
    matrix, _ = package_matrix(units)
    if len(np.unique(matrix[~np.isnan(matrix)])) < 2:
        return
    ours, degenerate = bootstrap_alpha(matrix, "nominal", 12, seed=4)
    theirs = package_bootstrap(units, 12, seed=4)
    assert degenerate == 12 - len(theirs)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=EXACT)


def test_set_alpha_by_hand_with_empty_sets_alike_across_units():
    # u1: {1} vs {} (δ² 1); u2: {} vs {} (0). n = 4; Σ o δ² = 2·1/1 = 2;
    # Σ n n δ²: the {1} pairs with the three empties (δ² 1 each, both orders) = 6 → α = 1 − 3·2/6 = 0
    units = {
        ("r", 0): {"ann": frozenset({1}), "ben": frozenset()},
        ("r", 1): {"ann": frozenset(), "ben": frozenset()},
    }
    assert unit_sums(units).alpha() == pytest.approx(0.0, abs=EXACT)
    assert package_alpha(units) == pytest.approx(0.0, abs=EXACT)


def test_one_sentence_decomposed_alike_by_everyone_has_no_alpha_and_says_why():
    alike = {("r", 0): {"ann": frozenset({1}), "ben": frozenset({1})}}
    result = stage_agreement("decomposition", alike)
    assert (result.alpha, result.reason) == (None, "only one value occurs (the same facts on every unit)")
    # two sentences decomposed alike: their sets differ from each other, so α is defined and 1
    two = {**alike, ("r", 1): {"ann": frozenset({1}), "ben": frozenset({1})}}
    assert stage_agreement("decomposition", two, n_resamples=5).alpha == 1.0


def test_a_block_of_resamples_draws_what_one_draw_per_resample_draws():
    # the bootstrap draws a block's resamples in one call; the CIs stay those of one call each
    for n_units in (1, 3, 7, 1000):
        one_each = np.random.default_rng(5)
        expected = np.stack([one_each.integers(0, n_units, n_units) for _ in range(23)])
        assert (np.random.default_rng(5).integers(0, n_units, (23, n_units)) == expected).all()


def test_a_unit_taken_twice_counts_twice_by_hand():
    # units (1, 0), (1, 1), (0, 0): o₀₁ = o₁₀ = 1, o₁₁ = o₀₀ = 2, n₀ = n₁ = 3, n = 6:
    # D_o = 2/6, D_e = 2·3·3 / (6·5) = 0.6, α = 1 − (1/3) / 0.6 = 4/9;
    # the first unit twice, the last never: o₀₁ = o₁₀ = 2, o₁₁ = 2, n₁ = 4, n₀ = 2:
    # D_o = 4/6, D_e = 2·4·2 / 30 = 16/30, α = 1 − (4/6) / (16/30) = −1/4
    sums = NominalUnitSums.of(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0]]))
    alphas = sums.alphas(np.array([[1.0, 1.0, 1.0], [2.0, 1.0, 0.0]]))
    assert alphas == pytest.approx([4 / 9, -1 / 4], abs=EXACT)


def test_resamples_of_one_value_only_are_skipped_and_counted_by_hand():
    # units (1, 1) and (0, 0): a resample of both has α = 1; one unit taken twice has one value only
    sums = NominalUnitSums.of(np.array([[1.0, 0.0], [1.0, 0.0]]))
    alphas, degenerate = bootstrap_unit_alphas(sums, 50, seed=11)
    draws = np.random.default_rng(11).integers(0, 2, (50, 2))
    both = int((draws[:, 0] != draws[:, 1]).sum())
    assert list(alphas) == [1.0] * both and degenerate == 50 - both and 0 < both < 50


def test_the_bootstrap_is_the_same_to_the_bit_however_a_block_is_drawn_in_pieces(demo_units):
    sums = NominalUnitSums.of(reliability_matrix(demo_units["verifiable"])[2])
    whole = bootstrap_unit_alphas(sums, 250, seed=4, piece=100)
    for piece in (1, 7, 10):
        alphas, degenerate = bootstrap_unit_alphas(sums, 250, seed=4, piece=piece)
        assert alphas.tobytes() == whole[0].tobytes() and degenerate == whole[1]
