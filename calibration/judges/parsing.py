"""Read a judge's answer text into a value, tolerantly — and never guess.

Models wrap their JSON in code fences, `<think>` blocks or prose. We strip what we can and
take the first JSON object carrying the stage's key. An answer that still does not give a
value comes back as `value=None` with the reason: undetermined, never "no".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from annotation.protocol.citations import strip_citations

_THINK_BLOCK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE_RE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_TRUE_WORDS = {"true", "yes", "y", "1", "entailed", "verifiable", "supported"}
_FALSE_WORDS = {"false", "no", "n", "0", "not entailed", "not verifiable", "not supported"}


@dataclass(frozen=True)
class ParsedAnswer:
    """`value` is the stage's answer (bool, or a list of facts) or None when undetermined;
    `error` says why it is undetermined; `reason` is the judge's own explanation, if any."""

    value: object
    reason: str | None = None
    error: str | None = None

    def to_dict(self) -> dict:
        return {"value": self.value, "reason": self.reason, "error": self.error}

    @classmethod
    def from_dict(cls, data: dict | None) -> ParsedAnswer:
        data = data or {}
        return cls(data.get("value"), data.get("reason"), data.get("error"))


def _without_thinking(text: str) -> str:
    text = _THINK_BLOCK_RE.sub("", text)
    # some chat templates open <think> in the prompt, so only the closing tag reaches us
    if "</think>" in text.lower():
        text = re.split(r"</think>", text, flags=re.IGNORECASE)[-1]
    elif re.match(r"\s*<think>", text, re.IGNORECASE):
        return ""  # thinking never ended: no answer was given
    return text


def json_objects(text: str) -> list[dict]:
    """Every JSON object found in `text` (thinking removed; fenced blocks first), in order."""
    text = _without_thinking(text or "")
    candidates = [m.group(1) for m in _FENCE_RE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    found = []
    for candidate in candidates:
        for start in (i for i, ch in enumerate(candidate) if ch == "{"):
            try:
                obj, _ = decoder.raw_decode(candidate, start)
            except ValueError:
                continue
            if isinstance(obj, dict):
                found.append(obj)
    return found


def _object_with(text: str, key: str) -> dict | None:
    for obj in json_objects(text):
        if key in obj:
            return obj
    return None


def _as_bool(value) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
    return None


def _reason(obj: dict) -> str | None:
    reason = obj.get("reason")
    return reason if isinstance(reason, str) else None


def _parse_flag(text: str, key: str) -> ParsedAnswer:
    obj = _object_with(text, key)
    if obj is None:
        return ParsedAnswer(None, error=f"no JSON object with '{key}' in the answer")
    value = _as_bool(obj[key])
    if value is None:
        return ParsedAnswer(None, _reason(obj), f"'{key}' is {obj[key]!r}, not true or false")
    return ParsedAnswer(value, _reason(obj))


def parse_verifiability(text: str) -> ParsedAnswer:
    """`{"verifiable": bool, "reason": str}` → value True/False, or None (undetermined)."""
    return _parse_flag(text, "verifiable")


def parse_entailment(text: str) -> ParsedAnswer:
    """`{"entailed": bool, "reason": str}` → value True/False, or None (undetermined)."""
    return _parse_flag(text, "entailed")


def parse_decomposition(text: str, n_citations: int) -> ParsedAnswer:
    """`{"facts": [{"text": str, "citations": [int]}]}` → value [(text, [indices])] or None.

    Citation groups a model copies into a fact's text are removed. Indices out of
    range or repeated are dropped; a fact left with none inherits every citation of its
    sentence (PROTOCOL §2: facts inherit the sentence's citations). A fact without text is
    dropped; no facts at all (or no list) → undetermined, since a verifiable sentence states
    at least one fact.
    """
    obj = _object_with(text, "facts")
    if obj is None:
        return ParsedAnswer(None, error="no JSON object with 'facts' in the answer")
    items = obj["facts"]
    if not isinstance(items, list):
        return ParsedAnswer(None, error=f"'facts' is {type(items).__name__}, not a list")
    facts: list[tuple[str, list[int]]] = []
    for item in items:
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            continue
        fact_text = strip_citations(item["text"]).strip()
        if not fact_text:
            continue
        raw = item.get("citations")
        indices = (
            sorted(
                {i for i in raw if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n_citations}
            )
            if isinstance(raw, list)
            else []
        )
        facts.append((fact_text, indices or list(range(n_citations))))
    if not facts:
        return ParsedAnswer(None, error="the answer lists no facts")
    return ParsedAnswer(facts)


def parse_answer(stage: str, text: str, n_citations: int = 0) -> ParsedAnswer:
    """The parser of `stage` ('verifiability', 'decompose' or 'entailment') applied to `text`."""
    if stage == "verifiability":
        return parse_verifiability(text)
    if stage == "decompose":
        return parse_decomposition(text, n_citations)
    return parse_entailment(text)
