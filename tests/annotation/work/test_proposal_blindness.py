"""Issue 23, finding 7: a stage-2 proposal never starts from a record that used gold, so a new
annotator's fact editor cannot open on the gold facts."""

import pytest

from annotation.protocol.records import EvaluationRecord, Fact, Sentence
from annotation.work.proposals import may_seed_a_proposal
from annotation.work.session import propose_facts

TEXT = "A man waves (visual, 0:01)."
SENTENCE = Sentence(TEXT, True, citations=[])
RULE = [Fact("rule-based fact", [])]


def record(source: str, fact: str = "gold fact", **provenance) -> EvaluationRecord:
    sentence = Sentence(TEXT, True, facts=[Fact(fact, [])], provenance=provenance or None)
    return EvaluationRecord("r1", source, [sentence])


@pytest.mark.parametrize(
    "source",
    [
        "gold",
        "human:ann",
        "judge:V+gold+E",
        "judge:gold+D+E",
        "judge:V+D+GOLD",
        "judge:gold-copy",
        "judge:V+gold+gold",
    ],
)
def test_records_that_saw_gold_or_are_peoples_never_seed_a_proposal(source):
    assert propose_facts(0, SENTENCE, [record(source)], lambda s: RULE) == [
        {"text": "rule-based fact", "citations": []}
    ]


def test_a_judge_record_whose_provenance_mentions_gold_never_seeds_a_proposal():
    noted = record("judge:V+D+E", facts={"undetermined": "gold has no facts for this sentence"})
    assert not may_seed_a_proposal(noted)


def test_the_first_gold_free_judge_record_seeds_the_proposal_even_after_one_that_used_gold():
    records = [record("judge:V+gold+E"), record("judge:V+D+E", fact="judged fact")]
    assert propose_facts(0, SENTENCE, records, lambda s: RULE) == [{"text": "judged fact", "citations": []}]


def test_a_judge_named_like_goldfinch_is_not_mistaken_for_gold():
    assert may_seed_a_proposal(record("judge:V+goldfinch+E"))
