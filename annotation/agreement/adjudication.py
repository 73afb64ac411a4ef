"""Adjudication: an adjudicator's ruling on one unit, written to the event log (`adjudicate`) and
read back from it (`rulings_from_events`); gold derivation (`gold.py`) lets a ruling win.

Adjudication vocabulary (the event log's units from labels.py; the task gets a `gold.` prefix):
- stage 1: unit `s{i}`, task `gold.verifiable`, value {"value": bool, "reason": tag}
- stage 2: unit `s{i}`, task `gold.facts`, value {"value": [{"text": str, "citations": [int]}],
  "reason": tag} — the whole fact list, as an annotator's `facts` label
- stage 3: unit `s{i}/{fact_key}` (`protocol.ids.Unit.of_fact` of the gold fact), task `gold.all` |
  `gold.alone.{j}` | `gold.without.{j}`, value {"value": bool, "reason": tag}
`tag` is one of REASONS or None. The latest ruling on a (response, unit, task) wins, whoever
made it; undoing it (store.undo_last) brings back the one before. A stage-3 ruling made on any
wording of a gold fact's cluster (with the gold fact's citations) counts for it, so a ruling
survives a change of the canonical wording.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotation.protocol.fact_list import check_fact_list, normalise_fact_list
from annotation.protocol.ids import Task, Unit

REASONS = ("guideline gap", "annotator error", "ambiguous media")


@dataclass(frozen=True)
class Ruling:
    """An adjudicator's decision on one unit (from a `gold.*` event)."""

    who: str
    value: object
    reason: str | None
    event_id: int

    @property
    def provenance(self) -> str:
        return f"adjudicated:{self.who}" + (f":{self.reason}" if self.reason else "")


def rulings_from_events(events) -> dict[tuple[str, Unit, Task], Ruling]:
    """{(response_id, unit, the task ruled on — without the ruling mark): Ruling} from current-label
    events; the latest event wins across adjudicators; other tasks are ignored."""
    out: dict[tuple[str, Unit, Task], Ruling] = {}
    for event in sorted((e for e in events if e.task.ruling), key=lambda e: e.id):  # a few among many
        if isinstance(event.value, dict):
            out[(event.response_id, event.unit, event.task.answer)] = Ruling(
                event.who, event.value.get("value"), event.value.get("reason"), event.id
            )
    return out


def adjudicate(
    store,
    who: str,
    response_id: str,
    unit: Unit | str,
    task: Task | str,
    value,
    reason: str | None = None,
    *,
    spent_ms: int | None = None,
) -> int:
    """Record `who`'s ruling on one unit (the task ruled on, without the ruling mark) and return the
    event id. A unit or task given as text is parsed (ValueError when malformed).

    Raises PermissionError unless `who` is an adjudicator or admin; ValueError for an unknown
    reason tag, a non-bool value on a yes/no question, or a fact list `check_fact_list` rejects.
    """
    unit = unit if isinstance(unit, Unit) else Unit.parse(unit)
    task = task if isinstance(task, Task) else Task.parse(task)
    user = store.user(who)
    if user is None or user.role not in ("adjudicator", "admin"):
        raise PermissionError(f"'{who}' may not adjudicate (adjudicators and admins only)")
    if reason is not None and reason not in REASONS:
        raise ValueError(f"reason '{reason}' is not one of {', '.join(REASONS)}")
    if task.question == "facts":
        sentences = store.response_sentences(response_id)
        if unit.is_fact or unit.is_response or unit.sentence >= len(sentences):
            raise ValueError(f"unit '{unit}' is not a sentence of response '{response_id}'")
        if not isinstance(value, list) or not all(isinstance(f, dict) for f in value):
            raise ValueError(f"a ruling on 'facts' is a list of {{'text', 'citations'}}, got {value!r}")
        problems = check_fact_list(value, len(sentences[unit.sentence].citations))
        if problems:
            raise ValueError("; ".join(problems))
        value = normalise_fact_list(value)
    elif not isinstance(value, bool):
        raise ValueError(f"a ruling on '{task}' is true or false, got {value!r}")
    return store.events.append(
        who,
        response_id,
        unit,
        task.as_ruling,
        {"value": value, "reason": reason},
        spent_ms=spent_ms,
    )
