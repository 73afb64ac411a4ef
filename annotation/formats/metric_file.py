"""Metric files, the reference judge pipeline's output (PROTOCOL §4): check every row, convert each
to the response plus the judge's work as an evaluation record (PROTOCOL §5).

Module promise (as for every reader in `annotation.formats.readers`): the whole file is checked and every
problem collected, each located by file, line (JSONL) or entry index (JSON list) and field. With
problems and no `skip_invalid` it raises `InputError` with all of them; with `skip_invalid` it
returns the valid rows in `items` and one `Problem` per skipped row in `skipped`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from annotation.formats.rows import (
    Found,
    ReadResult,
    collect_rows,
    effective_id,
    is_number,
    kind_of,
    parse_rows,
    response_from_row,
    unique_ids,
)
from annotation.protocol.citations import Citation, parse_citations, strip_citations
from annotation.protocol.errors import InputError
from annotation.protocol.ids import Source
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Response, Sentence

_BULLET_RE = re.compile(r"^\s*[-*•]\s+")
_SCORE_FIELDS = ("coverage", "attribution_precision", "attribution_recall", "citation_f1", "final_score")


@dataclass
class MetricEntry:
    """One row of a metric file: its response, the judge's work as a record, and the raw row."""

    response: Response
    evaluations: dict
    response_score: dict | None
    record: EvaluationRecord
    entry: dict


def _short(key: str) -> str:
    return json.dumps(key if len(key) <= 40 else key[:39] + "…", ensure_ascii=False)


def _check_fact_scores(scores: object, at: str) -> Found:
    if not isinstance(scores, dict):
        return [(at, f"must be an object, got {kind_of(scores)}")]
    found: Found = []
    for name in ("precision", "recall"):
        if name not in scores:
            found.append((f"{at}.{name}", "missing"))
        elif scores[name] is not None and not (is_number(scores[name]) and 0 <= scores[name] <= 1):
            found.append((f"{at}.{name}", f"must be a number in [0, 1] or null, got {scores[name]!r}"))
    judgments = scores.get("citation_judgments")
    if "citation_judgments" not in scores:
        found.append((f"{at}.citation_judgments", "missing"))
    elif not isinstance(judgments, dict):
        found.append((f"{at}.citation_judgments", f"must be an object, got {kind_of(judgments)}"))
    else:
        found += [
            (f"{at}.citation_judgments[{_short(key)}]", f"must be true, false or null, got {kind_of(value)}")
            for key, value in judgments.items()
            if value is not None and not isinstance(value, bool)
        ]
    return found


def _check_evaluations(row: dict) -> Found:
    if "evaluations" not in row:
        return [("evaluations", "missing: the judge pipeline did not evaluate this entry")]
    evaluations = row["evaluations"]
    if not isinstance(evaluations, dict):
        return [("evaluations", f"must be an object (sentence → evaluation), got {kind_of(evaluations)}")]
    found: Found = []
    for key, value in evaluations.items():
        at = f"evaluations[{_short(key)}]"
        if not isinstance(value, dict):
            found.append((at, f"must be an object, got {kind_of(value)}"))
            continue
        worthy = value.get("verification_worthy")
        if not isinstance(worthy, dict):
            found.append(
                (
                    f"{at}.verification_worthy",
                    "missing" if worthy is None else f"must be an object, got {kind_of(worthy)}",
                )
            )
        elif "prediction" not in worthy:
            found.append((f"{at}.verification_worthy.prediction", "missing"))
        elif worthy["prediction"] is not None and not isinstance(worthy["prediction"], bool):
            found.append(
                (
                    f"{at}.verification_worthy.prediction",
                    f"must be true, false or null, got {kind_of(worthy['prediction'])}",
                )
            )
        facts = value.get("atomic_facts", [])
        if not isinstance(facts, list):
            found.append((f"{at}.atomic_facts", f"must be a list, got {kind_of(facts)}"))
            continue
        for j, fact in enumerate(facts):
            fact_at = f"{at}.atomic_facts[{j}]"
            if not isinstance(fact, dict):
                found.append((fact_at, f"must be an object, got {kind_of(fact)}"))
                continue
            if not isinstance(fact.get("fact"), str):
                found.append(
                    (
                        f"{fact_at}.fact",
                        "missing" if "fact" not in fact else f"must be a string, got {kind_of(fact['fact'])}",
                    )
                )
            if "scores" in fact:  # absent scores: entailment not done yet
                found += _check_fact_scores(fact["scores"], f"{fact_at}.scores")
    score = row.get("response_score")
    if score is not None and not isinstance(score, dict):
        found.append(("response_score", f"must be an object or null, got {kind_of(score)}"))
    elif score is not None:
        found += [
            (f"response_score.{name}", f"must be a number, got {kind_of(score[name])}")
            for name in _SCORE_FIELDS
            if name in score and not is_number(score[name])
        ]
    return found


def _identity(citation: Citation) -> tuple:
    """Two citations are the same when they name the same segment (or, invalid, read the same)."""
    if citation.valid:
        return ("valid", citation.modality, citation.start, citation.end)
    return ("invalid", " ".join((citation.raw or "").split()).lower())


def _judgement_at(sentence: str, j: int, key: str) -> str:
    # built only for a problem: formatting it for every judgement was a tenth of reading a file
    return f"evaluations[{_short(sentence)}].atomic_facts[{j}].scores.citation_judgments[{_short(key)}]"


def _metric_sentence(text: str, data: dict) -> tuple[Sentence, Found]:
    """One evaluations item (its key `text`) → a Sentence, per PROTOCOL §4→§5 (see `read_metric_file`)."""
    found: Found = []
    citations = parse_citations(text)
    identities = [_identity(c) for c in citations]
    index_of: dict[tuple, int] = {}  # identity → first index in `citations`
    for index, identity in enumerate(identities):
        index_of.setdefault(identity, index)
    facts = []
    for j, fact_data in enumerate(data.get("atomic_facts") or []):
        own = parse_citations(fact_data["fact"])
        own_identities = {_identity(c) for c in own}
        scores = fact_data.get("scores")
        judged: dict[tuple, bool | None] = {}
        for key, value in (scores or {}).get("citation_judgments", {}).items():
            parsed = parse_citations(key)
            if len(parsed) != 1:
                found.append((_judgement_at(text, j, key), "is not one citation like '(visual, 0:05)'"))
                continue
            identity = _identity(parsed[0])
            if identity in judged and judged[identity] != value:
                found.append(
                    (
                        _judgement_at(text, j, key),
                        "names the same citation as another judgement but disagrees with it",
                    )
                )
            judged[identity] = value
            if identity not in own_identities:
                own.append(parsed[0])  # judged by the reference parser though ours missed it: keep it
                own_identities.add(identity)
        indices: list[int] = []
        for citation in own:
            identity = _identity(citation)
            index = index_of.get(identity)
            if index is None:  # a citation the fact has and the sentence lacks joins the sentence
                index = index_of[identity] = len(citations)
                citations.append(citation)
                identities.append(identity)
            if index not in indices:
                indices.append(index)
        entailment = None
        if scores is not None:
            k = len(indices)
            if k and not judged:  # the reference saw no citation here, so it judged nothing
                entailment = Entailment(None, [None] * k, [None] * k)
            else:
                recall = scores["recall"]
                entailment = Entailment(
                    None if recall is None else recall > 0.5,
                    [judged.get(identities[i]) for i in indices],
                    [None] * k,
                )
        # the reference keeps the decomposer's "- " bullet and the citation groups in the fact text;
        # a record's fact text carries neither (its citations are the indices)
        text_only = _BULLET_RE.sub("", strip_citations(fact_data["fact"]))
        facts.append(Fact(text=text_only, citations=indices, entailment=entailment))
    verifiable = data["verification_worthy"]["prediction"]
    return Sentence(text=text, verifiable=verifiable, citations=citations, facts=facts), found


def metric_entries_from_rows(path: Path, rows: list, skip_invalid: bool, source: str | None) -> ReadResult:
    """`read_metric_file` on rows already loaded by `rows.parse_rows` (`read_any` loads them once).
    InputError for a `source` that is no source ('gold', 'human:<name>', 'judge:<name>'): its
    records would be stored under a name every reader of sources leaves out."""
    if source is not None:
        try:
            Source.parse(source)
        except ValueError as error:
            raise InputError(str(error), path=str(path), field="--source") from None
    source = source or str(Source.judge(path.stem))
    duplicate = unique_ids("id")

    def check_row(index: int, row: object, where: str) -> tuple[object, Found]:
        default_id = f"{path.stem}-{index}"  # as in generation files: two files' rows never collide
        response, found = response_from_row(row, default_id, metric=True)
        if not isinstance(row, dict):
            return None, found
        found += _check_evaluations(row)
        if not any(name in (None, "id") for name, _ in found):  # the row has a usable id
            found += duplicate(effective_id(row, default_id), where)
        if found:
            return None, found
        sentences = []
        for key, data in row["evaluations"].items():
            sentence, sentence_found = _metric_sentence(key, data)
            sentences.append(sentence)
            found += sentence_found
        record = EvaluationRecord(response.response_id, source, sentences)
        entry = MetricEntry(response, row["evaluations"], row.get("response_score"), record, row)
        return (entry if not found else None), found

    return collect_rows(path, rows, check_row, skip_invalid, response_of=lambda entry: entry.response)


def read_metric_file(
    path: Path | str, *, source: str | None = None, skip_invalid: bool = False
) -> ReadResult:
    """A metric file (the reference judge pipeline's output) → `ReadResult` of `MetricEntry`s.

    Rows need the generation fields (text may come from `original_full_generation`) and a fully
    well-formed `evaluations`; a row without it (the pipeline failed on it) is a problem. Fact
    `scores` may be absent (entailment not done → `entailment` None). response_id = `id`, else
    '<file stem>-<0-based index>' (as in generation files); source defaults to 'judge:<file stem>'.
    The record has one Sentence per evaluations key in order: verifiable = prediction; citations
    parsed from the key, plus any a fact cites that the key lacks; a fact's citations index the
    citations parsed from its text (plus any judged citation its text lacks: a judgement key the
    reference parser read that ours does not); alone[j] = the judgement whose key parses to citation
    j (null if none); all = recall > 0.5 (null when recall is null, or when the fact has citations
    but no judgements); without all null; fact text without its "- " bullet and citation groups.
    Raises InputError per the module promise.
    """
    path = Path(path)
    return metric_entries_from_rows(path, parse_rows(path), skip_invalid, source)
