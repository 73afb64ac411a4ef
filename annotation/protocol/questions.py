"""The stage-3 questions a fact gets (PROTOCOL §2 derives the rest) and the citations each one is
about — the segments a person plays to answer it, an adjudicator replays to rule on it, and gold
matches answers by."""

from __future__ import annotations

from annotation.protocol.ids import Task, entailment_task
from annotation.protocol.records import Fact, Sentence


def entailment_questions(fact: Fact, sentence: Sentence) -> list[tuple[Task, str, int | None]]:
    """[(task, kind, j)] a person must answer for `fact`; the rest PROTOCOL §2 derives.

    Counting only the valid citations (an invalid one supports nothing, so alone[j] = False and
    without[j] = all are never asked): none → nothing is asked (the fact is left out of P and
    R); one → `all` only (alone = all, without = False); two → `all` and each alone[j] (each
    without is the other's alone); three or more → `all`, alone[j] and without[j] for each.
    Raises ValueError on a citation index outside the sentence.
    """
    k = len(fact.citations)
    if k == 0:
        return []
    for index in fact.citations:
        if not 0 <= index < len(sentence.citations):
            raise ValueError(
                f"fact '{fact.text}': citation index {index} is out of range "
                f"(its sentence has {len(sentence.citations)} citations)"
            )
    valid = [j for j, index in enumerate(fact.citations) if sentence.citations[index].valid]
    if not valid:
        return []
    tasks: list[tuple[Task, str, int | None]] = [(entailment_task("all"), "all", None)]
    if len(valid) >= 2:
        tasks += [(entailment_task("alone", j), "alone", j) for j in valid]
    if len(valid) >= 3:
        tasks += [(entailment_task("without", j), "without", j) for j in valid]
    return tasks


def question_citations(citations, kind: str, j: int | None) -> tuple[int, ...]:
    """The sentence's citations (indices) question `kind` (`all` | `alone` | `without`) at
    position j of a fact cited `citations` is about: all of them, the j-th alone, or all but the
    j-th."""
    if kind == "alone":
        return (citations[j],)
    if kind == "without":
        return tuple(c for position, c in enumerate(citations) if position != j)
    return tuple(citations)
