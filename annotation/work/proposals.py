"""A predictable first proposal of a sentence's atomic facts (PROTOCOL stage 2), for annotators to edit.

Rule-based, so the same sentence always gives the same proposal.
"""

from __future__ import annotations

import re

from annotation.protocol import records
from annotation.protocol.citations import Citation, find_citation_groups, strip_citations

_META_RE = re.compile(
    r"^(?:(?:in|from|according\s+to|based\s+on)\s+the\s+(?:video|audio|clip|footage|recording|frame|scene"
    r"|image|visuals?|soundtrack)\s*,?\s*"
    r"|(?:the|this)\s+(?:video|audio|clip|footage|recording|frame|scene|image)\s+(?:clearly\s+)?"
    r"(?:shows|displays|depicts|reveals|indicates|demonstrates|confirms|features|contains)\s+(?:that\s+)?"
    r"|(?:we|i|you|one)\s+(?:can\s+|could\s+)?(?:clearly\s+)?(?:see|hear|observe|notice)\s+(?:that\s+)?"
    r"|it\s+(?:is|can\s+be)\s+(?:clearly\s+)?(?:seen|heard|observed|shown)\s+that\s+"
    r"|as\s+(?:seen|shown|heard)\s+in\s+the\s+(?:video|audio|clip|footage)\s*,?\s*)+",
    re.IGNORECASE,
)
_SEPARATOR_RE = re.compile(r";\s+|,?\s+and\s+")
_PRONOUNS = {"he", "she", "they", "it", "we", "i", "you", "there", "someone", "everyone", "nobody"}
_DETERMINERS = {
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "his",
    "her",
    "their",
    "its",
    "another",
    "one",
    "two",
    "some",
}
_VERBS = {
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "has",
    "have",
    "had",
    "can",
    "could",
    "will",
    "would",
    "does",
    "do",
    "did",
    "may",
    "might",
    "ran",
    "sat",
    "stood",
    "took",
    "put",
    "held",
    "went",
    "came",
    "saw",
    "said",
    "made",
    "gave",
    "got",
    "left",
    "began",
    "wore",
    "threw",
    "ate",
    "drank",
    "fell",
}


def rule_based_facts(sentence: records.Sentence) -> list[records.Fact]:
    """A predictable first proposal of atomic facts, for annotators to edit.

    Citation groups are removed from the text, meta-talk ("The video shows that",
    "In the audio,", "We can see") is dropped, and the sentence is cut at `; `
    and at `, and ` / ` and ` when both sides look like clauses (a verb-ish word
    after the subject). Each fact gets every valid citation of the sentence;
    but when a group sits inside the sentence, a clause gets the valid citations
    of the first group at or after its start (clauses after the last group get
    all). An empty sentence gives []; any other sentence at least one fact.
    """
    text = sentence.text
    if not text.strip():
        return []
    all_valid = sentence.valid_citation_indices
    units = _citation_units(text, sentence.citations)
    internal = [u for u in units if any(ch.isalnum() for ch in strip_citations(text[u[1] :]))]
    facts = []
    for start, end in _clauses(text):
        fact_text = _fact_text(text[start:end])
        if not fact_text:
            continue
        later = [indices for unit_start, _, indices in units if unit_start >= start]
        citations = later[0] if internal and later else all_valid
        facts.append(records.Fact(text=fact_text, citations=list(citations)))
    if not facts:
        fallback = strip_citations(text) or text.strip()
        facts.append(records.Fact(text=fallback, citations=list(all_valid)))
    return facts


def _citation_units(text: str, citations: list[Citation]) -> list[tuple[int, int, list[int]]]:
    """Groups in `text` (adjacent ones merged) as (start, end, valid citation indices).

    The k-th citation written in the text is `citations[k]`, whose validity
    (e.g. against the media's duration) is the one that counts.
    """
    units: list[tuple[int, int, list[int]]] = []
    k = 0
    for group in find_citation_groups(text):
        indices = []
        for _ in group.citations:
            if k < len(citations) and citations[k].valid:
                indices.append(k)
            k += 1
        if units and not text[units[-1][1] : group.start].strip():
            start, _, previous = units[-1]
            units[-1] = (start, group.end, previous + indices)
        else:
            units.append((group.start, group.end, indices))
    return units


def _clauses(text: str) -> list[tuple[int, int]]:
    """[start, end) of each clause: cut at `; ` always, at `and` only between clauses."""
    groups = find_citation_groups(text)
    cuts, clause_start = [], 0
    for sep in _SEPARATOR_RE.finditer(text):
        if any(g.start <= sep.start() < g.end for g in groups):
            continue
        is_and = not sep.group().startswith(";")
        left = _META_RE.sub("", strip_citations(text[clause_start : sep.start()])).split()
        right = _META_RE.sub("", strip_citations(text[sep.end() :])).split()
        if is_and and not (_looks_like_clause(left) and _looks_like_clause(right)):
            continue
        cuts.append((clause_start, sep.start()))
        clause_start = sep.end()
    cuts.append((clause_start, len(text)))
    return cuts


def _looks_like_clause(words: list[str]) -> bool:
    """A subject then a verb-ish word: `the woman smiles`, `he picks`, `Anna waves`."""
    if not words:
        return False
    first = words[0].strip("*_\"'").lower()
    if first in _DETERMINERS:
        window = words[2:5]
    elif first in _PRONOUNS or words[0][:1].isupper():
        window = words[1:4]
    else:
        return False
    return any(_is_verbish(w) for w in window)


def _is_verbish(word: str) -> bool:
    w = word.strip(".,;:!?\"'*_()").lower()
    if w in _VERBS:
        return True
    if len(w) <= 3:
        return False
    return w.endswith(("ed", "ing")) or (w.endswith("s") and not w.endswith(("ss", "us", "is")))


def _fact_text(clause: str) -> str:
    """A clause as a stand-alone statement: no citations, meta-talk or bold; capitalised; ends with '.'."""
    fact = strip_citations(clause).replace("**", "").replace("__", "")
    fact = _META_RE.sub("", fact.strip()).strip(" ,;:")
    fact = fact.rstrip(" .!?")
    if not any(ch.isalnum() for ch in fact):
        return ""
    return fact[0].upper() + fact[1:] + "."
