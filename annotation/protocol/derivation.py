"""PROTOCOL §2's derivation rules: fill the entailment values a person is never asked.

Lives in `annotation/` because the app (which questions to ask), agreement (compare
derived values) and the scorer all need the one same rule.
"""

from __future__ import annotations

from annotation.protocol.records import Entailment, Fact, Sentence


def _aligned(values: list, k: int, name: str, fact: Fact) -> list:
    """`values` as a k-long list; an empty list means nothing was judged."""
    if not values:
        return [None] * k
    if len(values) != k:
        raise ValueError(
            f"fact '{fact.text}': '{name}' has {len(values)} entries but the fact has {k} citations"
        )
    return list(values)


def fact_citation_validity(fact: Fact, sentence: Sentence) -> list[bool]:
    """Validity of each of the fact's citations; ValueError when an index points nowhere."""
    out = []
    for index in fact.citations:
        if not 0 <= index < len(sentence.citations):
            raise ValueError(
                f"fact '{fact.text}': citation index {index} is out of range "
                f"(its sentence has {len(sentence.citations)} citations)"
            )
        out.append(sentence.citations[index].valid)
    return out


def derive_entailment(fact: Fact, sentence: Sentence) -> Entailment:
    """A filled copy of the fact's entailment by the PROTOCOL §2 rules; the fact is not changed.

    1. an invalid citation j: `alone[j] = False`, `without[j] = all`, overwriting what was recorded;
    2. k = 1: `alone[0] = all`, `without[0] = False`, only where null;
    3. k = 2: `without[0] = alone[1]`, `without[1] = alone[0]`, only where null.
    A missing entailment (stage 3 not done) is derived as if every value were null. Empty
    `alone`/`without` lists mean "not judged". Raises ValueError naming the fact when a citation
    index is out of the sentence's range or a list's length differs from the fact's citations.
    """
    validity = fact_citation_validity(fact, sentence)
    k = len(validity)
    given = fact.entailment or Entailment()
    everything = given.all
    alone = _aligned(given.alone, k, "alone", fact)
    without = _aligned(given.without, k, "without", fact)
    for j, valid in enumerate(validity):
        if not valid:
            alone[j], without[j] = False, everything
    if k == 1:
        if alone[0] is None:
            alone[0] = everything
        if without[0] is None:
            without[0] = False
    elif k == 2:
        for j in (0, 1):
            if without[j] is None:
                without[j] = alone[1 - j]
    return Entailment(all=everything, alone=alone, without=without)
