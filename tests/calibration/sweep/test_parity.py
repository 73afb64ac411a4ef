"""Human parity (calibration/sweep/parity.py): each annotator against the others' mean score,
paired with each configuration, and what partial work may and may not change."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from annotation.protocol.citations import Citation
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence
from annotation.store.record_form import record_form
from calibration.scoring.murgat_s import score_records
from calibration.sweep.parity import annotators_tested, finished_form, is_finished
from calibration.sweep.run import run_sweep

VISUAL, AUDIO = Citation("visual", 1.0, 1.0), Citation("audio", 1.0, 2.0)
N = 30


def cited(index: int, supported: bool | None, verifiable: bool | None = True) -> Sentence:
    return Sentence(
        f"Thing {index} happens (visual, 0:01).",
        verifiable,
        [VISUAL],
        [Fact(f"thing {index} happens", [0], Entailment(supported, [supported], [False]))],
    )


def truth(seed: int = 0) -> list[list[bool]]:
    rng = np.random.default_rng(seed)
    return [[bool(v) for v in rng.random(6) < rng.random()] for _ in range(N)]


def noisy(labels: list[list[bool]], share: float, source: str, rng) -> list[EvaluationRecord]:
    return [
        EvaluationRecord(
            f"r{i:02d}", source, [cited(j, v != bool(rng.random() < share)) for j, v in enumerate(row)]
        )
        for i, row in enumerate(labels)
    ]


def people(names=("ann", "bob", "cy"), seed: int = 1) -> tuple[list, list, list]:
    """Gold (the truth), judge:good (10 % of labels flipped) and annotators (15 % flipped)."""
    labels, rng = truth(), np.random.default_rng(seed)
    gold = noisy(labels, 0.0, "gold", rng)
    judges = noisy(labels, 0.1, "judge:good", rng)
    humans = [r for name in names for r in noisy(labels, 0.15, f"human:{name}", rng)]
    return gold, judges, humans


def sweep(gold, judges, humans, **kwargs):
    return run_sweep(gold, judges, modes=("individual",), humans=humans, n_boot=50, **kwargs)


def scores(records) -> np.ndarray:
    return np.array([s.murgat_s for s in score_records(records, ["individual"])])


# --- finished work -----------------------------------------------------------------------------


def test_a_record_with_every_question_answered_is_finished():
    assert is_finished(EvaluationRecord("r", "human:ann", [cited(0, True), Sentence("So B.", False, [])]))


def test_a_sentence_without_its_verifiability_label_is_unfinished():
    assert not is_finished(EvaluationRecord("r", "human:ann", [cited(0, True, verifiable=None)]))


def test_a_two_citation_fact_without_its_alone_answers_is_unfinished():
    fact = Fact("thing happens", [0, 1], Entailment(True, [None, None], [None, None]))
    sentence = Sentence("Thing happens (visual, 0:01; audio, 0:01-0:02).", True, [VISUAL, AUDIO], [fact])
    assert not is_finished(EvaluationRecord("r", "human:ann", [sentence]))


def test_a_cited_verifiable_sentence_without_facts_is_unfinished():
    sentence = Sentence("Thing happens (visual, 0:01).", True, [VISUAL], [])
    assert not is_finished(EvaluationRecord("r", "human:ann", [sentence]))


def one_fact(citations: list[Citation], fact: Fact) -> EvaluationRecord:
    return EvaluationRecord("r", "human:ann", [Sentence("Thing happens.", True, citations, [fact])])


def test_a_two_citation_fact_whose_without_answers_the_rules_fill_is_finished():
    # k = 2: without[0] = alone[1], without[1] = alone[0]; nobody is asked them
    fact = Fact("thing happens", [0, 1], Entailment(True, [True, False], [None, None]))
    assert is_finished(one_fact([VISUAL, AUDIO], fact))


def test_a_fact_without_an_entailment_is_unfinished_and_one_without_a_valid_citation_is_finished():
    invalid = Citation("visual", 0.0, 0.0, valid=False, raw="0:75", reason="seconds past 59")
    assert not is_finished(one_fact([VISUAL], Fact("thing happens", [0], None)))
    assert is_finished(one_fact([invalid], Fact("thing happens", [0], None)))


def test_a_three_citation_fact_is_unfinished_until_each_without_answer_is_given():
    three = [VISUAL, AUDIO, Citation("audio", 3.0, 4.0)]
    open_without = Fact(
        "thing happens", [0, 1, 2], Entailment(True, [True, True, False], [False, None, True])
    )
    answered = Fact("thing happens", [0, 1, 2], Entailment(True, [True, True, False], [False, False, True]))
    assert not is_finished(one_fact(three, open_without))  # k = 3: without[1] is asked
    assert is_finished(one_fact(three, answered))


def test_a_question_answered_cant_tell_is_finished_and_one_left_open_is_not():
    # PROTOCOL §2: "can't tell" is recorded as null, with its reason in the fact's provenance
    told = Fact(
        "thing happens",
        [0, 1],
        Entailment(True, [None, True], [None, None]),
        {"alone[0]": "can't tell: inaudible"},
    )
    open_ = Fact("thing happens", [0, 1], Entailment(True, [None, True], [None, None]))
    assert is_finished(one_fact([VISUAL, AUDIO], told))
    assert not is_finished(one_fact([VISUAL, AUDIO], open_))


def test_a_fact_citing_past_its_sentence_is_refused_naming_the_index():
    with pytest.raises(ValueError, match="citation index 2 is out of range"):
        is_finished(one_fact([VISUAL], Fact("thing happens", [2], Entailment(True, [True], [False]))))


def test_a_finished_records_form_is_the_score_form_the_store_keeps_and_an_unfinished_one_has_none():
    invalid = Citation("visual", None, None, valid=False, raw="visual, 0:63")
    finished = EvaluationRecord(
        "r",
        "human:ann",
        [
            cited(0, True),
            Sentence("So B.", False, []),
            Sentence("Seen (visual, 0:63).", True, [invalid]),
            one_fact([VISUAL, AUDIO], Fact("both", [0, 1], Entailment(False, [True, False], []))).sentences[
                0
            ],
        ],
    )
    # sentence by sentence: the fact's code, not verifiable, verifiable without a valid citation, a
    # two-citation fact (its `without` filled by the rules)
    assert finished_form(finished) == [["t|t|t|f"], 0, 1, ["tt|f|tf|"]] == record_form(finished)
    unfinished = EvaluationRecord("r", "human:ann", [cited(0, True), cited(1, None, verifiable=None)])
    assert finished_form(unfinished) is None


# --- parity ----------------------------------------------------------------------------------


def test_with_two_annotators_each_ones_target_is_the_others_score():
    gold, judges, humans = people(("ann", "bob"))
    block = sweep(gold, judges, humans).best.parity
    judge, ann, bob = scores(judges), scores(humans[:N]), scores(humans[N:])
    r = lambda a, b: scipy_stats.pearsonr(a, b).statistic  # noqa: E731
    by_name = {a["source"]: a for a in block["annotators"]}
    assert by_name["human:ann"]["advantage"] == pytest.approx(r(judge, bob) - r(ann, bob), abs=1e-12)
    assert by_name["human:bob"]["advantage"] == pytest.approx(r(judge, ann) - r(bob, ann), abs=1e-12)
    assert block["advantage"] == pytest.approx(
        (by_name["human:ann"]["advantage"] + by_name["human:bob"]["advantage"]) / 2
    )


def test_annotators_are_reported_against_the_others_mean():
    gold, judges, humans = people(("ann", "bob"))
    rows = sweep(gold, judges, humans).annotators
    r = scipy_stats.pearsonr(scores(humans[:N]), scores(humans[N:])).statistic
    assert [(row["source"], row["n"]) for row in rows] == [("human:ann", N), ("human:bob", N)]
    assert [row["r_vs_gold_without"] for row in rows] == pytest.approx([r, r], abs=1e-12)


def test_with_three_annotators_the_target_is_the_mean_of_the_other_two():
    gold, judges, humans = people()
    rows = {row["source"]: row for row in sweep(gold, judges, humans).annotators}
    ann, bob, cy = scores(humans[:N]), scores(humans[N : 2 * N]), scores(humans[2 * N :])
    expected = scipy_stats.pearsonr(bob, (ann + cy) / 2).statistic
    assert rows["human:bob"]["r_vs_gold_without"] == pytest.approx(expected, abs=1e-12)


def test_a_judge_equal_to_an_annotator_has_zero_advantage_over_them_and_wins():
    gold, _, humans = people(("ann", "bob"))
    copy = [EvaluationRecord(h.response_id, "judge:copy", h.sentences) for h in humans[:N]]
    by_name = {a["source"]: a for a in sweep(gold, copy, humans).best.parity["annotators"]}
    assert by_name["human:ann"]["advantage"] == 0.0 and by_name["human:ann"]["wins"]


def test_one_annotator_gives_no_parity_and_says_why():
    gold, judges, humans = people(("ann",))
    block = sweep(gold, judges, humans).best.parity
    assert math.isnan(block["advantage"]) and block["annotators"] == []
    assert block["reason"].startswith("needs two annotators with finished work (1 found)")


def test_the_mean_advantage_ci_holds_the_mean_and_the_winning_rate_is_a_share():
    gold, judges, humans = people()
    block = sweep(gold, judges, humans).best.parity
    low, high = block["advantage_ci"]
    assert low < block["advantage"] < high
    assert block["winning_rate"] in (0.0, 1 / 3, 2 / 3, 1.0) and block["epsilon"] == 0.1


def test_partial_work_of_another_annotator_changes_no_one_elses_parity():
    gold, judges, humans = people()
    before = sweep(gold, judges, humans)
    partial = [EvaluationRecord(g.response_id, "human:dana", [cited(0, True)]) for g in gold[:5]]
    for record in partial:
        record.sentences.append(cited(1, True, verifiable=None))  # stopped halfway
    after = sweep(gold, judges, humans + partial)
    assert after.best.parity == before.best.parity and after.annotators == before.annotators


def test_an_annotator_counts_on_the_responses_they_finished():
    gold, judges, humans = people()
    for record in humans[:5]:  # ann stopped halfway through r00–r04
        record.sentences[0] = cited(0, True, verifiable=None)
    rows = {row["source"]: row for row in sweep(gold, judges, humans).annotators}
    assert (rows["human:ann"]["n_finished"], rows["human:bob"]["n_finished"]) == (N - 5, N)
    assert math.isfinite(rows["human:ann"]["r_vs_gold_without"])


def test_an_annotator_who_finished_no_gold_response_is_not_among_those_the_winning_rate_counts():
    gold, judges, humans = people()
    # dana finished one response, which has no gold record: nothing of hers can be compared
    elsewhere = [EvaluationRecord("r-not-gold", "human:dana", [cited(0, True)])]
    block = sweep(gold, judges, humans + elsewhere).best.parity
    names = [a["source"] for a in block["annotators"]]
    assert "human:dana" in names and len(names) == 4
    assert annotators_tested(block) == 3
    assert block["winning_rate"] in (0.0, 1 / 3, 2 / 3, 1.0)
