"""The protocol's units as dataclasses, and the evaluation record's JSON form (PROTOCOL §5).

`from_dict` assumes a dict that `readers.validate_record` has accepted; it does
not re-validate. `to_dict` writes exactly the interchange format.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.protocol.citations import Citation


@dataclass
class Entailment:
    """Stage-3 judgements for one fact; lists align with the fact's own citations.

    None anywhere means "not judged".
    """

    all: bool | None = None
    alone: list[bool | None] = field(default_factory=list)
    without: list[bool | None] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"all": self.all, "alone": list(self.alone), "without": list(self.without)}

    @classmethod
    def from_dict(cls, data: dict) -> Entailment:
        return cls(
            all=data.get("all"), alone=list(data.get("alone") or []), without=list(data.get("without") or [])
        )


@dataclass
class Fact:
    """An atomic fact; `citations` are indices into its sentence's citations.

    `entailment` None means stage 3 was not done. `provenance` maps a value name ("all",
    "alone[0]", "text", …) to where it came from (gold), or, in a person's record, to "can't
    tell: reason" for a value they could not tell (null in `entailment`).
    """

    text: str
    citations: list[int] = field(default_factory=list)
    entailment: Entailment | None = None
    provenance: dict | None = None

    def to_dict(self) -> dict:
        out: dict = {"text": self.text, "citations": list(self.citations)}
        if self.entailment is not None:
            out["entailment"] = self.entailment.to_dict()
        if self.provenance:
            out["provenance"] = dict(self.provenance)
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Fact:
        ent = data.get("entailment")
        return cls(
            text=data["text"],
            citations=[int(i) for i in data.get("citations") or []],
            entailment=None if ent is None else Entailment.from_dict(ent),
            provenance=data.get("provenance"),
        )


@dataclass
class Sentence:
    """A response sentence. `verifiable` None means stage 1 was not done.

    `start`/`end` are character offsets into the response's original text when
    known (they are not part of the interchange format unless set).
    """

    text: str
    verifiable: bool | None = None
    citations: list[Citation] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    start: int | None = None
    end: int | None = None
    provenance: dict | None = None

    @property
    def valid_citation_indices(self) -> list[int]:
        return [i for i, c in enumerate(self.citations) if c.valid]

    @property
    def has_valid_citation(self) -> bool:
        return any(c.valid for c in self.citations)

    def to_dict(self) -> dict:
        out: dict = {
            "text": self.text,
            "verifiable": self.verifiable,
            "citations": [c.to_dict() for c in self.citations],
            "facts": [f.to_dict() for f in self.facts],
        }
        if self.start is not None:
            out["offsets"] = [self.start, self.end]
        if self.provenance:
            out["provenance"] = dict(self.provenance)
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Sentence:
        offsets = data.get("offsets") or [None, None]
        return cls(
            text=data["text"],
            verifiable=data.get("verifiable"),
            citations=[Citation.from_dict(c) for c in data.get("citations") or []],
            facts=[Fact.from_dict(f) for f in data.get("facts") or []],
            start=offsets[0],
            end=offsets[1],
            provenance=data.get("provenance"),
        )


@dataclass
class EvaluationRecord:
    """One (response, source) evaluation: `human:<name>`, `gold` or `judge:<name>`."""

    response_id: str
    source: str
    sentences: list[Sentence] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "response_id": self.response_id,
            "source": self.source,
            "sentences": [s.to_dict() for s in self.sentences],
        }

    @classmethod
    def from_dict(cls, data: dict) -> EvaluationRecord:
        return cls(
            response_id=str(data["response_id"]),
            source=str(data["source"]),
            sentences=[Sentence.from_dict(s) for s in data.get("sentences") or []],
        )


@dataclass
class Response:
    """A model's response to a question about one video (a generation-file row).

    `text` is the raw `model_generation`; `extra` keeps every other field of the
    row so nothing the researcher had is lost. `model` names the MLLM that wrote it (None when
    the project was not told).
    """

    response_id: str
    text: str
    video: str | None = None
    question: str = ""
    options: list[str] = field(default_factory=list)
    answer: str | None = None
    extra: dict = field(default_factory=dict)
    model: str | None = None

    def to_dict(self) -> dict:
        return {
            "response_id": self.response_id,
            "text": self.text,
            "video": self.video,
            "question": self.question,
            "options": list(self.options),
            "answer": self.answer,
            "extra": dict(self.extra),
            "model": self.model,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Response:
        return cls(
            response_id=str(data["response_id"]),
            text=data["text"],
            video=data.get("video"),
            question=data.get("question") or "",
            options=list(data.get("options") or []),
            answer=data.get("answer"),
            extra=dict(data.get("extra") or {}),
            model=data.get("model"),
        )
