"""The "Same fact?" question: two wordings of one sentence's facts that the matcher can neither join
nor keep apart for sure (`paraphrase.verdict` says ASK) go to a person instead of into a dispute.

A question is a doubt of the sentence's clusters (`clusters.Doubt`): its two wordings, the sentence
and the segments either cites. The adjudicator answers it with one key; the answer is a ruling in
the event log — unit `s{i}/{pair key}` (the key hashes the two normalised wordings, in either
order), task `gold.same`, value {"value": bool, "reason": None} — written by `adjudication.adjudicate` like
every ruling, so it is undone by `store.undo_last` and the latest answer wins. From then on the
clusters read it (`answers_from_rulings`): a "yes" joins the two wordings' clusters, a "no" keeps
them apart, and the question is not asked again.

A facts dispute that only such open questions make (`wording_only`: every decomposer states the
same clusters once each doubt's two clusters are taken as one) is a difference of wording, not of
substance: the Disputes page counts it apart and asks the questions first.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from annotation.agreement.alignment import normalise_fact_text
from annotation.protocol.ids import QuestionKey, Task, Unit

SAME_TASK = Task("same")


def pair_key(text_a: str, text_b: str) -> str:
    """A short stable key for two wordings, whichever comes first (12 hex digits)."""
    first, second = sorted((normalise_fact_text(text_a), normalise_fact_text(text_b)))
    return hashlib.sha1(f"{first}\n{second}".encode()).hexdigest()[:12]


def pair_unit(sentence: int, text_a: str, text_b: str) -> Unit:
    """`s{i}/{pair key}`: the unit of the "Same fact?" answer on two wordings of sentence i's facts."""
    return Unit(int(sentence), pair_key(text_a, text_b))


def answers_from_rulings(rulings: dict, response_id: str):
    """sentence index → answered(text_a, text_b): the latest "Same fact?" answer on the two wordings
    (True / False), None when nobody answered or the wordings are the same. `rulings` as
    `adjudication.rulings_from_events` gives them ({(response_id, unit, task): Ruling})."""
    if not any(task == SAME_TASK and rid == response_id for rid, _unit, task in rulings):
        return None  # nothing answered in this response: the clusters need not ask

    def for_sentence(sentence: int):
        def answered(text_a: str, text_b: str) -> bool | None:
            if normalise_fact_text(text_a) == normalise_fact_text(text_b):
                return None
            ruling = rulings.get((response_id, pair_unit(sentence, text_a, text_b), SAME_TASK))
            return None if ruling is None else bool(ruling.value)

        return answered

    return for_sentence


@dataclass(frozen=True)
class SameFactQuestion:
    """One "Same fact?" question: two wordings of sentence `sentence`'s facts, and the segments
    (sentence citation indices) either cites."""

    response_id: str
    sentence: int
    text_a: str
    text_b: str
    segments: tuple[int, ...]

    @property
    def unit(self) -> Unit:
        return pair_unit(self.sentence, self.text_a, self.text_b)

    @property
    def key(self) -> str:
        return str(QuestionKey(self.response_id, self.unit, SAME_TASK))


def open_questions(gold) -> list[SameFactQuestion]:
    """The "Same fact?" questions nobody answered yet, of every sentence whose facts a gold set
    compared, in the gold set's order (response, sentence); each pair of wordings once."""
    out, seen = [], set()
    for value in gold.values:
        if value.question != "facts" or value.clusters is None:
            continue
        clusters = value.clusters
        for doubt in clusters.doubts:
            cited = set(clusters.clusters[doubt.first].citations) | set(
                clusters.clusters[doubt.second].citations
            )
            question = SameFactQuestion(
                value.response_id, value.sentence, doubt.text_a, doubt.text_b, tuple(sorted(cited))
            )
            if question.key not in seen:
                seen.add(question.key)
                out.append(question)
    return out


def wording_only(value) -> bool:
    """Is this gold value a facts dispute that only open "Same fact?" questions make (module doc)?"""
    if value.question != "facts" or value.clusters is None or not value.clusters.doubts:
        return False
    if len(set(value.compared.values())) <= 1:
        return False
    parent = {c.index: c.index for c in value.clusters.clusters}

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for doubt in value.clusters.doubts:
        parent[root(doubt.first)] = root(doubt.second)
    merged = {
        frozenset((root(index) if index in parent else index, cites) for index, cites in signature)
        for signature in value.compared.values()
    }
    return len(merged) == 1
