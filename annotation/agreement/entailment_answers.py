"""Which of a person's stage-3 answers answers a given question about a fact, whatever their fact's
citation subset or citation order.

Every entailment value is E(a, S) — "do the segments S, taken together, entail fact a" — for one set
S of the sentence's citations: `all` for the fact's whole subset, `alone[j]` for {c_j}, `without[j]`
for the subset without c_j. An invalid citation supports nothing, so S counts only valid citations.
Two people who cite a fact differently still answer the same question whenever their S is the same:
carol's `all` on the fact cited (visual 0:01) is alice's `alone` of that citation when she cited
(visual 0:01; audio 0:02). Gold and the stage-3 agreement both match answers this way.
"""

from __future__ import annotations

from functools import lru_cache

from annotation.protocol.derivation import derive_entailment
from annotation.protocol.ids import FACT_QUESTIONS, Task, entailment_task
from annotation.protocol.questions import question_citations
from annotation.protocol.records import Fact, Sentence

Segments = frozenset[int]


def question_segments(citations, sentence: Sentence, kind: str, j: int | None) -> Segments:
    """The valid ones of the citations (sentence indices) question `kind` (`all` | `alone` |
    `without`) at position j of a fact cited `citations` is about (`question_citations`)."""
    return _segments(tuple(citations), _validity(sentence), kind, j)


def _validity(sentence: Sentence) -> tuple[bool, ...]:
    return tuple(c.valid for c in sentence.citations)


@lru_cache(maxsize=1 << 14)  # a few citation patterns, asked for every voter's fact of every gold fact
def _segments(citations: tuple[int, ...], validity: tuple[bool, ...], kind: str, j: int | None) -> Segments:
    valid = {c for c in citations if 0 <= c < len(validity) and validity[c]}
    return frozenset(question_citations(citations, kind, j)) & valid


def answered(fact: Fact, sentence: Sentence) -> list[tuple[str, int | None, Segments, bool | None]]:
    """(kind, j, segments, value) of every value of the fact after PROTOCOL §2's derivation: `all`,
    then `alone[j]` and `without[j]` per citation. ValueError when the derivation rejects the fact
    (a citation index out of range, a list of the wrong length)."""
    derived = derive_entailment(fact, sentence)
    citations, validity = tuple(fact.citations), _validity(sentence)
    out = [("all", None, _segments(citations, validity, "all", None), derived.all)]
    for kind in ("alone", "without"):
        out += [
            (kind, j, _segments(citations, validity, kind, j), value)
            for j, value in enumerate(getattr(derived, kind))
        ]
    return out


def answers_by_segments(values) -> dict[Segments, list[tuple[str, int | None, bool]]]:
    """{segments: [(kind, j, value)]} of a fact's `answered` values that are not null, in their
    order."""
    out: dict[Segments, list] = {}
    for kind, j, segments, value in values:
        if value is not None:
            out.setdefault(segments, []).append((kind, j, value))
    return out


AnswerTable = dict[tuple[str, Segments], tuple[bool, Task]]
_TABLES: dict[tuple, AnswerTable] = {}
_KEPT_TABLES = 1 << 14  # a few citation patterns and answers; emptied when a stranger input fills it


def answer_table(fact: Fact, sentence: Sentence) -> AnswerTable:
    """{(kind, segments): (value, task)}: the person's value for E(fact, segments) asked as `kind`
    (`all` | `alone` | `without`) and the task it was asked as (e.g. `alone.1`) — a value of the same
    kind first — for every set of segments they gave a non-null value for (an empty set is never a
    question: it supports nothing); {} for a fact without stage 3. Gold reads it for every question
    about every voter's fact. The table is shared: read it, never change it. Looked up once per pattern
    (citations, their validity, yes/no/null answers), as `derive_entailment` is. ValueError when the
    derivation rejects the fact."""
    given = fact.entailment
    if given is None:
        return {}
    validity = _validity(sentence)
    if not all(v is None or v is True or v is False for v in (given.all, *given.alone, *given.without)):
        return _table(answered(fact, sentence))  # other values keep their own type: derived each time
    key = (tuple(fact.citations), validity, given.all, tuple(given.alone), tuple(given.without))
    table = _TABLES.get(key)
    if table is None:
        if len(_TABLES) >= _KEPT_TABLES:
            _TABLES.clear()
        table = _TABLES[key] = _table(answered(fact, sentence))
    return table


def _table(values) -> AnswerTable:
    """`answer_table` from a fact's `answered` values: per set of segments (an empty one is never a
    question), a value of the asked kind first, else the first value given for that set."""
    out: AnswerTable = {}
    for segments, matching in answers_by_segments(values).items():
        if not segments:
            continue
        for kind in FACT_QUESTIONS:
            found_kind, j, value = next((found for found in matching if found[0] == kind), matching[0])
            out[(kind, segments)] = (value, entailment_task(found_kind, j))
    return out


def could_not_tell(fact: Fact, sentence: Sentence, segments: Segments) -> bool:
    """Did the person answer "can't tell" (PROTOCOL §2; the fact's provenance says "can't tell: …")
    to a question about E(fact, `segments`)?"""
    for name, note in (fact.provenance or {}).items():
        if not str(note).startswith("can't tell"):
            continue
        try:
            task = Task.from_value_name(name)
            if question_segments(fact.citations, sentence, task.question, task.j) == segments:
                return True
        except (ValueError, IndexError):  # a malformed note in an imported record: no vote
            continue
    return False
