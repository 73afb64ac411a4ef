"""Fact-list alignment: which atomic facts of one decomposition are the same as another's.

Used to compare a judge's decomposition with gold (calibration); the Hungarian core
(`best_pairs`) also places each annotator's facts in the fact clusters (`clusters.py`), whose
similarity sees through rewording (`paraphrase.py`). Similarity here is token F1 — the harmonic mean
of token precision and recall over the multisets of normalised words — rather than a
character ratio: facts are short claims whose words carry the meaning, and token F1
does not reward shared letters ("man" vs "woman"). A one-to-one alignment maximises the
summed similarity (Hungarian method) and keeps pairs at or above a threshold.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache

import numpy as np

from annotation.protocol.citations import strip_citations

_WORD = re.compile(r"[^\W_]+")


@lru_cache(maxsize=1 << 16)  # the same fact texts come back for every judge and mode
def normalise_fact_text(text: str) -> str:
    """The words of `text`, case-folded (after Unicode NFKC), joined by single spaces;
    citation groups and punctuation are dropped: 'The man points (visual, 0:12).' →
    'the man points'. Any string is accepted."""
    plain = unicodedata.normalize("NFKC", strip_citations(text)).casefold()
    return " ".join(_WORD.findall(plain))


def fact_similarity(a: str, b: str) -> float:
    """Token F1 in [0, 1] between the normalised texts; 1.0 when both have no words, 0.0
    when exactly one has none."""
    tokens_a, tokens_b = Counter(normalise_fact_text(a).split()), Counter(normalise_fact_text(b).split())
    if not tokens_a and not tokens_b:
        return 1.0
    common = sum((tokens_a & tokens_b).values())
    if common == 0:
        return 0.0
    precision = common / sum(tokens_a.values())
    recall = common / sum(tokens_b.values())
    return 2 * precision * recall / (precision + recall)


def best_pairs(similarity: np.ndarray, threshold: float) -> list[tuple[int, int, float]]:
    """One-to-one pairs (row, column, similarity) of a rows × columns similarity matrix that
    maximise the summed similarity (Hungarian method), keeping those at or above `threshold`;
    sorted by row. An empty matrix gives []."""
    if similarity.size == 0:
        return []
    if similarity.size == 1:  # one fact each, the common case: nothing to assign
        return [(0, 0, float(similarity[0, 0]))] if similarity[0, 0] >= threshold else []
    # imported here: ≈ 0.5 CPU s that a process which never aligns facts (an import command) skips
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(similarity, maximize=True)
    return sorted(
        (int(i), int(j), float(similarity[i, j]))
        for i, j in zip(rows, cols, strict=True)
        if similarity[i, j] >= threshold
    )


def align_facts(
    facts_a: list[str], facts_b: list[str], threshold: float = 0.5
) -> list[tuple[int, int, float]]:
    """One-to-one pairs (index in a, index in b, similarity) maximising total similarity,
    keeping only pairs with similarity >= threshold; sorted by the index in a.

    Empty lists give []. Raises ValueError for a threshold outside (0, 1]: at 0 every
    leftover pair would "match"."""
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    if not facts_a or not facts_b:
        return []
    return best_pairs(np.array([[fact_similarity(a, b) for b in facts_b] for a in facts_a]), threshold)


def fact_match_counts(facts_a: list[str], facts_b: list[str], threshold: float = 0.5) -> tuple[int, int, int]:
    """(matched pairs, len(a), len(b)) — the parts to micro-average P/R over many sentences."""
    return len(align_facts(facts_a, facts_b, threshold)), len(facts_a), len(facts_b)


def fact_set_prf(
    facts_a: list[str], facts_b: list[str], threshold: float = 0.5
) -> tuple[float, float, float]:
    """Precision, recall, F1 of decomposition `a` against reference `b`.

    precision = matched / |a|, recall = matched / |b|, matches from `align_facts`. Two
    empty lists agree perfectly: (1, 1, 1). One empty list against a non-empty one
    gives (0, 0, 0) — nothing found, or only wrong facts found."""
    matched, n_a, n_b = fact_match_counts(facts_a, facts_b, threshold)
    if n_a == 0 and n_b == 0:
        return 1.0, 1.0, 1.0
    precision = matched / n_a if n_a else 0.0
    recall = matched / n_b if n_b else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1
