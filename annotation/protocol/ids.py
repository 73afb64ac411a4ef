"""The identifiers that travel as strings — in the event log, in records, in widget keys and URLs —
as small value types. Each is formatted by its `__str__` and read back by its `parse`, here and
nowhere else.

- `Unit`: what a label is about: the response, sentence i (`s3`), or a fact of sentence i
  (`s3/1a2b3c4d5e6f`, the key hashing its normalised text and citation subset).
- `Task`: the decision about a unit: `verifiable`, `facts`, `all`, `alone.{j}`, `without.{j}`,
  `done`, `skip`, `flag`; an adjudicator's ruling carries the prefix `gold.` (`gold.alone.1`);
  `gold.same` is an adjudicator's answer to "Same fact?" on two wordings (the unit `s{i}/{pair key}`,
  annotation/agreement/same_fact.py).
  `value_name` is the same decision as gold provenance names it (`alone[1]`).
- `QuestionKey`: one question of one response, `{response_id}|{unit}|{task}` (widget keys,
  dispute ids).
- `Source`: who made a record: `gold`, `human:<name>` or `judge:<name>`; a judge configuration's
  name is `VERIFIER+DECOMPOSER+ENTAILER`.
- A model's response id, `{model}/{row id}` (`model_response_id`): formatted only, never read
  back — the model is stored beside the response.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

RESPONSE_UNIT = "response"
SENTENCE_QUESTIONS = ("verifiable", "facts")
FACT_QUESTIONS = ("all", "alone", "without")
RESPONSE_TASKS = ("done", "skip", "flag")
PAIR_QUESTIONS = ("same",)  # an adjudicator's "Same fact?" on two wordings of a sentence's facts
PER_CITATION = ("alone", "without")
RULING_PREFIX = "gold."
SOURCE_KINDS = ("gold", "human", "judge")
STAGE_SEPARATOR = "+"
MODEL_SEPARATOR = "/"

_SENTENCE_RE = re.compile(r"s(0|[1-9][0-9]*)")
_FACT_KEY_RE = re.compile(r"[0-9a-f]{12}")
_SPACES_RE = re.compile(r"\s+")
_VALUE_NAME_RE = re.compile(r"(alone|without)\[(0|[1-9][0-9]*)\]")


def fact_key(text: str, citations) -> str:
    """A short stable key for a fact's content: its normalised text and citation subset (the
    order of the indices does not matter)."""
    return _fact_key(text, tuple(sorted(int(c) for c in citations)))


@lru_cache(maxsize=1 << 17)  # the same facts are keyed again for every label and gold value
def _fact_key(text: str, subset: tuple[int, ...]) -> str:
    normal = _SPACES_RE.sub(" ", text.strip().lower())
    return hashlib.sha1(f"{normal}|{','.join(map(str, subset))}".encode()).hexdigest()[:12]


class Unit(NamedTuple):
    """The response (`sentence` None), sentence `sentence`, or a fact of it (`fact` = its key).

    A named tuple, as `Task`: labels, gold values and rulings are looked up by (unit, task) keys
    hundreds of thousands of times per derivation, and a tuple hashes and compares in C."""

    sentence: int | None = None
    fact: str | None = None

    @classmethod
    def response(cls) -> Unit:
        return cls()

    @classmethod
    def of_sentence(cls, index: int) -> Unit:
        """`s{index}`: the unit of sentence `index`'s stage-1 and stage-2 decisions."""
        return _sentence_unit(int(index))

    @classmethod
    def of_fact(cls, sentence: int, text: str, citations) -> Unit:
        """`s{i}/{fact_key}`: the unit of a fact's stage-3 decisions."""
        return _fact_unit(int(sentence), text, tuple(map(int, citations)))

    @property
    def is_response(self) -> bool:
        return self.sentence is None

    @property
    def is_fact(self) -> bool:
        return self.fact is not None

    def __str__(self) -> str:
        if self.sentence is None:
            return RESPONSE_UNIT
        return f"s{self.sentence}" if self.fact is None else f"s{self.sentence}/{self.fact}"

    @classmethod
    def parse(cls, text: str) -> Unit:
        """ValueError for anything `str(Unit(...))` does not write (a str expected: TypeError
        otherwise)."""
        return _parse_unit(text)


@lru_cache(maxsize=1 << 18)  # every event row is read through it; units repeat across annotators
def _parse_unit(text: str) -> Unit:
    if text == RESPONSE_UNIT:
        return Unit()
    head, slash, key = text.partition("/")
    match = _SENTENCE_RE.fullmatch(head)
    if match is None or (slash and not _FACT_KEY_RE.fullmatch(key)):
        raise ValueError(f"'{text}' is not a unit ('response', 's<i>' or 's<i>/<fact key>')")
    return Unit(int(match.group(1)), key if slash else None)


@lru_cache(maxsize=1 << 10)
def _sentence_unit(index: int) -> Unit:
    return Unit(index)


@lru_cache(maxsize=1 << 17)  # every label, gold value and voter of a fact asks again
def _fact_unit(sentence: int, text: str, citations: tuple[int, ...]) -> Unit:
    return Unit(sentence, fact_key(text, citations))


_QUESTIONS = (*SENTENCE_QUESTIONS, *FACT_QUESTIONS, *RESPONSE_TASKS, *PAIR_QUESTIONS)


class _TaskFields(NamedTuple):
    question: str
    j: int | None = None
    ruling: bool = False


class Task(_TaskFields):
    """One decision: `question` with `j` (a position in the fact's own citations) for `alone` and
    `without`; `ruling` marks an adjudicator's decision on it. ValueError for an unknown question or
    a `j` the question does not take. A named tuple, as `Unit` (why: there)."""

    __slots__ = ()

    def __new__(cls, question: str, j: int | None = None, ruling: bool = False) -> Task:
        if question not in _QUESTIONS:
            raise ValueError(f"'{question}' is not a question ({', '.join(_QUESTIONS)})")
        if (question in PER_CITATION) != (j is not None) or (j is not None and j < 0):
            raise ValueError(
                f"'{question}' {'needs' if question in PER_CITATION else 'takes no'} citation position j"
            )
        return super().__new__(cls, question, j, ruling)

    @property
    def stage(self) -> int | None:
        """1 (verifiable), 2 (facts), 3 (entailment), None for response-level tasks."""
        if self.question in FACT_QUESTIONS:
            return 3
        return {"verifiable": 1, "facts": 2}.get(self.question)

    @property
    def answer(self) -> Task:
        """The annotators' task this ruling decides (itself when it is not a ruling)."""
        return Task(self.question, self.j)

    @property
    def as_ruling(self) -> Task:
        return Task(self.question, self.j, True)

    @property
    def value_name(self) -> str:
        """The name gold provenance uses: `verifiable`, `facts`, `all`, `alone[0]`."""
        return self.question if self.j is None else f"{self.question}[{self.j}]"

    @classmethod
    def from_value_name(cls, name: str) -> Task:
        match = _VALUE_NAME_RE.fullmatch(name)
        return cls(match.group(1), int(match.group(2))) if match else cls(name)

    def __str__(self) -> str:
        text = self.question if self.j is None else f"{self.question}.{self.j}"
        return RULING_PREFIX + text if self.ruling else text

    @classmethod
    def parse(cls, text: str) -> Task:
        """ValueError for anything `str(Task(...))` does not write."""
        return _parse_task(text)


@lru_cache(maxsize=1 << 12)  # a handful of task strings, asked of every event
def _parse_task(text: str) -> Task:
    ruling = text.startswith(RULING_PREFIX)
    body = text[len(RULING_PREFIX) :] if ruling else text
    question, dot, position = body.partition(".")
    if dot and not re.fullmatch(r"0|[1-9][0-9]*", position):
        raise ValueError(f"'{text}' is not a task")
    try:
        return Task(question, int(position) if dot else None, ruling)
    except ValueError:
        raise ValueError(f"'{text}' is not a task") from None


@lru_cache(maxsize=1 << 8)  # asked for every citation of every fact a record is built from
def entailment_task(question: str, j: int | None = None) -> Task:
    """`all`, or `alone.{j}` / `without.{j}`; ValueError for anything else."""
    if question not in FACT_QUESTIONS:
        raise ValueError(f"'{question}' is not an entailment question ({', '.join(FACT_QUESTIONS)})")
    return Task(question, j)


# the tasks code names (an entailment question's: `entailment_task`)
VERIFIABLE_TASK, FACTS_TASK, DONE_TASK = Task("verifiable"), Task("facts"), Task("done")


@dataclass(frozen=True)
class QuestionKey:
    """One question of one response; the text form keys widgets and names disputes."""

    response_id: str
    unit: Unit
    task: Task

    def __str__(self) -> str:
        return f"{self.response_id}|{self.unit}|{self.task}"

    @classmethod
    def parse(cls, text: str) -> QuestionKey:
        """The response id may itself hold '|': unit and task are the last two parts. ValueError
        when either is malformed."""
        response_id, _, task = text.rpartition("|")
        response_id, _, unit = response_id.rpartition("|")
        if not response_id:
            raise ValueError(f"'{text}' is not a question key (response|unit|task)")
        return cls(response_id, Unit.parse(unit), Task.parse(task))


@dataclass(frozen=True)
class Source:
    """`gold`, `human:<name>` or `judge:<name>`."""

    kind: str
    name: str | None = None

    @classmethod
    def gold(cls) -> Source:
        return cls("gold")

    @classmethod
    def human(cls, name: str) -> Source:
        return cls("human", name)

    @classmethod
    def judge(cls, name: str) -> Source:
        return cls("judge", name)

    @classmethod
    def judge_configuration(cls, verifier: str, decomposer: str, entailer: str) -> Source:
        return cls("judge", configuration_name(verifier, decomposer, entailer))

    @property
    def configuration(self) -> tuple[str, str, str] | None:
        """(verifier, decomposer, entailer) of a `judge:V+D+E` source; None for any other."""
        return configuration_parts(self.name) if self.kind == "judge" and self.name else None

    def __str__(self) -> str:
        return self.kind if self.kind == "gold" else f"{self.kind}:{self.name}"

    @classmethod
    def parse(cls, text: str) -> Source:
        """ValueError unless `text` is 'gold', 'human:<name>' or 'judge:<name>' (name not blank)."""
        if text == "gold":
            return cls("gold")
        kind, colon, name = text.partition(":")
        if not colon or kind not in ("human", "judge") or not name.strip():
            raise ValueError(f"'{text}' is not 'gold', 'human:<name>' or 'judge:<name>'")
        return cls(kind, name)

    @staticmethod
    def prefix(kind: str) -> str:
        """What every source of `kind` starts with: 'gold', 'human:', 'judge:'."""
        if kind not in SOURCE_KINDS:
            raise ValueError(f"'{kind}' is not a source kind ({', '.join(SOURCE_KINDS)})")
        return "gold" if kind == "gold" else f"{kind}:"


def source_kind(source: str) -> str:
    """'gold', 'human' or 'judge' for a record's source string, 'other' when it is none of them."""
    try:
        return Source.parse(source).kind
    except ValueError:
        return "other"


def annotator_name(source: str) -> str | None:
    """'alice' for 'human:alice'; None for any other source."""
    try:
        parsed = Source.parse(source)
    except ValueError:
        return None
    return parsed.name if parsed.kind == "human" else None


def configuration_of(source: str) -> tuple[str, str, str] | None:
    """(V, D, E) of a `judge:V+D+E` source string; None for any other source (e.g. `judge:my-metric-file`)."""
    try:
        return Source.parse(source).configuration
    except ValueError:
        return None


def configuration_name(verifier: str, decomposer: str, entailer: str) -> str:
    """`VERIFIER+DECOMPOSER+ENTAILER`."""
    return STAGE_SEPARATOR.join((verifier, decomposer, entailer))


def configuration_parts(name: str) -> tuple[str, str, str] | None:
    """(V, D, E) of `V+D+E` (parts stripped); None unless there are exactly three non-blank parts."""
    parts = tuple(p.strip() for p in name.split(STAGE_SEPARATOR))
    return parts if len(parts) == 3 and all(parts) else None


def model_response_id(model: str, row_id: str) -> str:
    """`{model}/{row_id}`: the id of the response `model` wrote for a dataset row. Generation files
    of several models share the dataset's row ids; the model keeps their responses apart."""
    return f"{model}{MODEL_SEPARATOR}{row_id}"
