"""The scorer (PROTOCOL §3 scores): hand-computed cases and properties (§2 derivations: test_derivation.py)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from score_support import (
    AUDIO,
    AUDIO_LATE,
    BROKEN,
    VISUAL,
    VISUAL_LATE,
    judged,
    record_of,
    sentence_with,
    three_cited,
)

from annotation.protocol.derivation import derive_entailment
from annotation.protocol.records import Entailment, Fact, Sentence
from calibration.scoring.murgat_s import (
    PRECISION_MODES,
    ResponseScore,
    fact_precision,
    fact_recall,
    score_record,
    score_records,
    system_scores,
)
from calibration.scoring.reference import compare_reference, score_metric_entry

# ---------------------------------------------------------------- fact recall and precision (§3)


def test_recall_is_one_when_all_citations_entail_the_fact():
    assert fact_recall(judged([0], all=True), sentence_with([VISUAL])) == 1.0


def test_recall_is_zero_when_they_do_not():
    assert fact_recall(judged([0], all=False), sentence_with([VISUAL])) == 0.0


def test_recall_is_undetermined_when_all_is_null():
    assert fact_recall(judged([0], all=None, alone=[True]), sentence_with([VISUAL])) is None


@pytest.mark.parametrize(("mode", "expected"), [("individual", 2 / 3), ("necessity", 1 / 3), ("alce", 1.0)])
def test_three_modes_differ_on_one_fully_judged_fact(mode, expected):
    # c0, c1 support alone but are redundant; c2 supports nothing alone but is necessary
    fact = judged([0, 1, 2], all=True, alone=[True, True, False], without=[True, True, False])
    assert fact_precision(fact, three_cited(), mode) == pytest.approx(expected)


def test_individual_counts_alone_even_when_all_is_false():
    fact = judged([0, 1, 2], all=False, alone=[True, False, False], without=[False, False, False])
    assert fact_precision(fact, three_cited(), "individual") == pytest.approx(1 / 3)


@pytest.mark.parametrize("mode", ["necessity", "alce"])
def test_all_false_gives_zero_precision_even_with_nulls(mode):
    assert fact_precision(judged([0, 1, 2], all=False), three_cited(), mode) == 0.0


def test_individual_with_a_null_alone_is_undetermined():
    fact = judged([0, 1, 2], all=False, alone=[False, None, False], without=[True, True, True])
    assert fact_precision(fact, three_cited(), "individual") is None


def test_alce_citation_that_supports_alone_counts_whatever_without_is():
    fact = judged([0, 1, 2], all=True, alone=[True, True, True], without=[None, None, None])
    assert fact_precision(fact, three_cited(), "alce") == 1.0


def test_alce_necessary_citation_counts_whatever_alone_is():
    fact = judged([0, 1, 2], all=True, alone=[None, None, True], without=[False, False, None])
    assert fact_precision(fact, three_cited(), "alce") == 1.0


def test_alce_citation_that_may_be_irrelevant_leaves_the_fact_undetermined():
    fact = judged([0, 1, 2], all=True, alone=[True, None, False], without=[None, True, True])
    assert fact_precision(fact, three_cited(), "alce") is None


def test_alce_irrelevant_citations_do_not_count():
    fact = judged([0, 1, 2], all=True, alone=[True, False, False], without=[None, True, True])
    assert fact_precision(fact, three_cited(), "alce") == pytest.approx(1 / 3)


def test_necessity_with_all_true_needs_every_without():
    fact = judged([0, 1, 2], all=True, alone=[True, True, True], without=[False, None, True])
    assert fact_precision(fact, three_cited(), "necessity") is None


def test_necessity_with_all_null_is_zero_when_no_citation_is_necessary():
    fact = judged([0, 1, 2], all=None, alone=[False, False, False], without=[True, True, True])
    assert fact_precision(fact, three_cited(), "necessity") == 0.0


def test_necessity_with_all_null_and_a_necessary_citation_is_undetermined():
    fact = judged([0, 1, 2], all=None, alone=[False, False, False], without=[False, True, True])
    assert fact_precision(fact, three_cited(), "necessity") is None


def test_single_citation_with_all_null_is_undetermined_in_individual_mode():
    # alone[0] would copy all, which is unknown
    assert fact_precision(judged([0], all=None), sentence_with([VISUAL]), "individual") is None


def test_single_citation_with_given_alone_is_decided_though_all_is_null():
    fact = judged([0], all=None, alone=[True])
    assert fact_precision(fact, sentence_with([VISUAL]), "individual") == 1.0


@pytest.mark.parametrize("mode", PRECISION_MODES)
def test_invalid_citation_halves_the_precision_of_a_supported_fact(mode):
    fact = judged([0, 1], all=True, alone=[True, True], without=[False, False])
    assert fact_precision(fact, sentence_with([VISUAL, BROKEN]), mode) == 0.5


@pytest.mark.parametrize("mode", PRECISION_MODES)
def test_fact_without_entailment_is_undetermined(mode):
    assert fact_precision(Fact("a fact", [0], None), sentence_with([VISUAL]), mode) is None


def test_fact_without_entailment_has_undetermined_recall():
    assert fact_recall(Fact("a fact", [0], None), sentence_with([VISUAL])) is None


def test_unknown_precision_mode_is_an_error():
    with pytest.raises(ValueError, match="unknown precision mode 'strict'"):
        fact_precision(judged([0], all=True), sentence_with([VISUAL]), "strict")


# ---------------------------------------------------------------- one response (§3)


def supported(indices=(0,)):
    """A fact its citations support, each one alone (k = 1 or 2 fills the rest)."""
    return judged(indices, all=True, alone=[True] * len(indices))


def unsupported(indices=(0,)):
    return judged(indices, all=False, alone=[False] * len(indices))


def test_coverage_counts_verifiable_sentences_with_a_valid_citation():
    record = record_of(
        sentence_with([VISUAL], [supported()]),
        sentence_with([BROKEN]),
        sentence_with([]),
        sentence_with([AUDIO], verifiable=False),
    )
    score = score_record(record, "individual")
    assert (score.n_verifiable, score.n_cited, score.coverage) == (3, 1, pytest.approx(1 / 3))


def test_sentence_with_only_invalid_citations_does_not_enter_precision_or_recall():
    record = record_of(
        sentence_with([VISUAL], [supported()]), sentence_with([BROKEN], [judged([0], all=False)])
    )
    score = score_record(record, "individual")
    assert (score.n_facts, score.recall) == (1, 1.0)


def test_fact_whose_own_citations_are_all_invalid_is_left_out():
    record = record_of(sentence_with([VISUAL, BROKEN], [supported([0]), unsupported([1])]))
    score = score_record(record, "individual")
    assert (score.n_facts, score.precision, score.recall) == (1, 1.0, 1.0)


def test_facts_of_unverifiable_sentences_are_ignored():
    record = record_of(
        sentence_with([VISUAL], [supported()]), sentence_with([AUDIO], [unsupported()], verifiable=False)
    )
    assert score_record(record, "individual").recall == 1.0


def test_sentence_not_yet_labelled_verifiable_is_not_in_r_v():
    record = record_of(sentence_with([VISUAL], [supported()]), sentence_with([AUDIO], verifiable=None))
    assert score_record(record, "individual").coverage == 1.0


def test_precision_and_recall_are_micro_means_over_facts():
    # P = (1 + 0 + 1/2) / 3 = 1/2, R = (1 + 0 + 1) / 3 = 2/3, F1 = 4/7, coverage 2/3
    record = record_of(
        sentence_with([VISUAL], [supported(), unsupported()]),
        sentence_with([VISUAL, AUDIO], [judged([0, 1], all=True, alone=[True, False])]),
        sentence_with([]),
    )
    score = score_record(record, "individual")
    assert (score.precision, score.recall, score.f1, score.murgat_s) == pytest.approx(
        (0.5, 2 / 3, 4 / 7, 8 / 21)
    )


def test_undetermined_facts_are_left_out_of_their_mean_and_counted():
    record = record_of(
        sentence_with(
            [VISUAL, AUDIO, VISUAL_LATE],
            [
                supported([0]),
                judged([0, 1, 2], all=True, alone=[True, None, False]),
                Fact("not judged yet", [1], None),
            ],
        )
    )
    score = score_record(record, "individual")
    assert (score.precision, score.n_undetermined, score.recall, score.n_recall_undetermined) == (
        1.0,
        2,
        1.0,
        1,
    )


def test_response_without_verifiable_sentences_scores_zero_and_is_reported():
    score = score_record(record_of(sentence_with([VISUAL], verifiable=False)), "alce")
    assert (score.coverage, score.murgat_s, score.no_verifiable) == (0.0, 0.0, True)


def test_f1_is_zero_when_precision_and_recall_are_zero():
    score = score_record(record_of(sentence_with([VISUAL], [unsupported()])), "necessity")
    assert (score.f1, score.murgat_s) == (0.0, 0.0)


def test_response_whose_every_precision_is_undetermined_has_no_murgat_s():
    record = record_of(sentence_with([VISUAL, AUDIO, VISUAL_LATE], [judged([0, 1, 2], all=True)]))
    score = score_record(record, "individual")  # alone[] all null: no precision is decided
    assert (score.precision, score.recall, score.f1, score.murgat_s) == (None, 1.0, None, None)
    assert score.undetermined and score.n_undetermined == 1


def test_response_whose_every_recall_is_undetermined_has_no_murgat_s():
    record = record_of(sentence_with([VISUAL], [judged([0], all=None, alone=[True])]))
    score = score_record(record, "individual")  # alone given: P = 1, but `all` is null
    assert (score.precision, score.recall, score.murgat_s, score.n_recall_undetermined) == (
        1.0,
        None,
        None,
        1,
    )


def test_all_null_response_is_undetermined_not_zero():
    record = record_of(sentence_with([VISUAL], [Fact("not judged yet", [0], None)]))
    assert score_record(record, "alce").murgat_s is None


def test_one_decided_fact_keeps_the_response_determined():
    record = record_of(sentence_with([VISUAL], [supported(), Fact("not judged yet", [0], None)]))
    assert score_record(record, "individual").murgat_s == 1.0


def test_a_cited_sentence_with_no_fact_scores_zero_as_in_the_reference():
    score = score_record(record_of(sentence_with([VISUAL])), "individual")
    assert (score.precision, score.recall, score.murgat_s) == (0.0, 0.0, 0.0)


def tied_record(n_verifiable: int, n_facts: int, response_id: str):
    """One cited sentence of `n_verifiable`, with `n_facts` facts of which one is supported:
    coverage 1/n_verifiable, P = R = F1 = 1/n_facts."""
    cited = sentence_with([VISUAL], [supported()] + [unsupported()] * (n_facts - 1))
    return record_of(cited, *[sentence_with([]) for _ in range(n_verifiable - 1)], response_id=response_id)


def test_equal_murgat_s_values_compare_equal_whatever_the_order_of_the_arithmetic():
    # 1/5 · 1/6 and 1/6 · 1/5: in floats these differ in the last bit (0.0333…33 vs 0.0333…34)
    a = score_record(tied_record(5, 6, "a"), "individual")
    b = score_record(tied_record(6, 5, "b"), "individual")
    assert a.murgat_s == b.murgat_s == 1 / 30


def test_scoring_a_malformed_fact_names_response_sentence_and_fact():
    record = record_of(sentence_with([]), sentence_with([VISUAL], [supported([3])]), response_id="ws-7")
    with pytest.raises(ValueError, match=r"response 'ws-7' \(human:alice\), sentence 1, fact 0"):
        score_record(record, "individual")


def test_records_are_scored_record_by_record_in_every_mode():
    records = [record_of(response_id="a"), record_of(response_id="b")]
    scores = score_records(records, ["alce", "individual"])
    assert [(s.response_id, s.precision_mode) for s in scores] == [
        ("a", "alce"),
        ("a", "individual"),
        ("b", "alce"),
        ("b", "individual"),
    ]


def test_score_dict_has_the_cli_keys():
    keys = set(score_record(record_of(), "individual").to_dict())
    assert {
        "response_id",
        "source",
        "precision_mode",
        "coverage",
        "precision",
        "recall",
        "f1",
        "murgat_s",
        "n_verifiable",
        "n_cited",
        "n_facts",
        "n_undetermined",
    } <= keys


# ---------------------------------------------------------------- systems


def response_score(source, murgat_s, mode="individual", no_verifiable=False, undetermined=0):
    return ResponseScore(
        "r",
        source,
        mode,
        1.0,
        murgat_s,
        murgat_s,
        murgat_s,
        murgat_s,
        1,
        1,
        1,
        undetermined,
        0,
        no_verifiable,
    )


def test_system_score_is_the_mean_over_its_responses():
    rows = system_scores(
        [
            response_score("judge:a", 0.5, undetermined=2),
            response_score("judge:a", 0.25, no_verifiable=True, undetermined=1),
        ]
    )
    assert [(r.n_responses, r.murgat_s, r.n_undetermined, r.n_no_verifiable) for r in rows] == [
        (2, 0.375, 3, 1)
    ]


def test_system_scores_are_grouped_by_source_and_mode_in_a_stable_order():
    rows = system_scores(
        [
            response_score("judge:b", 0.1, "alce"),
            response_score("judge:b", 0.2),
            response_score("gold", 0.3, "necessity"),
        ]
    )
    assert [(r.source, r.precision_mode) for r in rows] == [
        ("gold", "necessity"),
        ("judge:b", "individual"),
        ("judge:b", "alce"),
    ]


def test_system_means_leave_undetermined_responses_out_and_count_them():
    rows = system_scores(
        [response_score("judge:a", 0.5), response_score("judge:a", None), response_score("judge:a", 0.25)]
    )
    assert [(r.n_responses, r.n_undetermined_responses, r.murgat_s, r.f1) for r in rows] == [
        (3, 1, 0.375, 0.375)
    ]


def test_system_with_only_undetermined_responses_has_no_mean():
    [row] = system_scores([response_score("judge:a", None)])
    assert (row.murgat_s, row.n_undetermined_responses, row.coverage) == (None, 1, 1.0)


# ---------------------------------------------------------------- reference semantics (metric files)


def fact_scores(precision, recall, judgments):
    return {"precision": precision, "recall": recall, "citation_judgments": judgments}


def metric_entry():
    return {
        "id": "ws-1",
        "evaluations": {
            "The man waves (visual, 0:01).": {
                "verification_worthy": {"prediction": True, "prediction_raw": "yes"},
                "atomic_facts": [
                    {
                        "fact": "A man waves (visual, 0:01).",
                        "scores": fact_scores(1.0, 1.0, {"(visual, 0:01)": True}),
                    },
                    {
                        "fact": "A man speaks (visual, 0:01; audio, 0:02).",
                        "scores": fact_scores(0.5, 0.0, {"(visual, 0:01)": True, "(audio, 0:02)": False}),
                    },
                ],
            },
            # cited in its text, but no fact holds a judgement: the reference does not count it as cited
            "A bell rings (audio, 0:02).": {
                "verification_worthy": {"prediction": True},
                "atomic_facts": [{"fact": "A bell rings.", "scores": fact_scores(0.0, 0.0, {})}],
            },
            "So the answer is B.": {"verification_worthy": {"prediction": False}},
            "Unclear line.": {"verification_worthy": {"prediction": None}},
            # media extraction failed: both values null, skipped, but the sentence counts as cited
            "A dog barks (audio, 0:03).": {
                "verification_worthy": {"prediction": True},
                "atomic_facts": [
                    {
                        "fact": "A dog barks (audio, 0:03).",
                        "scores": fact_scores(None, None, {"(audio, 0:03)": None}),
                    }
                ],
            },
        },
    }


def test_metric_entry_is_scored_like_the_reference():
    # coverage 2/3; P = (1 + 0.5) / 2; R = (1 + 0) / 2; F1 = 2·0.75·0.5 / 1.25 = 0.6; final 0.4
    score = score_metric_entry(metric_entry(), "ws-1", "judge:run")
    assert (score.coverage, score.precision, score.recall, score.f1, score.murgat_s) == pytest.approx(
        (2 / 3, 0.75, 0.5, 0.6, 0.4), abs=1e-12
    )


def test_metric_entry_counts_skipped_null_values_as_undetermined():
    score = score_metric_entry(metric_entry(), "ws-1", "judge:run")
    assert (
        score.n_verifiable,
        score.n_cited,
        score.n_facts,
        score.n_undetermined,
        score.n_recall_undetermined,
    ) == (3, 2, 3, 1, 1)


def test_metric_entry_whose_every_value_is_null_scores_zero_by_the_reference_rule():
    entry = {
        "evaluations": {
            "A dog barks (audio, 0:03).": {
                "verification_worthy": {"prediction": True},
                "atomic_facts": [
                    {"fact": "A dog barks.", "scores": fact_scores(None, None, {"(audio, 0:03)": None})}
                ],
            }
        }
    }
    score = score_metric_entry(entry, "x", "judge:run")
    assert (score.precision, score.recall, score.murgat_s, score.n_undetermined) == (0.0, 0.0, 0.0, 1)


def test_metric_entry_without_evaluations_scores_zero():
    score = score_metric_entry({"id": "x"}, "x", "judge:run")
    assert (score.murgat_s, score.no_verifiable, score.precision_mode) == (0.0, True, "individual")


def test_metric_entry_with_a_text_precision_is_an_error_naming_the_sentence():
    entry = {
        "evaluations": {
            "S (visual, 0:01).": {
                "verification_worthy": {"prediction": True},
                "atomic_facts": [{"fact": "f", "scores": fact_scores("high", 1.0, {"(visual, 0:01)": True})}],
            }
        }
    }
    with pytest.raises(ValueError, match=r"sentence 'S \(visual, 0:01\)\.', fact 0: precision"):
        score_metric_entry(entry, "0", "judge:run")


def test_matching_stored_response_score_gives_no_differences():
    entry = metric_entry()
    entry["response_score"] = {
        "coverage": 2 / 3,
        "attribution_precision": 0.75,
        "attribution_recall": 0.5,
        "citation_f1": 0.6,
        "final_score": 0.4,
    }
    assert compare_reference(entry, score_metric_entry(entry, "ws-1", "judge:run")) == []


def test_differing_stored_response_score_is_reported_by_field():
    entry = metric_entry()
    entry["response_score"] = {"coverage": 1.0, "attribution_precision": 0.75}
    differences = compare_reference(entry, score_metric_entry(entry, "ws-1", "judge:run"))
    assert differences == ["coverage: stored 1, computed 0.666667"]


def test_entry_without_stored_response_score_has_nothing_to_compare():
    assert compare_reference({"evaluations": {}}, score_metric_entry({}, "0", "judge:run")) == []


# ---------------------------------------------------------------- properties

citation_strategy = st.sampled_from([VISUAL, AUDIO, VISUAL_LATE, AUDIO_LATE, BROKEN])
maybe_bool = st.sampled_from([True, False, None])


@st.composite
def sentences(draw, max_citations=4):
    citations = draw(st.lists(citation_strategy, min_size=1, max_size=max_citations))
    facts = []
    for _ in range(draw(st.integers(0, 3))):
        indices = draw(
            st.lists(st.integers(0, len(citations) - 1), min_size=1, max_size=len(citations), unique=True)
        )
        if draw(st.integers(0, 9)) == 0:
            facts.append(Fact("f", indices, None))
            continue
        k = len(indices)
        facts.append(
            judged(
                indices,
                draw(maybe_bool),
                draw(st.lists(maybe_bool, min_size=k, max_size=k)),
                draw(st.lists(maybe_bool, min_size=k, max_size=k)),
            )
        )
    return Sentence("s", draw(maybe_bool), citations, facts)


def precision_when_known(everything, alone, without, mode):
    """The §3 formulas on values that are all known (exact: the scorer computes in rationals)."""
    k = len(alone)
    if mode == "individual":
        return Fraction(sum(1 for a in alone if a), k)
    if not everything:
        return Fraction(0)
    if mode == "necessity":
        return Fraction(sum(1 for w in without if not w), k)
    return Fraction(sum(1 for a, w in zip(alone, without, strict=True) if a or not w), k)


def precision_by_enumeration(fact, sentence, mode):
    """Try every value of `all` (re-deriving) and of each remaining null; None unless all agree."""
    outcomes = set()
    given = fact.entailment
    for everything in [given.all] if given.all is not None else [True, False]:
        derived = derive_entailment(
            Fact("f", fact.citations, Entailment(everything, given.alone, given.without)), sentence
        )
        slots = [
            (name, j)
            for name in ("alone", "without")
            for j, v in enumerate(getattr(derived, name))
            if v is None
        ]
        for values in itertools.product([True, False], repeat=len(slots)):
            filled = {"alone": list(derived.alone), "without": list(derived.without)}
            for (name, j), value in zip(slots, values, strict=True):
                filled[name][j] = value
            outcomes.add(precision_when_known(everything, filled["alone"], filled["without"], mode))
    return outcomes.pop() if len(outcomes) == 1 else None


@settings(max_examples=300, deadline=None)
@given(sentences(max_citations=3), st.sampled_from(PRECISION_MODES))
def test_precision_is_decided_exactly_when_every_completion_agrees(sentence, mode):
    for fact in sentence.facts:
        if fact.entailment is not None:
            assert fact_precision(fact, sentence, mode) == precision_by_enumeration(fact, sentence, mode)


@settings(max_examples=200, deadline=None)
@given(st.lists(sentences(), max_size=4), st.sampled_from(PRECISION_MODES))
def test_every_determined_score_lies_between_zero_and_one(sentence_list, mode):
    score = score_record(record_of(*sentence_list), mode)
    for value in (score.coverage, score.precision, score.recall, score.f1, score.murgat_s):
        assert value is None or 0.0 <= value <= 1.0


@settings(max_examples=300, deadline=None)
@given(sentences(), st.booleans(), maybe_bool, maybe_bool, st.sampled_from(PRECISION_MODES))
def test_adding_a_citation_that_supports_nothing_never_raises_precision(
    sentence, new_is_valid, recorded_alone, recorded_without, mode
):
    extended = Sentence("s", True, [*sentence.citations, VISUAL_LATE if new_is_valid else BROKEN])
    new_index = len(sentence.citations)
    for fact in sentence.facts:
        if fact.entailment is None:
            continue
        before = fact_precision(fact, sentence, mode)
        given = fact.entailment
        # a valid citation judged useless; an invalid one may carry anything, the rules override it
        alone = False if new_is_valid else recorded_alone
        without = given.all if new_is_valid else recorded_without
        longer = Fact(
            "f",
            [*fact.citations, new_index],
            Entailment(given.all, [*given.alone, alone], [*given.without, without]),
        )
        after = fact_precision(longer, extended, mode)
        if before is not None and after is not None:
            assert after <= before


def test_a_response_score_is_the_exact_rational_rounded_once():
    # facts of precision 1/3 and 1/2 (individual), both entailed; 1 of 3 verifiable sentences cited:
    # P = 5/12, R = 1, F1 = 10/17, MURGAT-S = 1/3 · 10/17 = 10/51, each rounded from the exact value
    cited = sentence_with(
        [VISUAL, AUDIO, VISUAL_LATE],
        [
            judged([0, 1, 2], all=True, alone=[True, False, False], without=[True, True, True]),
            judged([0, 1], all=True, alone=[True, False]),
        ],
    )
    score = score_record(record_of(cited, sentence_with([]), sentence_with([])), "individual")
    assert score.precision == 5 / 12 and score.recall == 1.0
    assert score.f1 == 10 / 17 and score.coverage == 1 / 3
    assert score.murgat_s == float(Fraction(1, 3) * Fraction(10, 17)) == 10 / 51
