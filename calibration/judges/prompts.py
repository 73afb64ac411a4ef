"""The three stage prompts (files under assets/prompts/), their content hashes, and rendering.

Templates use `{{name}}` placeholders, so the JSON examples inside them need no escaping.
Each stage also has the JSON schema of its answer, sent as `response_format` where the
endpoint supports it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from annotation.protocol.citations import format_citation, format_time, strip_citations
from annotation.protocol.records import Response, Sentence

STAGES = ("verifiability", "decompose", "entailment")
PROMPT_DIR = Path(__file__).resolve().parents[2] / "assets" / "prompts"
_PLACEHOLDER_RE = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")

SCHEMAS: dict[str, dict] = {
    "verifiability": {
        "type": "object",
        "properties": {"verifiable": {"type": "boolean"}, "reason": {"type": "string"}},
        "required": ["verifiable", "reason"],
        "additionalProperties": False,
    },
    "decompose": {
        "type": "object",
        "properties": {
            "facts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string"},
                        "citations": {"type": "array", "items": {"type": "integer"}},
                    },
                    "required": ["text", "citations"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["facts"],
        "additionalProperties": False,
    },
    "entailment": {
        "type": "object",
        "properties": {"entailed": {"type": "boolean"}, "reason": {"type": "string"}},
        "required": ["entailed", "reason"],
        "additionalProperties": False,
    },
}


@dataclass(frozen=True)
class PromptTemplate:
    stage: str
    text: str
    sha256: str  # of the template file's text: a changed prompt is a new cache key

    @property
    def placeholders(self) -> set[str]:
        return set(_PLACEHOLDER_RE.findall(self.text))


@lru_cache(maxsize=32)
def load_prompt(stage: str, directory: Path | None = None) -> PromptTemplate:
    """The template of `stage` from `directory` (default assets/prompts/).

    Raises ValueError for an unknown stage, FileNotFoundError when the file is missing.
    """
    if stage not in STAGES:
        raise ValueError(f"unknown stage '{stage}' (expected one of {', '.join(STAGES)})")
    path = Path(directory or PROMPT_DIR) / f"{stage}.md"
    text = path.read_text(encoding="utf-8")
    return PromptTemplate(stage, text, hashlib.sha256(text.encode("utf-8")).hexdigest())


def render(template: PromptTemplate, **values: str) -> str:
    """Fill every placeholder. Raises ValueError naming a placeholder with no value or a
    value with no placeholder (both are bugs that would silently change what judges see)."""
    missing = template.placeholders - values.keys()
    unused = values.keys() - template.placeholders
    if missing or unused:
        raise ValueError(f"prompt '{template.stage}': missing {sorted(missing)}, unused {sorted(unused)}")
    return _PLACEHOLDER_RE.sub(lambda m: str(values[m.group(1)]), template.text)


def _options_text(response: Response) -> str:
    if not response.options:
        return "(none)"
    return "\n".join(str(o) for o in response.options)


def _context_text(sentences: list[Sentence], index: int) -> str:
    """Earlier sentences, citations removed (they are noise for reading comprehension)."""
    earlier = " ".join(strip_citations(s.text) for s in sentences[:index]).strip()
    return earlier or "(this is the first sentence)"


def verifiability_prompt(
    response: Response, sentences: list[Sentence], index: int, directory: Path | None = None
) -> tuple[PromptTemplate, str]:
    """(template, rendered prompt) asking whether sentence `index` is verifiable."""
    template = load_prompt("verifiability", directory)
    return template, render(
        template,
        question=response.question.strip() or "(not given)",
        options=_options_text(response),
        context=_context_text(sentences, index),
        sentence=sentences[index].text.strip(),
    )


def decompose_prompt(
    response: Response, sentences: list[Sentence], index: int, directory: Path | None = None
) -> tuple[PromptTemplate, str]:
    """(template, rendered prompt) asking for the atomic facts of sentence `index`.

    Every citation is listed by its index, invalid ones too: a fact may carry them (they
    then support nothing and lower its precision, PROTOCOL §1).
    """
    template = load_prompt("decompose", directory)
    sentence = sentences[index]
    listed = "\n".join(f"[{i}] ({format_citation(c)})" for i, c in enumerate(sentence.citations))
    return template, render(
        template,
        question=response.question.strip() or "(not given)",
        context=_context_text(sentences, index),
        sentence=sentence.text.strip(),
        citations=listed or "(none)",
    )


def segment_description(kind: str, start_s: float, end_s: float) -> str:
    """How one attached media part is described to the entailment judge."""
    if kind == "frame":
        return f"a single video frame at {format_time(start_s)}"
    what = "video without sound" if kind == "video" else "audio only"
    return f"{what}, from {format_time(start_s)} to {format_time(end_s)}"


def entailment_prompt(
    fact_text: str, segments: list[str], directory: Path | None = None
) -> tuple[PromptTemplate, str]:
    """(template, rendered prompt) asking whether the attached segments entail the fact.

    `segments` are `segment_description` strings, in the order the parts are attached.
    """
    template = load_prompt("entailment", directory)
    listed = "\n".join(f"{i + 1}. {text}" for i, text in enumerate(segments))
    return template, render(template, n_segments=str(len(segments)), segments=listed, fact=fact_text.strip())
