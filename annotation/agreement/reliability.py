"""How far the annotators agree, stage by stage: Krippendorff's α with bootstrap CIs, and
fact-set precision / recall / F1 for the decomposition.

Units (a unit is one decision several annotators made; only units that at least two
annotators labelled enter a matrix — single-coded units change nothing in α):
- `verifiable`: (response_id, sentence index) → the sentence's `verifiable` label.
- `entailment_all` / `_alone` / `_without`: the facts two or more annotators share — same
  response, sentence, normalised fact text (`alignment.normalise_fact_text`) and citation
  subset — with the DERIVED values (`derivation.derive_entailment`, so a one-citation fact's
  alone[0] is its `all`). `alone`/`without` give one unit per citation, keyed by the citation's
  index in the sentence (so [0, 1] and [1, 0] are the same fact). Values the protocol fixes
  whatever anyone answers (an invalid citation's alone = false; a one-citation fact's
  without = false when nobody gave it) are left out: nobody decided them, and constant units
  would inflate α.
- `decomposition`: (response_id, sentence index) → the annotator's number of facts
  (interval α); a sentence counts for an annotator who gave it at least one fact (a record
  cannot tell "not decomposed" from "no facts"). Fact lists are also aligned pairwise
  (`alignment.fact_match_counts`) for precision / recall / F1.

Nothing here raises on degenerate data: α is None with a reason ("fewer than two annotators",
"only one value occurs", …).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import combinations

import krippendorff
import numpy as np

from annotation.agreement.alignment import fact_match_counts, normalise_fact_text
from annotation.protocol.derivation import derive_entailment
from annotation.protocol.ids import Task, annotator_name
from annotation.protocol.records import EvaluationRecord, Fact, Sentence

STAGES = ("verifiable", "entailment_all", "entailment_alone", "entailment_without", "decomposition")
LEVELS = {
    "verifiable": "nominal",
    "entailment_all": "nominal",
    "entailment_alone": "nominal",
    "entailment_without": "nominal",
    "decomposition": "interval",
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


FactIdentity = tuple[str, tuple[int, ...]]  # (normalised text, sorted citation subset)
Units = dict[tuple, dict[str, float]]  # unit key → {annotator: value}


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


def fact_identity(fact: Fact) -> FactIdentity:
    """What makes two annotators' facts the same fact: normalised text and citation subset."""
    return normalise_fact_text(fact.text), tuple(sorted(set(fact.citations)))


def fact_groups(
    by_response: dict[str, dict[str, EvaluationRecord]], min_annotators: int = 2
) -> dict[tuple[str, int, FactIdentity], dict[str, tuple[Fact, Sentence]]]:
    """{(response_id, sentence index, identity): {annotator: (fact, sentence)}} for the facts
    at least `min_annotators` annotators gave; an annotator's repeated identity keeps the first."""
    groups: dict[tuple[str, int, FactIdentity], dict[str, tuple[Fact, Sentence]]] = {}
    for response_id, by_name in by_response.items():
        for name, record in sorted(by_name.items()):
            for i, sentence in enumerate(record.sentences):
                for fact in sentence.facts:
                    group = groups.setdefault((response_id, i, fact_identity(fact)), {})
                    group.setdefault(name, (fact, sentence))
    return {key: group for key, group in groups.items() if len(group) >= min_annotators}


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


def _add(units: Units, key: tuple, name: str, value: float | None) -> None:
    if value is not None:
        units.setdefault(key, {})[name] = value


def labelled_units(records) -> dict[str, Units]:
    """Every stage's units (see module doc) from evaluation records, single-coded ones included;
    only `human:*` sources are used. A fact the derivation rejects (citation index out of
    range) is left out."""
    by_response = records_by_response(records)
    units: dict[str, Units] = {stage: {} for stage in STAGES}
    for response_id, by_name in by_response.items():
        for name, record in by_name.items():
            for i, sentence in enumerate(record.sentences):
                _add(units["verifiable"], (response_id, i), name, _value(sentence.verifiable))
                if sentence.facts:
                    _add(units["decomposition"], (response_id, i), name, float(len(sentence.facts)))
    for (response_id, i, identity), group in fact_groups(by_response).items():
        for name, (fact, sentence) in group.items():
            if fact.entailment is None:
                continue
            try:
                derived = derive_entailment(fact, sentence)
            except ValueError:
                continue
            _add(units["entailment_all"], (response_id, i, identity), name, _value(derived.all))
            for j, citation_index in enumerate(fact.citations):
                for question in ("alone", "without"):
                    if not fixed_by_rule(fact, sentence, question, j):
                        _add(
                            units[f"entailment_{question}"],
                            (response_id, i, identity, citation_index),
                            name,
                            _value(getattr(derived, question)[j]),
                        )
    return units


def shared_units(units: Units) -> Units:
    """The units at least two annotators labelled (the ones α is computed on)."""
    return {key: values for key, values in units.items() if len(values) >= 2}


def stage_units(records) -> dict[str, Units]:
    """Every stage's units labelled by at least two annotators: {stage: {unit key: {annotator: value}}}."""
    return {stage: shared_units(units) for stage, units in labelled_units(records).items()}


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


@dataclass
class Agreement:
    """α of one stage with its bootstrap CI. `alpha` None → undefined, `reason` says why;
    `ci_low`/`ci_high` None when no resample was usable. Decomposition also carries the
    fact-set precision / recall / F1 averaged over annotator pairs (`n_pairs` of them)."""

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


def _undefined_reason(matrix: np.ndarray, n_annotators: int, level: str) -> str | None:
    if n_annotators < 2:
        return f"fewer than two annotators ({n_annotators})"
    if matrix.shape[1] == 0:
        return "no unit was labelled by two or more annotators"
    values = np.unique(matrix[~np.isnan(matrix)])
    if len(values) < 2:
        shown = str(bool(values[0])).lower() if level == "nominal" else f"{values[0]:g}"
        return f"only one value occurs ({shown} on every unit)"
    return None


def _value_counts(matrix: np.ndarray, domain: np.ndarray) -> np.ndarray:
    """(units × values) counts: how many annotators gave each value to each unit."""
    return np.stack([(matrix == value).sum(axis=0) for value in domain], axis=1).astype(float)


def bootstrap_alpha(
    matrix: np.ndarray, level: str, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> tuple[np.ndarray, int]:
    """α of `n_resamples` resamples of the matrix's columns (units, with replacement, seeded):
    (the usable α values, how many resamples were degenerate and skipped)."""
    domain = np.unique(matrix[~np.isnan(matrix)])
    counts = _value_counts(matrix, domain)
    rng = np.random.default_rng(seed)
    n_units = counts.shape[0]
    alphas, degenerate = [], 0
    for _ in range(n_resamples):
        sample = counts[rng.integers(0, n_units, n_units)]
        if len(domain) < 2 or (sample.sum(axis=1) > 1).sum() == 0:
            degenerate += 1
            continue
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = float(
                krippendorff.alpha(value_counts=sample, value_domain=domain, level_of_measurement=level)
            )
        if np.isfinite(value):
            alphas.append(value)
        else:  # one value among the units coded twice: expected disagreement 0
            degenerate += 1
    return np.array(alphas), degenerate


def stage_agreement(
    stage: str, units: Units, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0, confidence: float = 0.95
) -> Agreement:
    """Krippendorff's α of one stage (level from LEVELS) on its units labelled by two or more
    annotators, and its percentile bootstrap CI. `n_annotators` counts everyone who labelled
    any unit of the stage. Degenerate input (no units, one annotator, one value) gives α None
    with the reason."""
    level = LEVELS[stage]
    present = {name for values in units.values() for name in values}
    _, _, matrix = reliability_matrix(shared_units(units))
    result = Agreement(stage, level, None, None, None, matrix.shape[1], len(present))
    result.reason = _undefined_reason(matrix, len(present), level)
    if result.reason is not None:
        return result
    result.alpha = float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level))
    alphas, result.n_degenerate_resamples = bootstrap_alpha(matrix, level, n_resamples, seed)
    result.n_resamples = n_resamples
    if len(alphas):
        tail = (1 - confidence) / 2 * 100
        result.ci_low, result.ci_high = (float(v) for v in np.percentile(alphas, [tail, 100 - tail]))
    return result


def decomposition_prf(
    records, threshold: float = 0.5
) -> tuple[float | None, float | None, float | None, int]:
    """Fact-set (precision, recall, F1, number of annotator pairs) averaged over annotator pairs.

    For each pair (a, b), a before b by name, over the sentences both decomposed: precision =
    matched / a's facts, recall = matched / b's facts (micro over sentences, matches by
    `alignment.fact_match_counts`), F1 from them. (None, None, None, 0) when no pair shares a
    decomposed sentence."""
    sums: dict[tuple[str, str], list[int]] = {}
    for by_name in records_by_response(records).values():
        for a, b in combinations(sorted(by_name), 2):
            sentences_a, sentences_b = by_name[a].sentences, by_name[b].sentences
            for sa, sb in zip(sentences_a, sentences_b, strict=False):
                if sa.facts and sb.facts:
                    matched, n_a, n_b = fact_match_counts(
                        [f.text for f in sa.facts], [f.text for f in sb.facts], threshold
                    )
                    total = sums.setdefault((a, b), [0, 0, 0])
                    total[0] += matched
                    total[1] += n_a
                    total[2] += n_b
    if not sums:
        return None, None, None, 0
    precisions, recalls, f1s = [], [], []
    for matched, n_a, n_b in sums.values():
        p, r = matched / n_a, matched / n_b
        precisions.append(p)
        recalls.append(r)
        f1s.append(2 * p * r / (p + r) if p + r else 0.0)
    return (float(np.mean(precisions)), float(np.mean(recalls)), float(np.mean(f1s)), len(sums))


def measure_agreement(
    records, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0, threshold: float = 0.5
) -> dict[str, Agreement]:
    """{stage: Agreement} for every stage in STAGES, from evaluation records (`human:*` used).
    Never raises on degenerate data."""
    records = list(records)
    units = labelled_units(records)
    out = {
        stage: stage_agreement(stage, units[stage], n_resamples=n_resamples, seed=seed) for stage in STAGES
    }
    decomposition = out["decomposition"]
    (decomposition.precision, decomposition.recall, decomposition.f1, decomposition.n_pairs) = (
        decomposition_prf(records, threshold)
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
