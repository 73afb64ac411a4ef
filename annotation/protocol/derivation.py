"""PROTOCOL §2's derivation rules: fill the entailment values a person is never asked.

Lives in `annotation/` because the app (which questions to ask), agreement (compare
derived values) and the scorer all need the one same rule.
"""

from __future__ import annotations

from functools import lru_cache

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

    1. an invalid citation j supports nothing: `alone[j] = False`, `without[j] = all`, overwriting
       what was recorded (applied first);
    2. a citation j whose every other citation is invalid (k = 1 included): {cj} supports what C
       does, so `alone[j] = all` and `without[j] = False`, only where null;
    3. two valid citations u, v (k = 2, or more with the rest invalid, which support nothing):
       `without[u] = alone[v]`, `without[v] = alone[u]`, only where null.
    A missing entailment (stage 3 not done) is derived as if every value were null. Empty
    `alone`/`without` lists mean "not judged". Raises ValueError naming the fact when a citation
    index is out of the sentence's range or a list's length differs from the fact's citations.
    """
    validity = fact_citation_validity(fact, sentence)
    k = len(validity)
    given = fact.entailment or Entailment()
    alone = _aligned(given.alone, k, "alone", fact)
    without = _aligned(given.without, k, "without", fact)
    if all(v is None or v is True or v is False for v in (given.all, *alone, *without)):
        # yes/no/null values (what people and judges give): the rules' result looked up, once per
        # pattern; other values (an imported record's) compare equal to booleans (1 == True), so
        # they are derived each time, keeping their own type
        everything, alone, without = _filled(tuple(validity), given.all, tuple(alone), tuple(without))
        return Entailment(all=everything, alone=list(alone), without=list(without))
    everything, alone, without = _fill(validity, given.all, alone, without)
    return Entailment(all=everything, alone=alone, without=without)


@lru_cache(maxsize=1 << 12)  # a handful of citation patterns and answers
def _filled(validity: tuple, everything, alone: tuple, without: tuple) -> tuple:
    filled = _fill(validity, everything, list(alone), list(without))
    return filled[0], tuple(filled[1]), tuple(filled[2])


def _fill(validity, everything, alone: list, without: list) -> tuple:
    """(all, alone, without) after the rules of `derive_entailment`, `alone`/`without` filled in place."""
    k = len(validity)
    for j, valid in enumerate(validity):
        if not valid:
            alone[j], without[j] = False, everything
    valid_positions = [j for j, valid in enumerate(validity) if valid]
    for j in range(k):
        if all(not validity[other] for other in range(k) if other != j):
            if alone[j] is None:
                alone[j] = everything
            if without[j] is None:
                without[j] = False
    if len(valid_positions) == 2:
        u, v = valid_positions
        if without[u] is None:
            without[u] = alone[v]
        if without[v] is None:
            without[v] = alone[u]
    return everything, alone, without
