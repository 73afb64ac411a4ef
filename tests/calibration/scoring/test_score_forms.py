"""Scoring a stored score form (annotation/store/record_form.py) gives the record's scores by
PROTOCOL §3: the per-fact precisions and recalls of the protocol's own functions, averaged exactly,
whatever the record holds (invalid citations, nulls, facts not judged, empty sentences)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from score_support import AUDIO, BROKEN, VISUAL, VISUAL_LATE, judged

from annotation.protocol.derivation import fact_citation_validity
from annotation.protocol.records import EvaluationRecord, Fact, Sentence
from annotation.store.record_form import form_text, read_form
from calibration.scoring.murgat_s import (
    PRECISION_MODES,
    fact_precision,
    fact_recall,
    response_score,
    score_form_modes,
    score_record_modes,
)

maybe = st.sampled_from([True, False, None])


@st.composite
def any_sentence(draw):
    citations = draw(st.lists(st.sampled_from([VISUAL, AUDIO, VISUAL_LATE, BROKEN]), max_size=3))
    facts = []
    for _ in range(draw(st.integers(0, 3)) if citations else 0):
        indices = draw(st.lists(st.integers(0, len(citations) - 1), min_size=1, max_size=3, unique=True))
        kind = draw(st.integers(0, 9))
        if kind == 0:
            facts.append(Fact("not judged", indices, None))
        elif kind == 1:
            facts.append(judged(indices, draw(maybe)))  # empty alone/without: nothing judged
        else:
            k = len(indices)
            lists = st.lists(maybe, min_size=k, max_size=k)
            facts.append(judged(indices, draw(maybe), draw(lists), draw(lists)))
    return Sentence(draw(st.sampled_from(["", "s"])), draw(maybe), citations, facts)


def protocol_score(record: EvaluationRecord, mode: str):
    """§3 from the per-fact functions, averaged in rationals by `response_score`."""
    n_verifiable = n_cited = 0
    precisions, recalls = [], []
    for sentence in record.sentences:
        if sentence.verifiable is not True:
            continue
        n_verifiable += 1
        if not any(c.valid for c in sentence.citations):
            continue
        n_cited += 1
        for fact in sentence.facts:
            if any(fact_citation_validity(fact, sentence)):
                precisions.append(fact_precision(fact, sentence, mode))
                recalls.append(fact_recall(fact, sentence))
    return response_score(record.response_id, record.source, mode, n_verifiable, n_cited, precisions, recalls)


@settings(max_examples=400, deadline=None)
@given(st.lists(any_sentence(), max_size=5))
def test_a_stored_form_scores_as_the_protocol_scores_its_record(sentences):
    record = EvaluationRecord("r1", "judge:x", sentences)
    form = read_form(form_text(record))
    from_form = score_form_modes("r1", "judge:x", form, PRECISION_MODES)
    assert from_form == [protocol_score(record, mode) for mode in PRECISION_MODES]
    assert from_form == score_record_modes(record, PRECISION_MODES)


def test_modes_come_back_in_the_order_asked_from_a_form():
    record = EvaluationRecord("r1", "judge:x", [Sentence("s", True, [VISUAL], [judged([0], True, [True])])])
    form = read_form(form_text(record))
    assert [s.precision_mode for s in score_form_modes("r1", "judge:x", form, ["alce", "individual"])] == [
        "alce",
        "individual",
    ]
