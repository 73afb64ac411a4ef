"""A sentence's fact list as a person confirms it or an adjudicator rules it (stage 2): what makes
one acceptable, and its one normal form ([{'text', 'citations'}], text stripped, citations sorted
without repeats)."""

from __future__ import annotations


def check_fact_list(facts: list[dict], n_citations: int) -> list[str]:
    """Problems with a fact list a person is about to confirm (empty when fine): at least
    one fact; every fact has text and ticks at least one of the sentence's citations."""
    problems = []
    if not facts:
        problems.append("add at least one fact")
    for position, fact in enumerate(facts, start=1):
        if not str(fact.get("text", "")).strip():
            problems.append(f"fact {position} has no text")
        citations = fact.get("citations") or []
        if not citations:
            problems.append(f"fact {position} cites nothing: tick at least one citation")
        elif any(not 0 <= c < n_citations for c in citations):
            problems.append(f"fact {position} ticks a citation the sentence does not have")
    return problems


def normalise_fact_list(facts: list[dict]) -> list[dict]:
    """The fact list in its normal form: each fact's text stripped, its citations as sorted
    distinct ints."""
    return [
        {"text": str(f["text"]).strip(), "citations": sorted({int(c) for c in f["citations"]})} for f in facts
    ]
