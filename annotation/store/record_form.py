"""A record's score form: what PROTOCOL §3 scores a record from, and nothing else, kept beside the
record when it is stored (table `record_forms`, which this module owns), so that its scores come
without decoding the record (its texts, citations and offsets) or building its objects.

The form is a list, one item per sentence: 0 when the sentence is not verifiable (`verifiable` is
not true), 1 when it is but has no valid citation, else the list of its facts that carry at least
one valid citation, each as a fact code: the validity of the fact's citations (`t`/`f` each), then,
when it has an entailment, `|all|alone|without` with `t`, `f`, `n` for true, false, null (an
empty list is empty). E.g. `"tf|t|tn|nn"`. Codes repeat across facts and records, so a scorer
works each code out once. `FORM_VERSION` comes first in the stored text: a form of another
version is not read (the record is decoded instead).

`record_form` raises ValueError for a record the scorer rejects, naming response, sentence and
fact, as the scorer did: a citation index out of range, an `alone`/`without` list whose length is
not the fact's citation count, an entailment value that is not true, false or null.
"""

from __future__ import annotations

import json
import re

from annotation.protocol.citations import Citation
from annotation.protocol.derivation import derive_entailment, fact_citation_validity
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence
from annotation.store.database import declare_tables

FORM_VERSION = 1
# Append, never edit. A form row is written in the transaction that appends its record (records
# are never deleted), so no foreign key is checked on every insert; a record stored before this
# table has no row and is decoded when scored.
FORM_MIGRATIONS: list[str] = [
    "CREATE TABLE record_forms (record_id INTEGER PRIMARY KEY, form TEXT NOT NULL);",
]
FORM_TABLES = declare_tables("record_forms", FORM_MIGRATIONS)
NOT_VERIFIABLE, NOT_CITED = 0, 1
_CHAR_OF_OBJECT = {id(True): "t", id(False): "f", id(None): "n"}
_VALUE = {"t": True, "f": False, "n": None}
_CODE = re.compile(r"[tf]*t[tf]*(\|[tfn]\|[tfn]*\|[tfn]*)?")


def _chars(values: list, name: str) -> str:
    try:  # by identity: 1 and 0 would pass for True and False as dict keys
        return "".join([_CHAR_OF_OBJECT[id(value)] for value in values])
    except KeyError:
        odd = next(v for v in values if id(v) not in _CHAR_OF_OBJECT)
        raise ValueError(f"'{name}' holds {odd!r}, not true, false or null") from None


def fact_code(fact: Fact, sentence: Sentence) -> str | None:
    """The fact's code (module doc), or None when none of its citations is valid (not scored).
    ValueError as `record_form`, without the location."""
    validity = fact_citation_validity(fact, sentence)
    if True not in validity:
        return None
    code = "".join(["t" if valid else "f" for valid in validity])
    given = fact.entailment
    if given is None:
        return code
    k = len(validity)
    if (given.alone and len(given.alone) != k) or (given.without and len(given.without) != k):
        derive_entailment(fact, sentence)  # raises, saying which list and how long
    return "|".join(
        (
            code,
            _chars([given.all], "all"),
            _chars(given.alone, "alone"),
            _chars(given.without, "without"),
        )
    )


def record_form(record: EvaluationRecord) -> list:
    """The record's score form (module doc). ValueError naming the response, sentence and fact
    for a fact the scorer rejects (only facts that are scored: of verifiable sentences with a valid
    citation)."""
    form: list = []
    for s_index, sentence in enumerate(record.sentences):
        if sentence.verifiable is not True:
            form.append(NOT_VERIFIABLE)
            continue
        if not sentence.has_valid_citation:
            form.append(NOT_CITED)
            continue
        codes = []
        for f_index, fact in enumerate(sentence.facts):
            try:
                code = fact_code(fact, sentence)
            except ValueError as exc:
                raise ValueError(
                    f"response '{record.response_id}' ({record.source}), "
                    f"sentence {s_index}, fact {f_index}: {exc}"
                ) from None
            if code is not None:
                codes.append(code)
        form.append(codes)
    return form


def form_text(record: EvaluationRecord) -> str | None:
    """The stored text of the record's form (versioned), or None when `record_form` rejects it
    (then it is decoded and scored, and the scorer says why)."""
    try:
        return json.dumps([FORM_VERSION, *record_form(record)], separators=(",", ":"))
    except ValueError:
        return None


def read_form(text: str | None) -> list | None:
    """The form stored as `text`, or None when there is none, or it is of another version or not
    a form at all (then the record is decoded instead)."""
    if text is None:
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None
    if not isinstance(found, list) or not found or type(found[0]) is not int or found[0] != FORM_VERSION:
        return None
    return found[1:]


def fact_of_code(code: str) -> tuple[Fact, Sentence]:
    """A fact and its sentence that `fact_code` gives `code` for (the fact cites every citation of
    the sentence, in order): what a scorer works a code out from. ValueError for a text no fact
    has as its code."""
    if _CODE.fullmatch(code) is None:
        raise ValueError(f"'{code}' is not a fact code")
    validity, *entailment = code.split("|")
    if entailment and any(len(values) not in (0, len(validity)) for values in entailment[1:]):
        raise ValueError(f"'{code}' is not a fact code")
    citations = [Citation("visual", 0.0, 0.0, valid=c == "t") for c in validity]
    given = None
    if entailment:
        everything, alone, without = entailment
        given = Entailment(_VALUE[everything], [_VALUE[c] for c in alone], [_VALUE[c] for c in without])
    return Fact("", list(range(len(citations))), given), Sentence("", True, citations)
