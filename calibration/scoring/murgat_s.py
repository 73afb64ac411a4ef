"""MURGAT-S (PROTOCOL §3): fact precision in three modes, recall, coverage, per response and system.

`score_record` scores an evaluation record (PROTOCOL §5) by the protocol, in any precision mode,
with the §2 derivation rules and three-valued logic for values nobody judged. (The reference
code's own semantics for metric files are in reference.py.)

Exact arithmetic: every score is computed in rationals and rounded once, at the end, to the
nearest float. Equal MURGAT-S values are therefore equal floats (s(1/5, 1/6, 1/6) and
s(1/6, 1/5, 1/5) are the same number), so rankings, ties and "constant gold" checks see the
mathematics, not the order of floating-point operations. A record's scores are kept as integer
numerators and denominators (a fact's precision is a count over its citations) and divided once:
Python's int / int is correctly rounded, so this is `float(Fraction(...))` to the last bit at a
fraction of `Fraction`'s cost; each record is walked once for every mode asked.

An undetermined response (PROTOCOL §3: its facts exist but every precision, or every recall, is
undetermined) has precision or recall, F1 and MURGAT-S `None`: it is counted and reported, and
left out of every mean, never scored 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from fractions import Fraction

from annotation.protocol.derivation import derive_entailment, fact_citation_validity
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence
from annotation.store.record_form import NOT_CITED, NOT_VERIFIABLE, fact_of_code, record_form

PRECISION_MODES = ("individual", "necessity", "alce")


@dataclass
class ResponseScore:
    """One response scored from one source in one precision mode. `precision`, `recall`, `f1`
    and `murgat_s` are None when undetermined (module doc); the counts say why."""

    response_id: str
    source: str
    precision_mode: str
    coverage: float
    precision: float | None
    recall: float | None
    f1: float | None
    murgat_s: float | None
    n_verifiable: int
    n_cited: int
    n_facts: int
    n_undetermined: int  # facts left out of the P mean (precision undetermined)
    n_recall_undetermined: int  # facts left out of the R mean (`all` is null)
    no_verifiable: bool  # R_v empty → coverage 0, reported

    @property
    def undetermined(self) -> bool:
        """True when the response's MURGAT-S is undetermined (left out of means and correlations)."""
        return self.murgat_s is None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class SystemScore:
    """Means over one source's responses in one precision mode, each over the responses where
    that value is determined (None when none is); counts are sums. `n_responses` counts every
    response, `n_undetermined_responses` those whose MURGAT-S is undetermined."""

    source: str
    precision_mode: str
    n_responses: int
    murgat_s: float | None
    coverage: float
    precision: float | None
    recall: float | None
    f1: float | None
    n_undetermined: int
    n_no_verifiable: int
    n_recall_undetermined: int = 0
    n_undetermined_responses: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


def _check_mode(mode: str) -> None:
    if mode not in PRECISION_MODES:
        raise ValueError(f"unknown precision mode '{mode}' (expected one of {', '.join(PRECISION_MODES)})")


def fact_recall(fact: Fact, sentence: Sentence) -> Fraction | None:
    """1 when the citations together entail the fact, 0 when not, None when `all` is null or
    the fact has no entailment. Raises ValueError on out-of-range citation indices."""
    fact_citation_validity(fact, sentence)
    if fact.entailment is None or fact.entailment.all is None:
        return None
    return Fraction(1) if fact.entailment.all else Fraction(0)


def _counted_if_all_known(ent: Entailment, mode: str) -> tuple[int, int] | None:
    """Precision of a derived entailment whose `all` is known, as (citations counted, k); None if
    a null still matters."""
    k = len(ent.alone)
    if mode == "individual":
        # #{j: alone[j]} / k — the reference's per-citation rate; `all` plays no part
        if None in ent.alone:
            return None
        return sum(1 for a in ent.alone if a), k
    if not ent.all:
        return 0, k
    if mode == "necessity":
        # counts only citations whose removal breaks support; an unknown `without` decides nothing
        if None in ent.without:
            return None
        return sum(1 for w in ent.without if w is False), k
    # alce: j counts unless irrelevant (not alone and without); either known True-side decides it
    counted = 0
    for a, w in zip(ent.alone, ent.without, strict=True):
        if a is True or w is False:
            counted += 1
        elif a is None or w is None:
            return None
    return counted, k


def _fact_counts(fact: Fact, sentence: Sentence, modes: list[str]) -> list[tuple[int, int] | None]:
    """`fact_precision` in each of `modes` as (counted, k) or None, deriving the entailment once
    (three times when `all` is null) for all of them."""
    ent = derive_entailment(fact, sentence)
    if fact.entailment is None or not fact.citations:
        return [None] * len(modes)
    if ent.all is not None:
        return [_counted_if_all_known(ent, mode) for mode in modes]
    assumed = [
        derive_entailment(
            Fact(
                fact.text, fact.citations, Entailment(value, fact.entailment.alone, fact.entailment.without)
            ),
            sentence,
        )
        for value in (True, False)
    ]
    out = []
    for mode in modes:
        first, second = (_counted_if_all_known(e, mode) for e in assumed)
        # decided only when both ways of filling `all` give the same number
        agree = first is not None and second is not None and first[0] * second[1] == second[0] * first[1]
        out.append(first if agree else None)
    return out


def fact_precision(fact: Fact, sentence: Sentence, mode: str) -> Fraction | None:
    """The fact's precision in `mode`, or None when the known judgements do not decide it.

    Three-valued: the value is decided when every way of filling the remaining nulls gives the
    same number. When `all` is null, both `all = True` and `all = False` are tried (each derived
    again, since rules 1–2 of `derive_entailment` copy `all`) and must agree. Per mode:
    - individual: `#{j: alone[j]} / k`; any null `alone[j]` leaves it undetermined; `all` only
      matters through the derivations (so `all = False` alone does not force 0 here).
    - necessity: 0 when `all` is False, whatever else is null; with `all` True every `without[j]`
      must be known; with `all` null it is decided (0) only when every `without[j]` is True.
    - alce: 0 when `all` is False; with `all` True citation j counts when `alone[j]` is True or
      `without[j]` is False (either alone decides), does not count when `alone[j]` is False and
      `without[j]` True, and a null that could flip it leaves the fact undetermined.
    A fact with no entailment (stage 3 not done) or no citations is undetermined. Raises
    ValueError for an unknown mode or a fact `derive_entailment` rejects.
    """
    _check_mode(mode)
    (counted,) = _fact_counts(fact, sentence, [mode])
    return None if counted is None else Fraction(*counted)


def _exact(value) -> Fraction:
    """A pool value as a rational: stored floats (metric files) by their exact binary value."""
    return value if isinstance(value, Fraction) else Fraction(value)


def _pool_mean(values: list, empty_pool_is_zero: bool) -> Fraction | None:
    """Exact mean of the determined values. An empty pool (no fact at all) is 0, as in the
    reference code; a pool whose every value is undetermined is None — unless
    `empty_pool_is_zero`, the reference code's rule for metric files (PROTOCOL §3)."""
    known = [_exact(v) for v in values if v is not None]
    if known:
        return sum(known, Fraction(0)) / len(known)
    return Fraction(0) if empty_pool_is_zero or not values else None


def _harmonic_mean(p: Fraction, r: Fraction) -> Fraction:
    return Fraction(0) if p + r == 0 else 2 * p * r / (p + r)


def _rounded(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def response_score(
    response_id: str,
    source: str,
    mode: str,
    n_verifiable: int,
    n_cited: int,
    precisions: list,
    recalls: list,
    *,
    empty_pool_is_zero: bool = False,
) -> ResponseScore:
    """PROTOCOL §3's response scores from the per-fact values (exact, rounded once at the end).
    Undetermined values (None) are left out of their mean and counted; when every precision or
    every recall is undetermined, F1 and MURGAT-S are None (module doc) — unless
    `empty_pool_is_zero` (metric files: the reference code counts such a pool as 0)."""
    coverage = Fraction(n_cited, n_verifiable) if n_verifiable else Fraction(0)
    precision = _pool_mean(precisions, empty_pool_is_zero)
    recall = _pool_mean(recalls, empty_pool_is_zero)
    f1 = None if precision is None or recall is None else _harmonic_mean(precision, recall)
    return ResponseScore(
        response_id=response_id,
        source=source,
        precision_mode=mode,
        coverage=float(coverage),
        precision=_rounded(precision),
        recall=_rounded(recall),
        f1=_rounded(f1),
        murgat_s=_rounded(None if f1 is None else coverage * f1),
        n_verifiable=n_verifiable,
        n_cited=n_cited,
        n_facts=len(precisions),
        n_undetermined=sum(1 for p in precisions if p is None),
        n_recall_undetermined=sum(1 for r in recalls if r is None),
        no_verifiable=n_verifiable == 0,
    )


def score_record(record: EvaluationRecord, mode: str) -> ResponseScore:
    """Score one evaluation record by PROTOCOL §3 in one precision mode.

    R_v = sentences with `verifiable` True (None counts as not verifiable: stage 1 not done);
    R_vc = those with at least one valid citation. P and R are micro means over the facts of R_vc
    sentences that carry at least one valid citation of their own; undetermined values are left
    out of their mean and counted. No fact at all gives P = R = 0; facts whose every precision (or
    every recall) is undetermined make the response undetermined (None). Raises ValueError naming
    the response, sentence and fact for an unknown mode or a malformed fact.
    """
    return score_record_modes(record, [mode])[0]


def score_record_modes(record: EvaluationRecord, modes: Iterable[str]) -> list[ResponseScore]:
    """`score_record` in each of `modes` (in that order), the record walked once. ValueError as
    `score_record`."""
    modes = list(modes)
    for mode in modes:
        _check_mode(mode)
    return score_form_modes(record.response_id, record.source, record_form(record), modes)


def score_form_modes(response_id: str, source: str, form: list, modes: Iterable[str]) -> list[ResponseScore]:
    """`score_record_modes` of the record whose score form (annotation/store/record_form.py) is
    `form`: what a stored record is scored from without decoding it. Each fact code is worked out
    once per process (`_fact_entry`). ValueError for an unknown mode or something that is not a
    form."""
    picks = []
    for mode in modes:
        _check_mode(mode)
        picks.append(PRECISION_MODES.index(mode))
    n_verifiable = n_cited = 0
    facts: list[tuple] = []  # per scored fact: (recall, precision counts in every mode)
    known = _fact_entries
    for item in form:
        if type(item) is int:
            if item == NOT_CITED:
                n_verifiable += 1
            elif item != NOT_VERIFIABLE:
                raise ValueError(f"response '{response_id}' ({source}): {item!r} is not a sentence's form")
            continue
        if type(item) is not list:
            raise ValueError(f"response '{response_id}' ({source}): {item!r} is not a sentence's form")
        n_verifiable += 1
        n_cited += 1
        for code in item:
            facts.append((known.get(code) if type(code) is str else None) or _fact_entry(code))
    recalls = [entry[0] for entry in facts if entry[0] is not None]
    # `_integer_mean` of recalls r/1: their sum over their number
    recall = (sum(recalls), len(recalls)) if recalls else None if facts else (0, 1)
    return [
        _integer_score(
            response_id,
            source,
            mode,
            n_verifiable,
            n_cited,
            [entry[1][m] for entry in facts],
            recall,
            len(facts) - len(recalls),
        )
        for m, mode in zip(picks, modes, strict=True)
    ]


# fact code → (recall: 1, 0 or None, (counted, k) or None in each of PRECISION_MODES); a few
# hundred codes cover a campaign (k is small, each value true, false or null)
_fact_entries: dict[str, tuple] = {}
_FACT_ENTRIES_KEPT = 100_000


def _fact_entry(code: str) -> tuple:
    """A fact code's recall and precision counts, by `_fact_counts` on a fact that has it."""
    if not isinstance(code, str):
        raise ValueError(f"{code!r} is not a fact code")
    fact, sentence = fact_of_code(code)
    given = fact.entailment  # fact_recall's rule, without its Fraction
    recall = None if given is None or given.all is None else int(bool(given.all))
    entry = (recall, tuple(_fact_counts(fact, sentence, list(PRECISION_MODES))))
    if len(_fact_entries) >= _FACT_ENTRIES_KEPT:
        _fact_entries.clear()
    _fact_entries[code] = entry
    return entry


def _integer_mean(known: list[tuple[int, int]], n_values: int) -> tuple[int, int] | None:
    """The exact mean of the fractions a/b in `known` as (numerator, denominator), one of
    `n_values` values (the rest undetermined): `_pool_mean`'s rule, in integers."""
    if not known:
        return (0, 1) if not n_values else None
    k_first, total = known[0][1], 0
    for count, k in known:
        if k != k_first:
            break
        total += count
    else:  # most responses: every fact has as many citations
        return total, k_first * len(known)
    by_denominator: dict[int, int] = {}
    for count, k in known:
        by_denominator[k] = by_denominator.get(k, 0) + count
    common = math.lcm(*by_denominator)
    numerator = sum(count * (common // k) for k, count in by_denominator.items())
    return numerator, common * len(known)


def _integer_score(
    response_id, source, mode, n_verifiable, n_cited, precisions, recall, n_recall_undetermined
):
    """`response_score` of per-fact (counted, k) precisions and an exact recall mean, in integers."""
    known = [p for p in precisions if p is not None]
    precision = _integer_mean(known, len(precisions))
    f1 = murgat = None
    if precision is not None and recall is not None:
        (a, b), (c, d) = precision, recall
        # 2PR / (P + R) with P = a/b, R = c/d is 2ac / (ad + cb); 0 when P + R = 0
        f1 = (2 * a * c, a * d + c * b) if a * d + c * b else (0, 1)
        murgat = (n_cited * f1[0], n_verifiable * f1[1]) if n_verifiable else (0, 1)
    n_facts = len(precisions)
    # by position, in the fields' order: a sweep makes ~100,000 of these, keyword arguments cost more
    return ResponseScore(
        response_id,
        source,
        mode,
        n_cited / n_verifiable if n_verifiable else 0.0,
        None if precision is None else precision[0] / precision[1],  # int / int: correctly rounded
        None if recall is None else recall[0] / recall[1],
        None if f1 is None else f1[0] / f1[1],
        None if murgat is None else murgat[0] / murgat[1],
        n_verifiable,
        n_cited,
        n_facts,
        n_facts - len(known),
        n_recall_undetermined,
        n_verifiable == 0,
    )


def score_records(records: Iterable[EvaluationRecord], modes: Iterable[str]) -> list[ResponseScore]:
    """Every record in every mode, record by record in input order. ValueError as `score_record`."""
    modes = list(modes)
    for mode in modes:
        _check_mode(mode)
    return [score for record in records for score in score_record_modes(record, modes)]


def _mean_of_known(values: list[float | None]) -> float | None:
    """Mean of the values that are not None (math.fsum: the order of responses does not matter);
    None when every value is None."""
    known = [v for v in values if v is not None]
    return math.fsum(known) / len(known) if known else None


def system_scores(scores: list[ResponseScore]) -> list[SystemScore]:
    """Mean scores per (source, precision mode), sorted by source then mode order. Each mean is
    over the responses where that value is determined; undetermined responses are counted."""
    groups: dict[tuple[str, str], list[ResponseScore]] = {}
    for score in scores:
        groups.setdefault((score.source, score.precision_mode), []).append(score)
    mode_rank = {mode: i for i, mode in enumerate(PRECISION_MODES)}
    out = []
    for (source, mode), members in sorted(
        groups.items(), key=lambda kv: (kv[0][0], mode_rank.get(kv[0][1], 99))
    ):
        out.append(
            SystemScore(
                source=source,
                precision_mode=mode,
                n_responses=len(members),
                murgat_s=_mean_of_known([m.murgat_s for m in members]),
                coverage=_mean_of_known([m.coverage for m in members]),
                precision=_mean_of_known([m.precision for m in members]),
                recall=_mean_of_known([m.recall for m in members]),
                f1=_mean_of_known([m.f1 for m in members]),
                n_undetermined=sum(m.n_undetermined for m in members),
                n_no_verifiable=sum(1 for m in members if m.no_verifiable),
                n_recall_undetermined=sum(m.n_recall_undetermined for m in members),
                n_undetermined_responses=sum(1 for m in members if m.undetermined),
            )
        )
    return out
