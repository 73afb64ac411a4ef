"""calibration.sweep.stages: per-stage loss of a judge against gold on shared units."""

import math

import pytest

from annotation.protocol.citations import Citation
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence
from calibration.sweep.stages import match_sentences, stage_loss

VISUAL = Citation("visual", 12.0, 12.0)
AUDIO = Citation("audio", 12.0, 14.0)
SPEECH = Citation("audio", 20.0, 22.0)


def sentence(text, verifiable=True, citations=(VISUAL,), facts=()):
    return Sentence(text=text, verifiable=verifiable, citations=list(citations), facts=list(facts))


def fact(text, citations=(0,), all=True, alone=(), without=()):
    return Fact(text, list(citations), Entailment(all=all, alone=list(alone), without=list(without)))


def record(source, *sentences, rid="r1"):
    return EvaluationRecord(rid, source, list(sentences))


def test_verifier_accuracy_kappa_and_f1_of_verifiable():
    gold = record("gold", sentence("A."), sentence("B.", False), sentence("C."))
    judge = record("judge:x", sentence("A."), sentence("B."), sentence("C.", False))
    loss = stage_loss([gold], [judge]).verifier
    # accuracy 1/3; chance agreement 2/3·2/3 + 1/3·1/3 = 5/9 → κ = (1/3 − 5/9)/(4/9) = −1/2
    # verifiable: TP 1 (A), FP 1 (B), FN 1 (C)
    assert (loss.n, loss.accuracy, loss.kappa) == (3, pytest.approx(1 / 3), pytest.approx(-0.5))
    assert (loss.precision, loss.recall, loss.f1) == pytest.approx((0.5, 0.5, 0.5))


def test_sentences_are_matched_by_text_when_positions_differ():
    gold = record("gold", sentence("A."), sentence("B."))
    judge = record("judge:x", sentence("Extra."), sentence("B."), sentence("A."))
    assert match_sentences(gold, judge) == [(0, 2), (1, 1)]


def test_a_gold_sentence_the_judge_lacks_is_counted_unmatched():
    gold = record("gold", sentence("A."), sentence("B."))
    judge = record("judge:x", sentence("A."))
    assert stage_loss([gold], [judge]).verifier.n_unmatched == 1


def test_decomposer_is_micro_fact_set_prf_over_sentences_both_cite():
    gold = record(
        "gold",
        sentence("S.", facts=[fact("man holds red cup"), fact("dog barks")]),
        sentence("T.", facts=[fact("cat sleeps")]),
    )
    judge = record("judge:x", sentence("S.", facts=[fact("man holds red")]), sentence("T.", verifiable=False))
    loss = stage_loss([gold], [judge]).decomposer
    # only S counts (the judge left T out of R_vc); 1 match of 1 judge fact and 2 gold facts
    assert (loss.n_sentences, loss.precision, loss.recall, loss.f1) == (1, 1.0, 0.5, pytest.approx(2 / 3))


def test_a_decomposition_stating_golds_facts_in_another_order_and_case_matches_every_one():
    gold = record("gold", sentence("S.", facts=[fact("A man holds a cup."), fact("A dog barks.")]))
    judge = record("judge:x", sentence("S.", facts=[fact("a dog barks"), fact("A MAN HOLDS A CUP")]))
    loss = stage_loss([gold], [judge]).decomposer
    assert (loss.n_sentences, loss.precision, loss.recall, loss.f1) == (1, 1.0, 1.0, 1.0)


def test_reworded_facts_match_one_to_one_where_their_token_f1_reaches_the_threshold():
    gold = record(
        "gold",
        sentence("S.", facts=[fact("man holds red cup"), fact("dog barks loudly"), fact("cat sleeps")]),
    )
    judge = record("judge:x", sentence("S.", facts=[fact("the man holds a cup"), fact("a dog barks")]))
    # token F1: 3 of 5 and 3 of 4 words → 2/3; 2 of 3 and 2 of 3 → 2/3; every other pair 0
    matched = stage_loss([gold], [judge]).decomposer
    assert (matched.precision, matched.recall, matched.f1) == (1.0, pytest.approx(2 / 3), pytest.approx(0.8))
    strict = stage_loss([gold], [judge], threshold=0.7).decomposer
    assert (strict.precision, strict.recall, strict.f1) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="threshold must be in"):
        stage_loss([gold], [judge], threshold=0.0)


def test_sentences_at_the_same_place_with_other_spacing_are_matched():
    gold = record("gold", sentence("A  b."), sentence("C."))
    judge = record("judge:x", sentence("A b."), sentence("C."))
    assert match_sentences(gold, judge) == [(0, 0), (1, 1)]


def test_entailment_compares_facts_with_the_same_text_and_citations():
    gold = record(
        "gold",
        sentence(
            "S.",
            citations=(VISUAL, AUDIO),
            facts=[
                fact("A man speaks.", citations=(0, 1), all=True, alone=(False, True)),
                fact("A dog barks.", citations=(1,), all=True),
            ],
        ),
    )
    judge = record(
        "judge:x",
        sentence(
            "S.",
            citations=(VISUAL, AUDIO),
            facts=[
                fact("a man SPEAKS", citations=(1, 0), all=True, alone=(True, True)),
                fact("A dog barks.", citations=(0,), all=False),
            ],
        ),
    )
    loss = stage_loss([gold], [judge])
    # the dog fact cites another citation in the judge's record: not the same unit
    assert (loss.n_gold_facts, loss.n_matched_facts) == (2, 1)
    assert loss.entailment["all"].n == 1 and loss.entailment["all"].accuracy == 1.0
    # alone is aligned by citation, not by position: visual False vs True, audio True vs True
    assert (loss.entailment["alone"].n, loss.entailment["alone"].accuracy) == (2, 0.5)


def test_entailment_leaves_out_values_the_rules_copy():
    # k = 1: alone[0] is `all` again and without[0] is always false — not questions of their own
    gold = record("gold", sentence("S.", facts=[fact("A man points.", all=True)]))
    judge = record(
        "judge:x", sentence("S.", facts=[fact("A man points.", all=False, alone=(False,), without=(False,))])
    )
    loss = stage_loss([gold], [judge]).entailment
    assert (loss["all"].n, loss["alone"].n, loss["without"].n) == (1, 0, 0)


def test_entailment_skips_values_nobody_judged():
    gold = record(
        "gold",
        sentence(
            "S.",
            citations=(VISUAL, AUDIO, SPEECH),
            facts=[
                fact(
                    "A man speaks.",
                    citations=(0, 1, 2),
                    all=None,
                    alone=(True, None, False),
                    without=(None, None, None),
                )
            ],
        ),
    )
    judge = record(
        "judge:x",
        sentence(
            "S.",
            citations=(VISUAL, AUDIO, SPEECH),
            facts=[
                fact(
                    "A man speaks.",
                    citations=(0, 1, 2),
                    all=True,
                    alone=(True, True, True),
                    without=(True, True, True),
                )
            ],
        ),
    )
    loss = stage_loss([gold], [judge]).entailment
    assert (loss["all"].n, loss["alone"].n, loss["without"].n) == (0, 2, 0)
    assert math.isnan(loss["all"].accuracy)


def test_judge_responses_without_gold_are_listed():
    gold = record("gold", sentence("A."))
    judges = [record("judge:x", sentence("A.")), record("judge:x", sentence("A."), rid="r9")]
    loss = stage_loss([gold], judges)
    assert (loss.n_responses, loss.responses_not_in_gold) == (1, ["r9"])
