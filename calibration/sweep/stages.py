"""Where a judge loses against gold, stage by stage, on the units both have.

- verifier: the `verifiable` label of sentences matched between the two records;
- decomposer: fact-set precision/recall/F1 (annotation.agreement.alignment) on sentences both
  put in R_vc (verifiable with a valid citation), micro-averaged over sentences;
- entailment: `all`, `alone[j]`, `without[j]` on facts both records have — same
  normalised text and the same set of citations — after the PROTOCOL §2 derivations.

Only questions a judge actually answers are compared: an invalid citation's values
and the values the rules copy from another (k = 1: `alone[0]` is `all`, `without[0]`
is false; k = 2: `without[j]` is `alone[1−j]`) would count one answer twice or reward
a rule, so they are left out.
"""

from __future__ import annotations

import math
import threading
import weakref
from dataclasses import asdict, dataclass, field
from functools import lru_cache, partial

import numpy as np

from annotation.agreement.alignment import best_pairs, fact_match_counts, fact_similarity, normalise_fact_text
from annotation.protocol.derivation import derive_entailment
from annotation.protocol.records import EvaluationRecord, Fact, Sentence
from calibration.stats.label_metrics import accuracy, binary_prf, cohen_kappa

ENTAILMENT_FIELDS = ("all", "alone", "without")


@dataclass
class LabelAgreement:
    """Judge labels against gold labels on `n` shared units (NaN metrics when n = 0)."""

    n: int = 0
    accuracy: float = math.nan
    kappa: float = math.nan

    @classmethod
    def of(cls, judge: list, gold: list) -> LabelAgreement:
        return cls(len(gold), accuracy(judge, gold), cohen_kappa(judge, gold))


@dataclass
class VerifierLoss(LabelAgreement):
    """Plus precision/recall/F1 of the label "verifiable" (judge predicts, gold is truth);
    `n_unmatched` gold sentences had no judge sentence, `n_unlabelled` pairs lacked a label."""

    precision: float = math.nan
    recall: float = math.nan
    f1: float = math.nan
    n_unmatched: int = 0
    n_unlabelled: int = 0


@dataclass
class DecomposerLoss:
    """Micro-averaged fact-set P/R/F1 over `n_sentences` sentences both put in R_vc."""

    n_sentences: int = 0
    precision: float = math.nan
    recall: float = math.nan
    f1: float = math.nan


@dataclass
class StageLoss:
    """One judge source against gold; `n_responses` shared, `responses_not_in_gold` listed."""

    source: str
    n_responses: int
    verifier: VerifierLoss
    decomposer: DecomposerLoss
    entailment: dict[str, LabelAgreement]
    n_gold_facts: int = 0
    n_matched_facts: int = 0
    responses_not_in_gold: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["entailment"] = {name: asdict(value) for name, value in self.entailment.items()}
        return out


def _sentence_key(text: str) -> str:
    return " ".join(text.split())


def match_sentences(gold: EvaluationRecord, judge: EvaluationRecord) -> list[tuple[int, int]]:
    """(gold index, judge index) pairs: by position when the texts agree (up to whitespace),
    otherwise the first unused judge sentence with the same text; unmatched gold sentences
    are left out."""
    judge_sentences = judge.sentences
    judge_keys: list[str] | None = None  # made when a sentence is not where gold has it
    used: set[int] = set()
    pairs = []
    for i, sentence in enumerate(gold.sentences):
        # the same text at the same place (the common case) needs no key: equal texts, equal keys
        if i < len(judge_sentences) and judge_sentences[i].text == sentence.text and i not in used:
            used.add(i)
            pairs.append((i, i))
            continue
        if judge_keys is None:
            judge_keys = [_sentence_key(s.text) for s in judge_sentences]
        key = _sentence_key(sentence.text)
        if i < len(judge_keys) and judge_keys[i] == key and i not in used:
            j = i
        else:
            j = next((j for j, k in enumerate(judge_keys) if k == key and j not in used), None)
        if j is not None:
            used.add(j)
            pairs.append((i, j))
    return pairs


def _citation_identity(sentence: Sentence, index: int) -> tuple:
    c = sentence.citations[index]
    return (c.modality, c.start, c.end) if c.valid else (c.modality, "invalid", c.raw)


def _identities(sentence: Sentence) -> list[tuple]:
    """Each citation's identity, by index: what a fact's citations are compared by."""
    return [_citation_identity(sentence, i) for i in range(len(sentence.citations))]


def _fact_key(fact: Fact, identities: list[tuple]) -> tuple:
    return normalise_fact_text(fact.text), frozenset([identities[i] for i in fact.citations])


def _answered_positions(fact: Fact, sentence: Sentence, name: str) -> list[int]:
    """Positions j of `alone`/`without` that are a question of their own (module docstring)."""
    k = len(fact.citations)
    if (name == "alone" and k < 2) or (name == "without" and k < 3):
        return []
    return [j for j, index in enumerate(fact.citations) if sentence.citations[index].valid]


def _gold_sentence(sentence: Sentence, gold_work: dict) -> list:
    """[the sentence, whether it is in R_vc, its citations' identities, its fact texts, their
    normalised texts sorted] of a gold sentence, worked out once for every judge source compared
    with it (`gold_work` lives for one `stage_losses`; it holds the sentence, so its id names it)."""
    found = gold_work.get(id(sentence))
    if found is None:
        texts = [f.text for f in sentence.facts]
        found = gold_work[id(sentence)] = [
            sentence,
            _in_r_vc(sentence),
            _identities(sentence),
            texts,
            sorted(map(normalise_fact_text, texts)),
        ]
    return found


def _gold_side(fact: Fact, sentence: Sentence, identities: list[tuple], gold_work: dict) -> list:
    """[the fact, its key, its derived entailment or None until asked, its own questions'
    (name, position, citation identity)] of a gold fact, computed once for every judge source
    compared with it (as `_gold_sentence`)."""
    found = gold_work.get(id(fact))
    if found is None:
        asked = [
            (name, j, identities[fact.citations[j]])
            for name in ("alone", "without")
            for j in _answered_positions(fact, sentence, name)
        ]
        found = gold_work[id(fact)] = [fact, _fact_key(fact, identities), None, asked]
    return found


def _compare_facts(
    gold_s: Sentence,
    judge_s: Sentence,
    labels: dict[str, tuple[list, list]],
    gold_work: dict,
    gold_identities: list[tuple],
) -> int:
    """Add the judge/gold label pairs of matching facts to `labels`; the facts matched."""
    identities = _identities(judge_s)
    available: dict[tuple, list[Fact]] = {}
    for fact in judge_s.facts:
        available.setdefault(_fact_key(fact, identities), []).append(fact)
    matched = 0
    for gold_fact in gold_s.facts:
        gold_side = _gold_side(gold_fact, gold_s, gold_identities, gold_work)
        candidates = available.get(gold_side[1])
        if not candidates:
            continue
        judge_fact = candidates.pop(0)
        matched += 1
        if gold_side[2] is None:
            gold_side[2] = derive_entailment(gold_fact, gold_s)
        gold_e, judge_e = gold_side[2], derive_entailment(judge_fact, judge_s)
        pairs = [("all", judge_e.all, gold_e.all)]
        if gold_side[3]:
            judge_position = {identities[index]: j for j, index in enumerate(judge_fact.citations)}
            for name, j, identity in gold_side[3]:
                pairs.append(
                    (name, getattr(judge_e, name)[judge_position[identity]], getattr(gold_e, name)[j])
                )
        for name, judge_value, gold_value in pairs:
            if judge_value is not None and gold_value is not None:
                labels[name][0].append(judge_value)
                labels[name][1].append(gold_value)
    return matched


def _in_r_vc(sentence: Sentence) -> bool:
    return sentence.verifiable is True and sentence.has_valid_citation


# `fact_similarity` of a (judge fact, gold fact) pair of texts: at 4,000 gold responses × 4 judges a
# sweep compares 53,000 pairs, 9,300 of them distinct (the gold facts meet every judge source)
_similarity = lru_cache(maxsize=1 << 15)(fact_similarity)


def _matched_facts(
    judge_texts: list[str], gold_texts: list[str], threshold: float, gold_normalised: list[str] | None = None
) -> int:
    """`fact_match_counts`' matched pairs (its alignment, of the same similarities, each pair of
    texts worked out once). When both lists say the same facts (the same normalised texts, in any
    order: half the sentences of a good judge) every fact has a partner of similarity 1, the most
    a pair can have, so the best alignment pairs them all: that count without the matrix.
    `gold_normalised`: the gold texts normalised and sorted, when the caller has them."""
    if not 0.0 < threshold <= 1.0:
        return fact_match_counts(judge_texts, gold_texts, threshold)[0]  # raises, saying why
    if gold_normalised is None:
        gold_normalised = sorted(map(normalise_fact_text, gold_texts))
    if (
        len(judge_texts) == len(gold_texts)
        and sorted(map(normalise_fact_text, judge_texts)) == gold_normalised
    ):
        return len(gold_texts)
    if not judge_texts or not gold_texts:
        return 0
    return len(
        best_pairs(np.array([[_similarity(a, b) for b in gold_texts] for a in judge_texts]), threshold)
    )


@dataclass
class _PairCounts:
    """What one judge record shows against its response's gold record: the label pairs (judge,
    gold) of each stage in the order met, and the counts; summed over a source's records."""

    verifier: tuple[list, list] = field(default_factory=lambda: ([], []))
    labels: dict[str, tuple[list, list]] = field(
        default_factory=lambda: {name: ([], []) for name in ENTAILMENT_FIELDS}
    )
    unmatched: int = 0
    unlabelled: int = 0
    decomposer_sentences: int = 0
    found: int = 0
    judge_total: int = 0
    gold_total: int = 0
    n_facts: int = 0
    matched_facts: int = 0


def _pair_counts(
    gold_record: EvaluationRecord, record: EvaluationRecord, threshold: float, gold_work: dict
) -> _PairCounts:
    out = _PairCounts()
    pairs = match_sentences(gold_record, record)
    out.unmatched = len(gold_record.sentences) - len(pairs)
    judge_verifiable, gold_verifiable = out.verifier
    found = gold_work.get(id(gold_record))  # (the record, so that its id names it; its sentences' sides)
    if found is None:
        found = gold_work[id(gold_record)] = (
            gold_record,
            [_gold_sentence(s, gold_work) for s in gold_record.sentences],
        )
    gold_sentences = found[1]
    for i, j in pairs:
        gold = gold_sentences[i]
        gold_s, judge_s = gold[0], record.sentences[j]
        if gold_s.verifiable is None or judge_s.verifiable is None:
            out.unlabelled += 1
        else:
            judge_verifiable.append(judge_s.verifiable)
            gold_verifiable.append(gold_s.verifiable)
        if gold[1] and _in_r_vc(judge_s):
            out.decomposer_sentences += 1
            judge_texts, gold_texts = [f.text for f in judge_s.facts], gold[3]
            out.found += _matched_facts(judge_texts, gold_texts, threshold, gold[4])
            out.judge_total += len(judge_texts)
            out.gold_total += len(gold_texts)
        out.n_facts += len(gold_s.facts)
        if gold_s.facts and judge_s.facts:  # no fact on one side: nothing to match
            out.matched_facts += _compare_facts(gold_s, judge_s, out.labels, gold_work, gold[2])
    return out


# {id(judge record): (its weak reference, the gold record's, threshold, counts)}: the project state
# keeps a response's gold record object until a change touches it, and the sweep's judge records
# stay the same objects while no record is imported, so after a label only its response is compared
_kept_pairs: dict[int, tuple] = {}
_kept_lock = threading.Lock()


def _forget(kept: dict, key: int, ref: weakref.ref) -> None:
    """A weak reference's callback: drop the entry of the record that died (the dict is bound, not
    looked up, so this also works while the interpreter shuts down; the GIL makes it one step)."""
    if kept.get(key, (None,))[0] is ref:
        kept.pop(key, None)


def _kept_pair_counts(gold_record, record, threshold: float, gold_work: dict) -> _PairCounts:
    key = id(record)
    with _kept_lock:
        found = _kept_pairs.get(key)
    if found is not None and found[0]() is record and found[1]() is gold_record and found[2] == threshold:
        return found[3]
    counts = _pair_counts(gold_record, record, threshold, gold_work)
    ref = weakref.ref(record, partial(_forget, _kept_pairs, key))
    with _kept_lock:
        _kept_pairs[key] = (ref, weakref.ref(gold_record), threshold, counts)
    return counts


def stage_loss(
    gold: list[EvaluationRecord],
    judge: list[EvaluationRecord],
    threshold: float = 0.5,
    *,
    source: str | None = None,
    judged: list[str] | None = None,
    gold_work: dict | None = None,
) -> StageLoss:
    """Per-stage loss of one judge source (`judge`, all records of one source) against gold.

    Records are matched by response_id; judge records for responses without gold are
    listed in `responses_not_in_gold`. `judged` (every response the source has a record for)
    and `source` are given when `judge` holds only its records of gold responses (then it may be
    empty): the responses without gold come from `judged`. `gold_work`: the gold side's work, kept
    for the next source compared with the same gold (`stage_losses`). Raises ValueError when `judge` mixes
    sources (or is not `source`'s), or (from the scorer's derivations) on a fact whose citation
    indices are out of range.
    """
    sources = {r.source for r in judge} | ({source} if source is not None else set())
    if len(sources) != 1:
        raise ValueError(f"stage_loss needs the records of exactly one source, got {sorted(sources)}")
    gold_by_id = {r.response_id: r for r in gold}
    gold_work = {} if gold_work is None else gold_work
    total = _PairCounts()
    shared = 0
    not_in_gold = []
    for record in judge:
        gold_record = gold_by_id.get(record.response_id)
        if gold_record is None:
            not_in_gold.append(record.response_id)
            continue
        shared += 1
        counts = _kept_pair_counts(gold_record, record, threshold, gold_work)
        for mine, theirs in (
            (total.verifier, counts.verifier),
            *((total.labels[name], counts.labels[name]) for name in ENTAILMENT_FIELDS),
        ):
            mine[0].extend(theirs[0])
            mine[1].extend(theirs[1])
        for name in (
            "unmatched",
            "unlabelled",
            "decomposer_sentences",
            "found",
            "judge_total",
            "gold_total",
            "n_facts",
            "matched_facts",
        ):
            setattr(total, name, getattr(total, name) + getattr(counts, name))
    verifier_pairs, found = total.verifier, total.found
    judge_total, gold_total = total.judge_total, total.gold_total
    precision, recall, f1 = binary_prf(*verifier_pairs)
    verifier = VerifierLoss(
        len(verifier_pairs[0]),
        accuracy(*verifier_pairs),
        cohen_kappa(*verifier_pairs),
        precision,
        recall,
        f1,
        total.unmatched,
        total.unlabelled,
    )
    p = found / judge_total if judge_total else math.nan
    r = found / gold_total if gold_total else math.nan
    decomposer = DecomposerLoss(
        total.decomposer_sentences,
        p,
        r,
        2 * found / (judge_total + gold_total) if judge_total + gold_total else math.nan,
    )
    entailment = {name: LabelAgreement.of(*total.labels[name]) for name in ENTAILMENT_FIELDS}
    if judged is not None:
        not_in_gold = list(set(judged) - set(gold_by_id))
    return StageLoss(
        sources.pop(),
        shared,
        verifier,
        decomposer,
        entailment,
        total.n_facts,
        total.matched_facts,
        sorted(not_in_gold),
    )


def stage_losses(
    gold: list[EvaluationRecord],
    judges: list[EvaluationRecord],
    threshold: float = 0.5,
    judged: dict[str, list[str]] | None = None,
) -> list[StageLoss]:
    """`stage_loss` for every judge source in `judges` (and in `judged`: {source: every response it
    has a record for}, given when `judges` holds only gold responses' records), sorted by source."""
    by_source: dict[str, list[EvaluationRecord]] = {source: [] for source in judged or {}}
    for record in judges:
        by_source.setdefault(record.source, []).append(record)
    gold_work: dict = {}
    return [
        stage_loss(
            gold, records, threshold, source=source, judged=(judged or {}).get(source), gold_work=gold_work
        )
        for source, records in sorted(by_source.items())
    ]
