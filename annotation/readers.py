"""Read the files researchers have: generation, metric and evaluation-record files (PROTOCOL §4–§5).

Every reader validates the whole file and collects every problem, each located by file, line
(JSONL) or entry index (JSON list) and field. With problems and no `skip_invalid` it raises
`InputError` with all of them and returns nothing; with `skip_invalid` it returns the valid rows
in `items` and one `Problem` per skipped row in `skipped`.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from annotation.citations import MODALITIES, Citation, parse_citations, strip_citations
from annotation.errors import InputError, Problem
from annotation.records import Entailment, EvaluationRecord, Fact, Response, Sentence

FORMATS = ("generation", "metric", "records")
_RESPONSE_FIELDS = ("id", "model_generation", "video", "question", "options", "answer")
_SCORE_FIELDS = ("coverage", "attribution_precision", "attribution_recall", "citation_f1", "final_score")

Found = list[tuple[str | None, str]]  # (field path, message) pairs for one row


@dataclass
class ReadResult:
    """`items` in file order; `skipped` holds one Problem per row left out under skip_invalid;
    `locations[i]` is where `items[i]` came from: (line 1-based | entry index 0-based, is_entry_index).
    """

    items: list = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    locations: list[tuple[int, bool]] = field(default_factory=list)


@dataclass
class MetricEntry:
    """One row of a metric file: its response, the judge's work as a record, and the raw row."""

    response: Response
    evaluations: dict
    response_score: dict | None
    record: EvaluationRecord
    entry: dict


@dataclass(frozen=True)
class _BadLine:
    """A JSONL line that is not JSON; kept in place so row indices stay stable."""

    problem: Problem


# --- rows -------------------------------------------------------------------------------------

def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return {str: "a string", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except json.JSONDecodeError:
        return False


def _read_text(path: Path) -> str:
    where = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(Problem(where, None, None, f"cannot read the file: {exc.strerror or exc}")) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputError(Problem(where, line, None, f"not UTF-8 text (byte 0x{data[exc.start]:02x})")) from None


def _parse_rows(path: Path) -> list[tuple[int, bool, object]]:
    """Like `load_rows`, but a JSONL line that is not JSON comes back as a `_BadLine`."""
    where = str(path)
    text = _read_text(path)
    if not text.strip():
        raise InputError(Problem(where, None, None, "the file is empty"))
    # split on \n only: JSON strings may hold a raw U+2028, which str.splitlines would cut
    lines = [(number, line) for number, line in enumerate(text.split("\n"), 1) if line.strip()]
    as_jsonl = _is_json_object(lines[0][1])
    if not as_jsonl:
        try:
            whole = json.loads(text)
        except json.JSONDecodeError as exc:
            # a bad first line in a file whose other lines are mostly objects is still JSONL
            others = sum(_is_json_object(line) for _, line in lines[1:])
            if not (lines[0][1].lstrip().startswith("{") and others and 2 * others >= len(lines) - 1):
                raise InputError(Problem(where, exc.lineno, None,
                                         f"not valid JSON (column {exc.colno}: {exc.msg})")) from None
            as_jsonl = True
        else:
            if isinstance(whole, dict):
                return [(0, True, whole)]
            if not isinstance(whole, list):
                raise InputError(Problem(where, None, None,
                                         f"expected a JSON list of objects, one object or JSON Lines, "
                                         f"got {_kind(whole)}"))
            if not whole:
                raise InputError(Problem(where, None, None, "the file holds no entries (an empty list)"))
            return [(index, True, obj) for index, obj in enumerate(whole)]
    rows: list[tuple[int, bool, object]] = []
    for number, line in lines:
        try:
            rows.append((number, False, json.loads(line)))
        except json.JSONDecodeError as exc:
            rows.append((number, False, _BadLine(Problem(where, number, None,
                                                         f"not valid JSON (column {exc.colno}: {exc.msg})"))))
    return rows


def load_rows(path: Path | str) -> list[tuple[int, bool, object]]:
    """The rows of a JSON (a list, or one object) or JSONL file, told apart by content.

    Returns (line number 1-based | entry index 0-based, is_entry_index, parsed object) per row.
    Raises InputError for an unreadable or empty file, a file that is not UTF-8 (BOM tolerated),
    bad JSON (with the line for JSONL, line and column for JSON: every bad JSONL line is listed)
    and a JSON value that is neither a list nor an object. Row contents are not checked here.
    """
    rows = _parse_rows(Path(path))
    bad = [obj.problem for _, _, obj in rows if isinstance(obj, _BadLine)]
    if bad:
        raise InputError(bad)
    return rows


def _format_of_rows(path: Path, rows: list) -> str:
    objects = [obj for _, _, obj in rows if isinstance(obj, dict)]
    if any("evaluations" in obj for obj in objects):
        return "metric"
    if any("sentences" in obj for obj in objects):
        return "records"
    if any("model_generation" in obj or "original_full_generation" in obj for obj in objects):
        return "generation"
    raise InputError(Problem(str(path), None, None,
                             "cannot tell the format: no entry has 'model_generation' (generation file), "
                             "'evaluations' (metric file) or 'sentences' (evaluation records)"))


def detect_format(path: Path | str) -> str:
    """'generation' | 'metric' | 'records', by the fields the rows carry (any row with
    `evaluations` makes a metric file, since rows the judge pipeline failed on lack it).

    Raises InputError when the file cannot be read or no row has a telling field.
    """
    path = Path(path)
    return _format_of_rows(path, _parse_rows(path))


def _collect(path: Path, rows: list, check_row: Callable[[int, object, str], tuple[object, Found]],
             skip_invalid: bool) -> ReadResult:
    """Run `check_row(index, obj, where)` over every row; raise or skip per the module promise."""
    result, problems = ReadResult(), []
    for index, (line, is_entry, obj) in enumerate(rows):
        if isinstance(obj, _BadLine):
            row_problems = [obj.problem]
        else:
            item, found = check_row(index, obj, f"entry {line}" if is_entry else f"line {line}")
            row_problems = [Problem(str(path), line, name, message, entry=is_entry) for name, message in found]
            if not row_problems:
                result.items.append(item)
                result.locations.append((line, is_entry))
                continue
        problems.extend(row_problems)
        first = row_problems[0]
        result.skipped.append(first if len(row_problems) == 1 else Problem(
            first.path, first.line, None,
            "; ".join(f"{p.field or 'row'}: {p.message}" for p in row_problems), first.entry))
    if problems and not skip_invalid:
        raise InputError(problems)
    return result


# --- generation files ---------------------------------------------------------------------------

def _response_from_row(row: object, default_id: str, *, metric: bool) -> tuple[Response | None, Found]:
    if not isinstance(row, dict):
        return None, [(None, f"expected an object, got {_kind(row)}")]
    found: Found = []
    response_id = default_id
    if row.get("id") is not None:
        if isinstance(row["id"], bool) or not isinstance(row["id"], (str, int)):
            found.append(("id", f"must be a string or an integer, got {_kind(row['id'])}"))
        elif not str(row["id"]).strip():
            found.append(("id", "must not be empty"))
        else:
            response_id = str(row["id"])
    text_field = "model_generation"
    if metric and "model_generation" not in row and "original_full_generation" in row:
        text_field = "original_full_generation"  # the reference pipeline's fallback
    text = row.get(text_field)
    if text_field not in row:
        found.append((text_field, "missing"))
    elif not isinstance(text, str):
        found.append((text_field, f"must be a string, got {_kind(text)}"))
    elif not text.strip():
        found.append((text_field, "must not be empty"))
    video = row.get("video")
    if "video" not in row:
        found.append(("video", "missing"))
    elif not isinstance(video, str) or not video.strip():
        found.append(("video", f"must be a non-empty string (a file name or id), got {_kind(video)}"))
    if not isinstance(row.get("question", ""), str):
        found.append(("question", f"must be a string, got {_kind(row['question'])}"))
    options = row.get("options", [])
    if not isinstance(options, list):
        found.append(("options", f"must be a list of strings, got {_kind(options)}"))
    else:
        found += [(f"options[{i}]", f"must be a string, got {_kind(o)}")
                  for i, o in enumerate(options) if not isinstance(o, str)]
    if row.get("answer") is not None and not isinstance(row["answer"], str):
        found.append(("answer", f"must be a string or null, got {_kind(row['answer'])}"))
    if found:
        return None, found
    kept_apart = _RESPONSE_FIELDS + (("evaluations", "response_score") if metric else ())
    return Response(response_id=response_id, text=text, video=video, question=row.get("question", ""),
                    options=list(options), answer=row.get("answer"),
                    extra={k: v for k, v in row.items() if k not in kept_apart}), []


def _effective_id(row: dict, default_id: str) -> str:
    return default_id if row.get("id") is None else str(row["id"])


def _unique_ids(kind: str) -> Callable[[str, str], Found]:
    """A checker that reports an id already seen, naming where it was first."""
    first_seen: dict[str, str] = {}

    def check(identity: str, where: str) -> Found:
        if identity in first_seen:
            return [("id" if kind == "id" else "response_id",
                     f"duplicate {kind} '{identity}' (first at {first_seen[identity]})")]
        first_seen[identity] = where
        return []
    return check


def _read_generation(path: Path, rows: list, skip_invalid: bool) -> ReadResult:
    duplicate = _unique_ids("id")

    def check_row(index: int, row: object, where: str) -> tuple[object, Found]:
        response, found = _response_from_row(row, f"{path.stem}-{index}", metric=False)
        if not any(name in (None, "id") for name, _ in found):  # the row has a usable id
            found += duplicate(_effective_id(row, f"{path.stem}-{index}"), where)
        return (response if not found else None), found
    return _collect(path, rows, check_row, skip_invalid)


def read_generation_file(path: Path | str, *, skip_invalid: bool = False) -> ReadResult:
    """A generation file → `ReadResult` of `Response`s (text = raw `model_generation`, think
    blocks and all). Required: `model_generation` (non-empty string) and `video` (non-empty
    string); `question` string, `options` list of strings, `answer` string or null when given;
    `id` (string or integer) → response_id, else '<file stem>-<0-based index>'. Duplicate ids are
    a problem. Every other field goes to `Response.extra`. Raises InputError per the module promise.
    """
    path = Path(path)
    return _read_generation(path, _parse_rows(path), skip_invalid)


# --- metric files -------------------------------------------------------------------------------

def _short(key: str) -> str:
    return json.dumps(key if len(key) <= 40 else key[:39] + "…", ensure_ascii=False)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_fact_scores(scores: object, at: str) -> Found:
    if not isinstance(scores, dict):
        return [(at, f"must be an object, got {_kind(scores)}")]
    found: Found = []
    for name in ("precision", "recall"):
        if name not in scores:
            found.append((f"{at}.{name}", "missing"))
        elif scores[name] is not None and not (_is_number(scores[name]) and 0 <= scores[name] <= 1):
            found.append((f"{at}.{name}", f"must be a number in [0, 1] or null, got {scores[name]!r}"))
    judgments = scores.get("citation_judgments")
    if "citation_judgments" not in scores:
        found.append((f"{at}.citation_judgments", "missing"))
    elif not isinstance(judgments, dict):
        found.append((f"{at}.citation_judgments", f"must be an object, got {_kind(judgments)}"))
    else:
        found += [(f"{at}.citation_judgments[{_short(key)}]", f"must be true, false or null, got {_kind(value)}")
                  for key, value in judgments.items() if value is not None and not isinstance(value, bool)]
    return found


def _check_evaluations(row: dict) -> Found:
    if "evaluations" not in row:
        return [("evaluations", "missing: the judge pipeline did not evaluate this entry")]
    evaluations = row["evaluations"]
    if not isinstance(evaluations, dict):
        return [("evaluations", f"must be an object (sentence → evaluation), got {_kind(evaluations)}")]
    found: Found = []
    for key, value in evaluations.items():
        at = f"evaluations[{_short(key)}]"
        if not isinstance(value, dict):
            found.append((at, f"must be an object, got {_kind(value)}"))
            continue
        worthy = value.get("verification_worthy")
        if not isinstance(worthy, dict):
            found.append((f"{at}.verification_worthy",
                          "missing" if worthy is None else f"must be an object, got {_kind(worthy)}"))
        elif "prediction" not in worthy:
            found.append((f"{at}.verification_worthy.prediction", "missing"))
        elif worthy["prediction"] is not None and not isinstance(worthy["prediction"], bool):
            found.append((f"{at}.verification_worthy.prediction",
                          f"must be true, false or null, got {_kind(worthy['prediction'])}"))
        facts = value.get("atomic_facts", [])
        if not isinstance(facts, list):
            found.append((f"{at}.atomic_facts", f"must be a list, got {_kind(facts)}"))
            continue
        for j, fact in enumerate(facts):
            fact_at = f"{at}.atomic_facts[{j}]"
            if not isinstance(fact, dict):
                found.append((fact_at, f"must be an object, got {_kind(fact)}"))
                continue
            if not isinstance(fact.get("fact"), str):
                found.append((f"{fact_at}.fact", "missing" if "fact" not in fact
                              else f"must be a string, got {_kind(fact['fact'])}"))
            if "scores" in fact:  # absent scores: entailment not done yet
                found += _check_fact_scores(fact["scores"], f"{fact_at}.scores")
    score = row.get("response_score")
    if score is not None and not isinstance(score, dict):
        found.append(("response_score", f"must be an object or null, got {_kind(score)}"))
    elif score is not None:
        found += [(f"response_score.{name}", f"must be a number, got {_kind(score[name])}")
                  for name in _SCORE_FIELDS if name in score and not _is_number(score[name])]
    return found


def _identity(citation: Citation) -> tuple:
    """Two citations are the same when they name the same segment (or, invalid, read the same)."""
    if citation.valid:
        return ("valid", citation.modality, citation.start, citation.end)
    return ("invalid", " ".join((citation.raw or "").split()).lower())


def _index_in(citation: Citation, citations: list[Citation]) -> int:
    """Index of `citation` in `citations`, appending it when absent."""
    identity = _identity(citation)
    for index, known in enumerate(citations):
        if _identity(known) == identity:
            return index
    citations.append(citation)
    return len(citations) - 1


def _metric_sentence(text: str, data: dict, at: str) -> tuple[Sentence, Found]:
    """One evaluations item → a Sentence, per PROTOCOL §4→§5 (see `read_metric_file`)."""
    found: Found = []
    citations = parse_citations(text)
    facts = []
    for j, fact_data in enumerate(data.get("atomic_facts") or []):
        own = parse_citations(fact_data["fact"])
        scores = fact_data.get("scores")
        judged: dict[tuple, bool | None] = {}
        for key, value in (scores or {}).get("citation_judgments", {}).items():
            key_at = f"{at}.atomic_facts[{j}].scores.citation_judgments[{_short(key)}]"
            parsed = parse_citations(key)
            if len(parsed) != 1:
                found.append((key_at, "is not one citation like '(visual, 0:05)'"))
                continue
            identity = _identity(parsed[0])
            if identity in judged and judged[identity] != value:
                found.append((key_at, "names the same citation as another judgement but disagrees with it"))
            judged[identity] = value
            if all(_identity(c) != identity for c in own):
                own.append(parsed[0])  # judged by the reference parser though ours missed it: keep it
        indices: list[int] = []
        for citation in own:
            index = _index_in(citation, citations)
            if index not in indices:
                indices.append(index)
        entailment = None
        if scores is not None:
            k = len(indices)
            if k and not judged:  # the reference saw no citation here, so it judged nothing
                entailment = Entailment(None, [None] * k, [None] * k)
            else:
                recall = scores["recall"]
                entailment = Entailment(None if recall is None else recall > 0.5,
                                        [judged.get(_identity(citations[i])) for i in indices], [None] * k)
        # the reference keeps the decomposer's "- " bullet and the citation groups in the fact text;
        # a record's fact text carries neither (its citations are the indices)
        text_only = re.sub(r"^\s*[-*•]\s+", "", strip_citations(fact_data["fact"]))
        facts.append(Fact(text=text_only, citations=indices, entailment=entailment))
    verifiable = data["verification_worthy"]["prediction"]
    return Sentence(text=text, verifiable=verifiable, citations=citations, facts=facts), found


def _read_metric(path: Path, rows: list, skip_invalid: bool, source: str | None) -> ReadResult:
    source = source or f"judge:{path.stem}"
    duplicate = _unique_ids("id")

    def check_row(index: int, row: object, where: str) -> tuple[object, Found]:
        response, found = _response_from_row(row, str(index), metric=True)
        if not isinstance(row, dict):
            return None, found
        found += _check_evaluations(row)
        if not any(name in (None, "id") for name, _ in found):  # the row has a usable id
            found += duplicate(_effective_id(row, str(index)), where)
        if found:
            return None, found
        sentences = []
        for key, data in row["evaluations"].items():
            sentence, sentence_found = _metric_sentence(key, data, f"evaluations[{_short(key)}]")
            sentences.append(sentence)
            found += sentence_found
        record = EvaluationRecord(response.response_id, source, sentences)
        entry = MetricEntry(response, row["evaluations"], row.get("response_score"), record, row)
        return (entry if not found else None), found
    return _collect(path, rows, check_row, skip_invalid)


def read_metric_file(path: Path | str, *, source: str | None = None, skip_invalid: bool = False) -> ReadResult:
    """A metric file (the reference judge pipeline's output) → `ReadResult` of `MetricEntry`s.

    Rows need the generation fields (text may come from `original_full_generation`) and a fully
    well-formed `evaluations`; a row without it (the pipeline failed on it) is a problem. Fact
    `scores` may be absent (entailment not done → `entailment` None). response_id = `id`, else the
    0-based entry index; source defaults to 'judge:<file stem>'. The record has one Sentence per
    evaluations key in order: verifiable = prediction; citations parsed from the key, plus any a
    fact cites that the key lacks; a fact's citations index the citations parsed from its text
    (plus any judged citation its text lacks: a judgement key the reference parser read that ours
    does not); alone[j] = the judgement whose key parses to citation j (null if none); all =
    recall > 0.5 (null when recall is null, or when the fact has citations but no judgements);
    without all null; fact text without its "- " bullet and citation groups. Raises InputError per the module promise.
    """
    path = Path(path)
    return _read_metric(path, _parse_rows(path), skip_invalid, source)


# --- evaluation records ---------------------------------------------------------------------------

def _check_flag_list(values: object, k: int, at: str) -> Found:
    if not isinstance(values, list):
        return [(at, "missing: give one value per fact citation (null where not judged)" if values is None
                 else f"must be a list, got {_kind(values)}")]
    found: Found = [(f"{at}[{j}]", f"must be true, false or null, got {_kind(v)}")
                    for j, v in enumerate(values) if v is not None and not isinstance(v, bool)]
    if len(values) != k:
        found.append((at, f"has {len(values)} values but the fact has {k} citations"))
    return found


def _check_citation(citation: object, at: str) -> Found:
    if not isinstance(citation, dict):
        return [(at, f"must be an object, got {_kind(citation)}")]
    found: Found = []
    valid = citation.get("valid", True)
    if not isinstance(valid, bool):
        found.append((f"{at}.valid", f"must be true or false, got {_kind(valid)}"))
    modality = citation.get("modality")
    if not isinstance(modality, str):
        found.append((f"{at}.modality", "missing" if modality is None else f"must be a string, got {_kind(modality)}"))
    elif valid is True and modality not in MODALITIES:
        found.append((f"{at}.modality", f"unknown modality '{modality}' (expected 'visual' or 'audio')"))
    start, end = citation.get("start"), citation.get("end", citation.get("start"))
    if valid is True:
        for name, value in (("start", start), ("end", end)):
            if not (_is_number(value) and value >= 0):
                found.append((f"{at}.{name}", f"must be a number of seconds >= 0, got {value!r}"))
        if _is_number(start) and _is_number(end) and start > end:
            found.append((at, f"start {start} is after end {end}"))
    else:
        found += [(f"{at}.{name}", f"must be a number or null, got {_kind(value)}")
                  for name, value in (("start", start), ("end", end)) if value is not None and not _is_number(value)]
        found += [(f"{at}.{name}", f"must be a string or null, got {_kind(citation[name])}")
                  for name in ("raw", "reason") if citation.get(name) is not None and not isinstance(citation[name], str)]
    return found


def _check_fact(fact: object, n_citations: int, at: str) -> Found:
    if not isinstance(fact, dict):
        return [(at, f"must be an object, got {_kind(fact)}")]
    found: Found = []
    if not isinstance(fact.get("text"), str):
        found.append((f"{at}.text", "missing" if "text" not in fact else f"must be a string, got {_kind(fact['text'])}"))
    indices = fact.get("citations", [])
    if not isinstance(indices, list):
        return found + [(f"{at}.citations", f"must be a list of citation indices, got {_kind(indices)}")]
    for j, index in enumerate(indices):
        if isinstance(index, bool) or not isinstance(index, int):
            found.append((f"{at}.citations[{j}]", f"must be an integer index, got {_kind(index)}"))
        elif not 0 <= index < n_citations:
            found.append((f"{at}.citations[{j}]", f"index {index} is out of range: the sentence has "
                          f"{n_citations} citations"))
        elif index in indices[:j]:
            found.append((f"{at}.citations[{j}]", f"index {index} is listed twice"))
    entailment = fact.get("entailment")
    if entailment is not None:
        if not isinstance(entailment, dict):
            return found + [(f"{at}.entailment", f"must be an object or null, got {_kind(entailment)}")]
        if entailment.get("all") is not None and not isinstance(entailment["all"], bool):
            found.append((f"{at}.entailment.all", f"must be true, false or null, got {_kind(entailment['all'])}"))
        for name in ("alone", "without"):
            found += _check_flag_list(entailment.get(name), len(indices), f"{at}.entailment.{name}")
    if fact.get("provenance") is not None and not isinstance(fact["provenance"], dict):
        found.append((f"{at}.provenance", f"must be an object, got {_kind(fact['provenance'])}"))
    return found


def _check_sentence(sentence: object, at: str) -> Found:
    if not isinstance(sentence, dict):
        return [(at, f"must be an object, got {_kind(sentence)}")]
    found: Found = []
    if not isinstance(sentence.get("text"), str):
        found.append((f"{at}.text", "missing" if "text" not in sentence
                      else f"must be a string, got {_kind(sentence['text'])}"))
    if sentence.get("verifiable") is not None and not isinstance(sentence["verifiable"], bool):
        found.append((f"{at}.verifiable", f"must be true, false or null, got {_kind(sentence['verifiable'])}"))
    offsets = sentence.get("offsets")
    if offsets is not None and not (isinstance(offsets, list) and len(offsets) == 2
                                    and all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
                                    and 0 <= offsets[0] <= offsets[1]):
        found.append((f"{at}.offsets", f"must be [start, end] character offsets with start <= end, got {offsets!r}"))
    if sentence.get("provenance") is not None and not isinstance(sentence["provenance"], dict):
        found.append((f"{at}.provenance", f"must be an object, got {_kind(sentence['provenance'])}"))
    citations = sentence.get("citations", [])
    if not isinstance(citations, list):
        found.append((f"{at}.citations", f"must be a list, got {_kind(citations)}"))
        citations = []
    for i, citation in enumerate(citations):
        found += _check_citation(citation, f"{at}.citations[{i}]")
    facts = sentence.get("facts", [])
    if not isinstance(facts, list):
        return found + [(f"{at}.facts", f"must be a list, got {_kind(facts)}")]
    for j, fact in enumerate(facts):
        found += _check_fact(fact, len(citations), f"{at}.facts[{j}]")
    return found


def validate_record(obj: object) -> list[tuple[str, str]]:
    """Every problem of one evaluation record (PROTOCOL §5) as (field path, message), e.g.
    ('sentences[2].facts[0].citations[1]', 'index 3 is out of range: …'); empty when valid.

    Checks types, required fields (response_id, source, sentences, each text), the source form
    ('gold', 'human:<name>', 'judge:<name>'), citation modality/start/end for valid citations,
    fact citation indices (in range, not repeated) and alone/without lengths. Never raises.
    """
    if not isinstance(obj, dict):
        return [("", f"expected an object, got {_kind(obj)}")]
    found: Found = []
    response_id, source = obj.get("response_id"), obj.get("source")
    if not isinstance(response_id, str) or not response_id.strip():
        found.append(("response_id", "missing" if response_id is None
                      else f"must be a non-empty string, got {_kind(response_id)}"))
    if not isinstance(source, str):
        found.append(("source", "missing" if source is None else f"must be a string, got {_kind(source)}"))
    elif source != "gold" and not (source.partition(":")[0] in ("human", "judge")
                                   and source.partition(":")[2].strip()):
        found.append(("source", f"'{source}' is not 'gold', 'human:<name>' or 'judge:<name>'"))
    sentences = obj.get("sentences")
    if not isinstance(sentences, list):
        return found + [("sentences", "missing" if sentences is None else f"must be a list, got {_kind(sentences)}")]
    for i, sentence in enumerate(sentences):
        found += _check_sentence(sentence, f"sentences[{i}]")
    return found


def _read_records(path: Path, rows: list, skip_invalid: bool) -> ReadResult:
    duplicate = _unique_ids("(response_id, source) pair")

    def check_row(index: int, row: object, where: str) -> tuple[object, Found]:
        found: Found = list(validate_record(row))
        if isinstance(row, dict) and isinstance(row.get("response_id"), str) and isinstance(row.get("source"), str):
            found += duplicate(f"{row['response_id']}, {row['source']}", where)
        return (EvaluationRecord.from_dict(row) if not found else None), found
    return _collect(path, rows, check_row, skip_invalid)


def read_records_file(path: Path | str, *, skip_invalid: bool = False) -> ReadResult:
    """An evaluation-record file (JSONL, or a JSON list) → `ReadResult` of `EvaluationRecord`s.

    Each row must pass `validate_record`; a repeated (response_id, source) pair is a problem.
    Raises InputError per the module promise.
    """
    path = Path(path)
    return _read_records(path, _parse_rows(path), skip_invalid)


def write_records_jsonl(records: Iterable[EvaluationRecord], path_or_file) -> int:
    """Write records as JSONL (UTF-8, one per line) to a path or an open text file; returns the count.

    Every record is validated first, so a bad one raises ValueError (naming its position and
    field) before anything is written.
    """
    dicts = [record.to_dict() for record in records]
    for position, data in enumerate(dicts):
        found = validate_record(data)
        if found:
            raise ValueError(f"record {position} ({data.get('response_id')}, {data.get('source')}): "
                             + "; ".join(f"{name}: {message}" for name, message in found))
    lines = "".join(json.dumps(data, ensure_ascii=False) + "\n" for data in dicts)
    if isinstance(path_or_file, (str, Path)):
        Path(path_or_file).write_text(lines, encoding="utf-8")
    else:
        path_or_file.write(lines)
    return len(dicts)


def read_any(path: Path | str, *, fmt: str = "auto", skip_invalid: bool = False,
             source: str | None = None) -> tuple[str, ReadResult]:
    """Read a file of format `fmt` ('auto' detects it) → (format, ReadResult).

    `source` names the judge of a metric file (ignored for other formats). An unknown `fmt` is a
    ValueError; bad input raises InputError per the module promise.
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}' (expected auto, {', '.join(FORMATS)})")
    path = Path(path)
    rows = _parse_rows(path)
    if fmt == "auto":
        fmt = _format_of_rows(path, rows)
    if fmt == "generation":
        return fmt, _read_generation(path, rows, skip_invalid)
    if fmt == "metric":
        return fmt, _read_metric(path, rows, skip_invalid, source)
    return fmt, _read_records(path, rows, skip_invalid)
