"""The demo's models (annotation/demo/models.py): three models with a few hundred judge-scored
responses each, the 24 labelled responses spread over them, and annotators asked only those."""

import random
import statistics

import pytest

from annotation.demo.labellers import JUDGE_CONFIGS, judge_source
from annotation.demo.models import HIGH, LOW, MODELS, RESPONSES_PER_MODEL, labelled_model, quality_of
from annotation.demo.project import LABELLED_QUEUE
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from annotation.work.queues import assigned_response_ids
from annotation.work.sample_queues import annotation_response_ids, sample_queue
from calibration.scoring.murgat_s import score_records

STRONG = judge_source(JUDGE_CONFIGS[0])


@pytest.fixture(scope="module")
def demo_store(module_demo):
    return ProjectStore.open(module_demo)


def labelled(store) -> list[str]:
    return [rid for rid, _ in sample_queue(store, LABELLED_QUEUE)]


def test_each_model_has_a_few_hundred_responses_the_strong_judge_scored(demo_store):
    by_model = {}
    for rid, model in demo_store.response_models():
        by_model.setdefault(model, set()).add(rid)
    judged = {r.response_id for r in demo_store.list_records(source=STRONG)}
    assert set(by_model) == set(MODELS)
    assert all(len(ids) >= RESPONSES_PER_MODEL >= 200 for ids in by_model.values())
    assert judged == {rid for ids in by_model.values() for rid in ids}


def test_the_labelled_responses_are_spread_over_the_models(demo_store):
    models = dict(demo_store.response_models())
    counts = {m: sum(models[rid] == m for rid in labelled(demo_store)) for m in MODELS}
    assert counts == {"sim-omni-large": 10, "sim-omni-small": 8, "sim-omni-tiny": 6}  # seed 0


def test_only_the_labelled_responses_have_gold(demo_store):
    assert {r.response_id for r in project_state(demo_store).gold.records} == set(labelled(demo_store))


def test_annotators_are_asked_the_labelled_responses_as_before_models_existed(demo_store):
    assert annotation_response_ids(demo_store) == labelled(demo_store)
    # overlap 4: alice, bob and carol labelled all 24, so dana, the fourth, is asked each of them
    assert assigned_response_ids(demo_store, "dana") == labelled(demo_store)


def test_the_models_differ_in_quality_as_constructed(demo_store):
    models = dict(demo_store.response_models())
    scores = score_records(demo_store.list_records(source=STRONG), ["individual"])
    means = [statistics.mean(s.murgat_s for s in scores if models[s.response_id] == m) for m in MODELS]
    assert means == sorted(means, reverse=True) and means[0] - means[-1] > 0.1


def test_a_models_quality_stays_in_the_range_and_keeps_its_order():
    draws = [random.Random(i).uniform(LOW, HIGH) for i in range(2000)]
    mapped = {m: [quality_of(m, u) for u in draws] for m in MODELS}
    assert all(LOW - 1e-12 <= q <= HIGH + 1e-12 for qs in mapped.values() for q in qs)
    # means of the densities ∝ q, flat and ∝ 1 − q on [0.05, 0.95]: 0.6333, 0.5, 0.3667
    assert [statistics.mean(mapped[m]) for m in MODELS] == pytest.approx([0.6333, 0.5, 0.3667], abs=0.015)


def test_a_labelled_response_goes_to_a_model_in_proportion_to_its_density():
    rng = random.Random(0)
    chosen = [labelled_model(0.9, rng) for _ in range(6000)]
    shares = [chosen.count(m) / len(chosen) for m in MODELS]
    assert shares == pytest.approx([0.9 / 1.5, 1 / 3, 0.1 / 1.5], abs=0.02)
