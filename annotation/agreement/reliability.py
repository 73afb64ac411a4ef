"""How far the annotators agree, stage by stage: Krippendorff's α with bootstrap CIs, and
fact-set precision / recall / F1 for the decomposition — on the same fact clusters gold is derived
from (`clusters.py`, with the adjudicator's "Same fact?" answers), so the agreement page and gold
never disagree about what counts as the same fact.

Units (a unit is one decision several annotators made; only units that at least two
annotators labelled enter a matrix — single-coded units change nothing in α):
- `verifiable`: (response_id, sentence index) → the sentence's `verifiable` label.
- `entailment_all` / `_alone` / `_without`: per fact cluster, the DERIVED values
  (`derivation.derive_entailment`, so a one-citation fact's alone[0] is its `all`) of every
  member, one unit per question E(fact, S) — keyed by the set S of valid cited segments
  (`entailment_answers.py`), so the same question asked of differently cited or ordered wordings is
  one unit. Values the protocol fixes whatever anyone answers (an invalid citation's alone = false;
  a one-citation fact's without = false when nobody gave it) are left out: nobody decided them,
  and constant units would inflate α.
- `decomposition`: (response_id, sentence index) → the annotator's signature, the set of
  (cluster, citation subset) they stated (a sentence counts for an annotator who gave it at least
  one fact; a record cannot tell "not decomposed" from "no facts"); α with the Jaccard distance
  between the sets (1 − |A ∩ B| / |A ∪ B|) as δ². Fact-set precision / recall / F1 count the shared
  (cluster, citation subset) pairs of each annotator pair: a rewording matches, a different
  citation subset does not — exactly as gold and the disputes decide.

Nothing here raises on degenerate data: α is None with a reason ("fewer than two annotators",
"only one value occurs", …).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import krippendorff
import numpy as np

from annotation.agreement.clusters import response_clusters
from annotation.agreement.entailment_answers import answered
from annotation.agreement.same_fact import answers_from_rulings
from annotation.protocol.ids import Task, annotator_name
from annotation.protocol.records import EvaluationRecord, Fact, Sentence

STAGES = ("verifiable", "entailment_all", "entailment_alone", "entailment_without", "decomposition")
LEVELS = {
    "verifiable": "nominal",
    "entailment_all": "nominal",
    "entailment_alone": "nominal",
    "entailment_without": "nominal",
    "decomposition": "jaccard",
}
DEFAULT_RESAMPLES = 1000

_STAGE_OF_QUESTION = {
    "verifiable": "verifiable",
    "facts": "decomposition",
    "all": "entailment_all",
    "alone": "entailment_alone",
    "without": "entailment_without",
}


def agreement_stage(task: Task) -> str:
    """The stage (one of STAGES) whose agreement a decision of this task counts in."""
    return _STAGE_OF_QUESTION[task.question]


Units = dict[tuple, dict[str, object]]  # unit key → {annotator: value (a float, or a set of facts)}


def has_any_label(record: EvaluationRecord) -> bool:
    """True when the record holds at least one decision (an adjudicator's derived record holds none)."""
    return any(s.verifiable is not None or s.facts for s in record.sentences)


def records_by_response(records) -> dict[str, dict[str, EvaluationRecord]]:
    """{response_id: {annotator: record}} over the `human:*` records that hold a label;
    other sources are ignored; a repeated (response, annotator) keeps the last one."""
    out: dict[str, dict[str, EvaluationRecord]] = {}
    for record in records:
        name = annotator_name(record.source)
        if name is not None and has_any_label(record):
            out.setdefault(record.response_id, {})[name] = record
    return out


def fixed_by_rule(fact: Fact, sentence: Sentence, question: str, j: int) -> bool:
    """True when PROTOCOL §2 fixes `question`[j] of the fact to a constant, whatever was judged:
    an invalid citation's `alone`, or the `without` of the one valid citation of a fact (every
    other citation invalid, k = 1 included) when it was not given."""
    validity = [sentence.citations[index].valid for index in fact.citations]
    if question == "alone":
        return not validity[j]
    given = fact.entailment.without if fact.entailment is not None else []
    only_valid = validity[j] and sum(validity) == 1
    return only_valid and (not given or given[j] is None)


def _value(value) -> float | None:
    return None if value is None else float(value)


def _add(units: Units, key: tuple, name: str, value) -> None:
    if value is not None:
        units.setdefault(key, {})[name] = value


def _entailment_units(units: dict[str, Units], response_id: str, clusters) -> None:
    """Every member's derived stage-3 values of one sentence's clusters, one unit per question."""
    for cluster in clusters.clusters:
        for member in cluster.members:
            if member.fact.entailment is None:
                continue
            try:
                values = answered(member.fact, member.sentence)
            except ValueError:  # a fact the derivation rejects (citation index out of range)
                continue
            for kind, j, segments, value in values:
                if not segments or (kind != "all" and fixed_by_rule(member.fact, member.sentence, kind, j)):
                    continue
                key = (
                    response_id,
                    clusters.sentence,
                    cluster.index,
                    cluster.canonical,
                    tuple(sorted(segments)),
                )
                _add(units[f"entailment_{kind}"], key, member.author, _value(value))


def response_units(
    response_id: str, by_name: dict[str, EvaluationRecord], rulings: dict | None
) -> dict[str, Units]:
    """Every stage's units of one response from its annotators' records ({annotator: record}, as
    `records_by_response` gives them), single-coded ones included (`rulings`: see `labelled_units`;
    only this response's are read). Units of different responses never share a key."""
    units: dict[str, Units] = {stage: {} for stage in STAGES}
    for name, record in by_name.items():
        for i, sentence in enumerate(record.sentences):
            _add(units["verifiable"], (response_id, i), name, _value(sentence.verifiable))
    answered = answers_from_rulings(rulings, response_id) if rulings else None
    for i, clusters in response_clusters(by_name, answered).items():
        for name in clusters.decomposers:
            _add(units["decomposition"], (response_id, i), name, clusters.signature(name))
        _entailment_units(units, response_id, clusters)
    return units


def labelled_units(records, rulings: dict | None = None) -> dict[str, Units]:
    """Every stage's units (see module doc) from evaluation records, single-coded ones included;
    only `human:*` sources are used. A fact the derivation rejects (citation index out of
    range) is left out. `rulings` ({(response_id, unit, task): Ruling}, as
    `adjudication.rulings_from_events` gives them, e.g. `ProjectState.rulings`) hold the adjudicator's
    "Same fact?" answers, which the clusters read exactly as gold's do."""
    units: dict[str, Units] = {stage: {} for stage in STAGES}
    for response_id, by_name in records_by_response(records).items():
        for stage, found in response_units(response_id, by_name, rulings).items():
            units[stage].update(found)
    return units


def shared_units(units: Units) -> Units:
    """The units at least two annotators labelled (the ones α is computed on)."""
    return {key: values for key, values in units.items() if len(values) >= 2}


def stage_units(records, rulings: dict | None = None) -> dict[str, Units]:
    """Every stage's units labelled by at least two annotators: {stage: {unit key: {annotator: value}}}
    (`rulings`: see `labelled_units`)."""
    return {stage: shared_units(units) for stage, units in labelled_units(records, rulings).items()}


def reliability_matrix(units: Units) -> tuple[list[str], list[tuple], np.ndarray]:
    """(annotators sorted, unit keys sorted, annotators × units float matrix with NaN for missing)."""
    annotators = sorted({name for values in units.values() for name in values})
    keys = sorted(units, key=repr)
    row = {name: position for position, name in enumerate(annotators)}
    matrix = np.full((len(annotators), len(keys)), np.nan)
    for column, key in enumerate(keys):
        for name, value in units[key].items():
            matrix[row[name], column] = value
    return annotators, keys, matrix


def jaccard_distance(a: frozenset, b: frozenset) -> float:
    """1 − |a ∩ b| / |a ∪ b|; 0 for two empty sets."""
    union = len(a | b)
    return 1.0 - len(a & b) / union if union else 0.0


@dataclass(frozen=True)
class SetUnitSums:
    """What Krippendorff's α with the Jaccard δ² needs of each unit of set values, in unit order:
    `m` its values, `within` Σ δ² over its ordered pairs of values, `empty` its empty sets.

    A unit's sets are its own (facts of one sentence), so every cross-unit δ² is 1 — but
    between two empty sets, which is 0. With each unit taken c_u times (1, or a bootstrap
    multiplicity) and krippendorff's D_o = Σ o_ck δ²_ck / n, D_e = Σ n_c n_k δ²_ck / (n (n − 1)):
    n = Σ c m, Σ o δ² = Σ c · within / (m − 1), and Σ n_c n_k δ² runs over every ordered pair of
    values: copies of one unit pair as within the unit (c² · within), the rest differ
    ((n² − Σ c² m²) − (E² − Σ c² e²) with E = Σ c e). So α = 1 − (n − 1) Σ o δ² / Σ n n δ², linear
    in the units instead of units × values × values."""

    m: np.ndarray
    per_copy: np.ndarray  # units × (m, e, within / (m − 1)), zero for a unit of one value
    per_square: np.ndarray  # units × (m², e², within)

    @classmethod
    def of(cls, units: Units, keys: list[tuple]) -> SetUnitSums:
        rows = []
        for key in keys:
            sets = list(units[key].values())
            within = 2.0 * sum(jaccard_distance(a, b) for a, b in combinations(sets, 2))
            rows.append((len(sets), sum(1 for s in sets if not s), within))
        m, empty, within = np.array(rows, float).reshape(-1, 3).T
        pairable = m >= 2  # a lone value pairs with nothing (krippendorff drops it)
        per_copy = np.where(pairable[:, None], np.c_[m, empty, within / np.maximum(m - 1, 1)], 0.0)
        per_square = np.where(pairable[:, None], np.c_[m * m, empty * empty, within], 0.0)
        return cls(m, per_copy, per_square)

    def alpha(self) -> float:
        """α of the units; NaN when the expected disagreement is 0 (one value only)."""
        return float(self.alphas(np.ones((1, len(self.m))))[0])

    def alphas(self, copies: np.ndarray) -> np.ndarray:
        """α of each row of `copies` (resamples × units: how often each unit is taken); NaN where
        the expected disagreement is 0, as krippendorff gives."""
        n, empties, observed = (copies @ self.per_copy).T
        squares, empty_squares, within = ((copies * copies) @ self.per_square).T
        # whole numbers so far, exact in floats: "every value the same" gives exactly 0
        expected = (n * n - squares) - (empties * empties - empty_squares) + within
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(expected == 0, np.nan, 1.0 - (n - 1) * observed / expected)


@dataclass
class Agreement:
    """α of one stage with its bootstrap CI. `alpha` None → undefined, `reason` says why;
    `ci_low`/`ci_high` None when no resample was usable. Decomposition also carries the
    fact-set precision / recall / F1 pooled over annotator pairs (`n_pairs` of them)."""

    stage: str
    level: str
    alpha: float | None
    ci_low: float | None
    ci_high: float | None
    n_units: int
    n_annotators: int
    reason: str | None = None
    n_resamples: int = 0
    n_degenerate_resamples: int = 0  # skipped: one value only, or no unit coded twice
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    n_pairs: int = 0

    def to_dict(self) -> dict:
        """The `--json` form: alpha, ci_low, ci_high, n_units, n_annotators (+ reason when α is
        undefined, + precision/recall/f1 for the decomposition)."""
        out = {
            "alpha": self.alpha,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n_units": self.n_units,
            "n_annotators": self.n_annotators,
        }
        if self.alpha is None:
            out["reason"] = self.reason
        if self.stage == "decomposition":
            out.update(precision=self.precision, recall=self.recall, f1=self.f1)
        return out


def _unshared_reason(n_units: int, n_annotators: int) -> str | None:
    if n_annotators < 2:
        return f"fewer than two annotators ({n_annotators})"
    if n_units == 0:
        return "no unit was labelled by two or more annotators"
    return None


def _one_value_reason(shown: str) -> str:
    return f"only one value occurs ({shown} on every unit)"


def _undefined_reason(matrix: np.ndarray, n_annotators: int, level: str) -> str | None:
    reason = _unshared_reason(matrix.shape[1], n_annotators)
    if reason is not None:
        return reason
    values = np.unique(matrix[~np.isnan(matrix)])
    if len(values) < 2:
        return _one_value_reason(str(bool(values[0])).lower() if level == "nominal" else f"{values[0]:g}")
    return None


def _value_counts(matrix: np.ndarray, domain: np.ndarray) -> np.ndarray:
    """(units × values) counts: how many annotators gave each value to each unit."""
    return np.stack([(matrix == value).sum(axis=0) for value in domain], axis=1).astype(float)


@dataclass(frozen=True)
class NominalUnitSums:
    """Each unit's coincidences (krippendorff's o_u: value pairs over m_u − 1), flattened, so the α
    of any multiset of units is one product: o = Σ c_u o_u, then krippendorff's formula on o."""

    m: np.ndarray
    coincidences: np.ndarray  # units × values²
    distances: np.ndarray  # values × values, nominal δ²

    @classmethod
    def of(cls, matrix: np.ndarray) -> NominalUnitSums:
        domain = np.unique(matrix[~np.isnan(matrix)])
        counts = _value_counts(matrix, domain)
        m = counts.sum(axis=1)
        pairs = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(len(domain))
        coincidences = (pairs / (np.maximum(m, 2) - 1)[:, None, None]).reshape(len(m), -1)
        distances = (domain[:, None] != domain[None, :]).astype(float)
        return cls(m, coincidences, distances)

    def alphas(self, copies: np.ndarray) -> np.ndarray:
        """α of each row of `copies` (resamples × units: how often each unit is taken); not finite
        where the expected disagreement is 0, as krippendorff gives."""
        o = (copies @ self.coincidences).reshape(len(copies), *self.distances.shape)
        n_v = o.sum(axis=1)
        e = n_v[:, :, None] * n_v[:, None, :] - n_v[:, :, None] * np.eye(len(self.distances))
        with np.errstate(divide="ignore", invalid="ignore"):
            e /= (n_v.sum(axis=1) - 1)[:, None, None]
            return 1 - (o * self.distances).sum(axis=(1, 2)) / (e * self.distances).sum(axis=(1, 2))


def bootstrap_unit_alphas(
    sums: NominalUnitSums | SetUnitSums,
    n_resamples: int,
    seed: int,
    block: int = 100,
    pause: Callable[[], None] | None = None,
    piece: int = 10,
) -> tuple[np.ndarray, int]:
    """α of `n_resamples` resamples of the units (with replacement, seeded), each from the units'
    sums weighted by how often the resample took it, `block` resamples per product: (the usable α
    values, how many resamples were degenerate and skipped).

    A block's resamples are drawn `piece` at a time, one call each: numpy's generator gives the
    same numbers as one call per resample (a test holds it so). `pause()` is called before each
    piece (a background caller gives way to others there). The product stays one per block: a
    product of another shape may sum in another order, and a CI would move in its last bit."""
    rng = np.random.default_rng(seed)
    n_units = len(sums.m)
    pairable = sums.m > 1
    alphas, degenerate = [], 0
    buffer = np.empty((min(block, n_resamples), n_units))  # one for every block: no fresh pages each time
    for start in range(0, n_resamples, block):
        copies = buffer[: min(block, n_resamples - start)]
        usable = np.ones(len(copies), bool)
        for first in range(0, len(copies), piece):
            if pause is not None:
                pause()
            samples = rng.integers(0, n_units, (min(piece, len(copies) - first), n_units))
            if not pairable.all():  # a resample of lone values only pairs nothing
                usable[first : first + len(samples)] = pairable[samples].any(axis=1)
            samples += np.arange(len(samples))[:, None] * n_units
            counts = np.bincount(samples.ravel(), minlength=samples.size)
            copies[first : first + len(samples)] = counts.reshape(len(samples), n_units)
        degenerate += int((~usable).sum())
        if not usable.any():
            continue
        values = sums.alphas(copies if usable.all() else copies[usable])
        finite = np.isfinite(values)  # not: one value among the units coded twice
        degenerate += int((~finite).sum())
        alphas.extend(values[finite])
    return np.array(alphas), degenerate


def bootstrap_alpha(
    matrix: np.ndarray, level: str = "nominal", n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> tuple[np.ndarray, int]:
    """Nominal α of `n_resamples` resamples of the matrix's columns (units, with replacement,
    seeded): (the usable α values, how many resamples were degenerate and skipped)."""
    if level != "nominal":
        raise ValueError(f"bootstrap_alpha takes nominal data, not {level!r} (sets: SetUnitSums)")
    if len(np.unique(matrix[~np.isnan(matrix)])) < 2:
        return np.array([]), n_resamples
    return bootstrap_unit_alphas(NominalUnitSums.of(matrix), n_resamples, seed)


def stage_agreement(
    stage: str,
    units: Units,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
    pause: Callable[[], None] | None = None,
) -> Agreement:
    """Krippendorff's α of one stage (level from LEVELS) on its units labelled by two or more
    annotators, and its percentile bootstrap CI. `n_annotators` counts everyone who labelled
    any unit of the stage. Degenerate input (no units, one annotator, one value) gives α None
    with the reason. `pause`: see `bootstrap_unit_alphas`."""
    level = LEVELS[stage]
    present = {name for values in units.values() for name in values}
    shared = shared_units(units)
    if level == "jaccard":
        keys = sorted(shared, key=repr)
        result = Agreement(stage, level, None, None, None, len(keys), len(present))
        result.reason = _unshared_reason(len(keys), len(present))
        if result.reason is not None:
            return result
        sums = SetUnitSums.of(shared, keys)
        result.alpha = sums.alpha()
        if math.isnan(result.alpha):  # no disagreement possible: one set everywhere
            result.alpha, result.reason = None, _one_value_reason("the same facts")
            return result
    else:
        _, _, matrix = reliability_matrix(shared)
        result = Agreement(stage, level, None, None, None, matrix.shape[1], len(present))
        result.reason = _undefined_reason(matrix, len(present), level)
        if result.reason is not None:
            return result
        sums = NominalUnitSums.of(matrix)
        result.alpha = float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level))
    alphas, result.n_degenerate_resamples = bootstrap_unit_alphas(sums, n_resamples, seed, pause=pause)
    result.n_resamples = n_resamples
    if len(alphas):
        tail = (1 - confidence) / 2 * 100
        result.ci_low, result.ci_high = (float(v) for v in np.percentile(alphas, [tail, 100 - tail]))
    return result


def pair_fact_sets(units: Units) -> dict[tuple[str, str], tuple[int, int, int]]:
    """{(a, b): (shared facts, a's facts, b's facts)} summed over the sentences both decomposed, a
    before b by name, from the decomposition units (a shared fact: the same cluster with the same
    citation subset)."""
    sums: dict[tuple[str, str], list[int]] = {}
    for values in units.values():
        for a, b in combinations(sorted(values), 2):
            total = sums.setdefault((a, b), [0, 0, 0])
            total[0] += len(values[a] & values[b])
            total[1] += len(values[a])
            total[2] += len(values[b])
    return {pair: (matched, n_a, n_b) for pair, (matched, n_a, n_b) in sums.items()}


def prf(matched: int, n_a: int, n_b: int) -> tuple[float, float, float]:
    """(precision, recall, F1) of `matched` facts out of a's `n_a` and b's `n_b` (0 for none)."""
    p = matched / n_a if n_a else 0.0
    r = matched / n_b if n_b else 0.0
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def fact_set_prf(units: Units) -> tuple[float | None, float | None, float | None, int]:
    """Fact-set (precision, recall, F1, number of annotator pairs) pooled over annotator pairs and
    sentences (`pair_fact_sets`): precision is the share of the first annotators' facts the second
    states too, recall the reverse, each counted over every fact of every pair. Pooled, not a mean
    of the pairs: an annotator who shares three sentences with the others weighs three sentences,
    not as much as the pairs that share a hundred. (None, None, None, 0) when no pair shares a
    decomposed sentence."""
    pairs = list(pair_fact_sets(units).values())
    if not pairs:
        return None, None, None, 0
    precision, recall, f1 = prf(*(sum(column) for column in zip(*pairs, strict=True)))
    return precision, recall, f1, len(pairs)


def decomposition_prf(
    records, rulings: dict | None = None
) -> tuple[float | None, float | None, float | None, int]:
    """`fact_set_prf` of the records' decomposition units (`rulings`: see `labelled_units`)."""
    return fact_set_prf(labelled_units(records, rulings)["decomposition"])


def measure_agreement(
    records, *, rulings: dict | None = None, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> dict[str, Agreement]:
    """{stage: Agreement} for every stage in STAGES, from evaluation records (`human:*` used) and
    the adjudicator's "Same fact?" answers among `rulings` (see `labelled_units`). Never raises on
    degenerate data."""
    return measure_units(labelled_units(list(records), rulings), n_resamples=n_resamples, seed=seed)


def measure_units(
    units: dict[str, Units],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    pause: Callable[[], None] | None = None,
) -> dict[str, Agreement]:
    """`measure_agreement` of every stage's units ({stage: Units}, as `labelled_units` gives them);
    `pause`: see `bootstrap_unit_alphas`."""
    out = {}
    for stage in STAGES:
        if pause is not None:
            pause()
        out[stage] = stage_agreement(stage, units[stage], n_resamples=n_resamples, seed=seed, pause=pause)
    decomposition = out["decomposition"]
    (decomposition.precision, decomposition.recall, decomposition.f1, decomposition.n_pairs) = fact_set_prf(
        units["decomposition"]
    )
    return out


def agreement_json(results: dict[str, Agreement]) -> dict:
    """The CLI's `--json` object: {stage: Agreement.to_dict()} for every stage."""
    return {stage: results[stage].to_dict() for stage in STAGES}


def pair_confusion(units: Units, a: str, b: str) -> dict[tuple[float, float], int]:
    """{(a's value, b's value): number of units} over the units both annotators labelled."""
    out: dict[tuple[float, float], int] = {}
    for values in units.values():
        if a in values and b in values:
            out[(values[a], values[b])] = out.get((values[a], values[b]), 0) + 1
    return out
