"""The evaluation-record schema (PROTOCOL §5): every problem of one record, located by field path."""

from __future__ import annotations

from annotation.formats.rows import Found, is_number, kind_of, not_an_object
from annotation.protocol.citations import MODALITIES
from annotation.protocol.ids import source_kind


def _check_flag_list(values: object, k: int, at: str) -> Found:
    if not isinstance(values, list):
        return [
            (
                at,
                "missing: give one value per fact citation (null where not judged)"
                if values is None
                else f"must be a list, got {kind_of(values)}",
            )
        ]
    found: Found = [
        (f"{at}[{j}]", f"must be true, false or null, got {kind_of(v)}")
        for j, v in enumerate(values)
        if v is not None and not isinstance(v, bool)
    ]
    if len(values) != k:
        found.append((at, f"has {len(values)} values but the fact has {k} citations"))
    return found


def _check_citation(citation: object, at: str) -> Found:
    if not isinstance(citation, dict):
        return [(at, f"must be an object, got {kind_of(citation)}")]
    found: Found = []
    valid = citation.get("valid", True)
    if not isinstance(valid, bool):
        found.append((f"{at}.valid", f"must be true or false, got {kind_of(valid)}"))
    modality = citation.get("modality")
    if not isinstance(modality, str):
        found.append(
            (
                f"{at}.modality",
                "missing" if modality is None else f"must be a string, got {kind_of(modality)}",
            )
        )
    elif valid is True and modality not in MODALITIES:
        found.append((f"{at}.modality", f"unknown modality '{modality}' (expected 'visual' or 'audio')"))
    start, end = citation.get("start"), citation.get("end", citation.get("start"))
    if valid is True:
        for name, value in (("start", start), ("end", end)):
            if not (is_number(value) and value >= 0):
                found.append((f"{at}.{name}", f"must be a number of seconds >= 0, got {value!r}"))
        if is_number(start) and is_number(end) and start > end:
            found.append((at, f"start {start} is after end {end}"))
    else:
        found += [
            (f"{at}.{name}", f"must be a number or null, got {kind_of(value)}")
            for name, value in (("start", start), ("end", end))
            if value is not None and not is_number(value)
        ]
        found += [
            (f"{at}.{name}", f"must be a string or null, got {kind_of(citation[name])}")
            for name in ("raw", "reason")
            if citation.get(name) is not None and not isinstance(citation[name], str)
        ]
    return found


def _check_fact(fact: object, n_citations: int, at: str) -> Found:
    if not isinstance(fact, dict):
        return [(at, f"must be an object, got {kind_of(fact)}")]
    found: Found = []
    if not isinstance(fact.get("text"), str):
        found.append(
            (
                f"{at}.text",
                "missing" if "text" not in fact else f"must be a string, got {kind_of(fact['text'])}",
            )
        )
    indices = fact.get("citations", [])
    if not isinstance(indices, list):
        return found + [(f"{at}.citations", f"must be a list of citation indices, got {kind_of(indices)}")]
    for j, index in enumerate(indices):
        if isinstance(index, bool) or not isinstance(index, int):
            found.append((f"{at}.citations[{j}]", f"must be an integer index, got {kind_of(index)}"))
        elif not 0 <= index < n_citations:
            found.append(
                (
                    f"{at}.citations[{j}]",
                    f"index {index} is out of range: the sentence has {n_citations} citations",
                )
            )
        elif index in indices[:j]:
            found.append((f"{at}.citations[{j}]", f"index {index} is listed twice"))
    entailment = fact.get("entailment")
    if entailment is not None:
        if not isinstance(entailment, dict):
            return found + [(f"{at}.entailment", f"must be an object or null, got {kind_of(entailment)}")]
        if entailment.get("all") is not None and not isinstance(entailment["all"], bool):
            found.append(
                (f"{at}.entailment.all", f"must be true, false or null, got {kind_of(entailment['all'])}")
            )
        for name in ("alone", "without"):
            found += _check_flag_list(entailment.get(name), len(indices), f"{at}.entailment.{name}")
    if fact.get("provenance") is not None and not isinstance(fact["provenance"], dict):
        found.append((f"{at}.provenance", f"must be an object, got {kind_of(fact['provenance'])}"))
    return found


def _check_sentence(sentence: object, at: str) -> Found:
    if not isinstance(sentence, dict):
        return [(at, f"must be an object, got {kind_of(sentence)}")]
    found: Found = []
    if not isinstance(sentence.get("text"), str):
        found.append(
            (
                f"{at}.text",
                "missing" if "text" not in sentence else f"must be a string, got {kind_of(sentence['text'])}",
            )
        )
    if sentence.get("verifiable") is not None and not isinstance(sentence["verifiable"], bool):
        found.append(
            (f"{at}.verifiable", f"must be true, false or null, got {kind_of(sentence['verifiable'])}")
        )
    offsets = sentence.get("offsets")
    if offsets is not None and not (
        isinstance(offsets, list)
        and len(offsets) == 2
        and all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
        and 0 <= offsets[0] <= offsets[1]
    ):
        found.append(
            (f"{at}.offsets", f"must be [start, end] character offsets with start <= end, got {offsets!r}")
        )
    if sentence.get("provenance") is not None and not isinstance(sentence["provenance"], dict):
        found.append((f"{at}.provenance", f"must be an object, got {kind_of(sentence['provenance'])}"))
    citations = sentence.get("citations", [])
    if not isinstance(citations, list):
        found.append((f"{at}.citations", f"must be a list, got {kind_of(citations)}"))
        citations = []
    for i, citation in enumerate(citations):
        found += _check_citation(citation, f"{at}.citations[{i}]")
    facts = sentence.get("facts", [])
    if not isinstance(facts, list):
        return found + [(f"{at}.facts", f"must be a list, got {kind_of(facts)}")]
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
        return [("", not_an_object(obj))]
    found: Found = []
    response_id, source = obj.get("response_id"), obj.get("source")
    if not isinstance(response_id, str) or not response_id.strip():
        found.append(
            (
                "response_id",
                "missing"
                if response_id is None
                else f"must be a non-empty string, got {kind_of(response_id)}",
            )
        )
    if not isinstance(source, str):
        found.append(("source", "missing" if source is None else f"must be a string, got {kind_of(source)}"))
    elif source_kind(source) == "other":
        found.append(("source", f"'{source}' is not 'gold', 'human:<name>' or 'judge:<name>'"))
    sentences = obj.get("sentences")
    if not isinstance(sentences, list):
        return found + [
            ("sentences", "missing" if sentences is None else f"must be a list, got {kind_of(sentences)}")
        ]
    for i, sentence in enumerate(sentences):
        found += _check_sentence(sentence, f"sentences[{i}]")
    return found
