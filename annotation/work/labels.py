"""What a label event means: the unit/task vocabulary of the event log, and the
derivation of a person's evaluation record from their current labels.

Units and tasks (one event per decision):
- stage 1: unit `s{i}`, task `verifiable`, value bool
- stage 2: unit `s{i}`, task `facts`, value [{"text": str, "citations": [int]}] (the whole list)
- stage 3: unit `s{i}/{fact_key}`, task `all` | `alone.{j}` | `without.{j}`, value bool, or
  {"cant_tell": reason} when the person could not tell (PROTOCOL §2: the record's value is null,
  the fact's provenance keeps "can't tell: reason"); j indexes the fact's own citations; the fact
  key ties the answers to the fact's text and citation subset, so editing a fact never carries
  stale answers over
- response-level: unit `response`, task `done` (value true), `skip` events
  (value {"reason": str}) and `flag` events (value {"text": str}).
Labels are keyed by (`Unit`, `Task`), as the events carry them.
"""

from __future__ import annotations

from annotation.protocol.ids import FACTS_TASK, VERIFIABLE_TASK, Source, Task, Unit
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence
from annotation.protocol.same_sentence import sentence_at

CANT_TELL = "cant_tell"


def cant_tell_reason(value) -> str | None:
    """The reason of a "can't tell" answer ({"cant_tell": reason}); None for any other value."""
    return str(value[CANT_TELL]) if isinstance(value, dict) and CANT_TELL in value else None


def labels_by_unit(events) -> dict[tuple[Unit, Task], object]:
    """{(unit, task): value} for one person's current labels on one response."""
    return {(e.unit, e.task): e.value for e in events}


class _PersonLabels:
    """One person's current labels on one response, indexed once: {(unit, task): value}, the
    tasks answered per unit (in label order), the fact units answered per sentence, and per
    sentence their own fact list with each fact's unit (keyed once, read by the record and the
    staged campaign's check)."""

    def __init__(self, labels: dict[tuple[Unit, Task], object]):
        self.labels = labels
        self.by_unit: dict[Unit, dict[Task, object]] = {}
        for (unit, task), value in labels.items():
            self.by_unit.setdefault(unit, {})[task] = value
        self.answered_facts: dict[int, set[Unit]] = {}
        self.decomposed: set[int] = set()  # the sentences with a fact list label
        for unit, tasks in self.by_unit.items():
            if unit.fact is not None:
                self.answered_facts.setdefault(unit.sentence, set()).add(unit)
            elif FACTS_TASK in tasks and unit.sentence is not None:
                self.decomposed.add(unit.sentence)
        self._keyed: dict[int, list[tuple[dict, tuple[int, ...], Unit]]] = {}
        self._beyond: dict[int, set[Unit]] = {}

    def own_facts(self, i: int) -> list[dict]:
        return self.labels.get((Unit.of_sentence(i), FACTS_TASK)) or []

    def keyed_facts(self, i: int) -> list[tuple[dict, tuple[int, ...], Unit]]:
        """(fact, its citations as ints, its unit) of each fact of `own_facts(i)`, keyed once."""
        found = self._keyed.get(i)
        if found is None:
            found = self._keyed[i] = _keyed(i, self.own_facts(i))
        return found

    def beyond_own(self, i: int) -> set[Unit]:
        """The fact units of sentence i this person answered about that their own list does not
        hold (mostly none: people answer about their own facts), found once per sentence."""
        found = self._beyond.get(i)
        if found is None:
            answered = self.answered_facts.get(i)
            own_units = {unit for _, _, unit in self.keyed_facts(i)} if answered else set()
            found = self._beyond[i] = answered - own_units if answered else set()
        return found

    def judges_gold_facts(self, i: int, gold_sentence: Sentence | None) -> bool:
        """In a staged campaign, where everyone judges the gold facts: are this person's stage-3
        answers of sentence i about gold facts that are not in their own list?"""
        if gold_sentence is None or not gold_sentence.facts:
            return False
        beyond_own = self.beyond_own(i)
        return bool(beyond_own) and any(
            Unit.of_fact(i, f.text, f.citations) in beyond_own for f in gold_sentence.facts
        )

    def judged_fact_list(
        self, i: int, gold_sentence: Sentence | None
    ) -> list[tuple[dict, tuple[int, ...], Unit]]:
        """The fact list whose stage-3 answers this person gave for sentence i, keyed as
        `keyed_facts`: their own, or the gold facts when `judges_gold_facts`."""
        if self.judges_gold_facts(i, gold_sentence):
            return _keyed(i, [{"text": f.text, "citations": list(f.citations)} for f in gold_sentence.facts])
        return self.keyed_facts(i)


def _keyed(i: int, facts: list[dict]) -> list[tuple[dict, tuple[int, ...], Unit]]:
    out = []
    for fact in facts:
        cites = tuple(int(c) for c in fact.get("citations", []))
        out.append((fact, cites, Unit.of_fact(i, fact["text"], cites)))
    return out


def record_from_labels(
    response_id: str,
    source: str,
    sentences: list[Sentence],
    labels: dict[tuple[Unit, Task], object],
    gold: EvaluationRecord | None = None,
) -> EvaluationRecord:
    """A person's evaluation record from their current labels on one response.

    Unlabelled values stay None (not done): a sentence without a `verifiable` label has
    verifiable None; a fact without any stage-3 label has entailment None. `gold` (the
    response's gold record, if any) supplies the facts a staged campaign asked about.
    """
    return _record(response_id, source, sentences, _PersonLabels(labels), gold)


def _record(
    response_id: str, source: str, sentences: list[Sentence], person: _PersonLabels, gold
) -> EvaluationRecord:
    out = []
    labels, by_unit = person.labels, person.by_unit
    for i, sentence in enumerate(sentences):
        facts = []
        # without a gold record, the person's own list (what `judged_fact_list` gives then)
        if gold is not None:
            proposals = person.judged_fact_list(i, sentence_at(gold, i, sentence))
        else:
            proposals = person.keyed_facts(i) if i in person.decomposed else ()
        for proposal, cites, unit in proposals:
            given = by_unit.get(unit)
            entailment = cant_tell = None
            if given:
                entailment, cant_tell = _entailment(given, len(cites))
            facts.append(Fact(proposal["text"], list(cites), entailment, cant_tell))
        out.append(
            Sentence(
                sentence.text,
                labels.get((Unit.of_sentence(i), VERIFIABLE_TASK)),
                list(sentence.citations),
                facts,
                sentence.start,
                sentence.end,
            )
        )
    return EvaluationRecord(response_id, source, out)


def _entailment(given: dict[Task, object], k: int) -> tuple[Entailment, dict[str, str] | None]:
    """A fact's entailment from a person's answers about it ({task: value}, at least one) and its k
    citations — unanswered and "can't tell" values null, answers about positions beyond k ignored —
    and the provenance of its "can't tell" answers (None without any)."""
    everything, alone, without, cant_tell = None, [None] * k, [None] * k, {}
    for task, value in given.items():
        reason = cant_tell_reason(value)
        if reason is not None:
            cant_tell[task.value_name] = f"can't tell: {reason}"
        elif task.ruling:
            continue
        elif task.question == "all":
            everything = value
        elif task.question == "alone" and task.j < k:
            alone[task.j] = value
        elif task.question == "without" and task.j < k:
            without[task.j] = value
    return Entailment(all=everything, alone=alone, without=without), cant_tell or None


class ResponseLabels:
    """The current label events of one response, indexed once per person (rulings are an
    adjudicator's and do not count): what `response_annotator_records` derives records from."""

    def __init__(self, events):
        by_who: dict[str, dict] = {}
        for event in events:
            if not event.task.ruling:
                by_who.setdefault(event.who, {})[(event.unit, event.task)] = event.value
        self.people = {who: _PersonLabels(labels) for who, labels in by_who.items()}

    def records(
        self, response_id: str, sentences: list[Sentence], imported=(), gold: EvaluationRecord | None = None
    ) -> list[EvaluationRecord]:
        """See `response_annotator_records`."""
        derived = {
            str(Source.human(who)): _record(response_id, str(Source.human(who)), sentences, person, gold)
            for who, person in self.people.items()
        }
        kept = {r.source: r for r in imported if r.source not in derived}
        return [record for _, record in sorted({**kept, **derived}.items())]

    def judge_gold_facts(self, sentences: list[Sentence], gold: EvaluationRecord | None) -> bool:
        """Does anyone's record change with the response's `gold` record: did someone answer stage
        3 about gold facts outside their own list (a staged campaign)?"""
        if gold is None:
            return False
        return any(
            person.judges_gold_facts(i, sentence_at(gold, i, sentences[i]))
            for person in self.people.values()
            for i in person.answered_facts
            # else no answer beyond their own: the sentence is not compared
            if i < len(sentences) and person.beyond_own(i)
        )


def response_annotator_records(
    response_id: str,
    sentences: list[Sentence],
    events,
    imported=(),
    gold: EvaluationRecord | None = None,
) -> list[EvaluationRecord]:
    """Every annotator's `human:<name>` record of one response, by source: derived from their
    current label `events` on it (rulings are an adjudicator's and do not count) and, for an
    annotator the log has nothing on, their `imported` record. `gold` (the response's gold record)
    supplies the facts a staged campaign asked about (see `record_from_labels`)."""
    return ResponseLabels(events).records(response_id, sentences, imported, gold)


def human_records(
    store, response_ids=None, gold_by_response: dict[str, EvaluationRecord] | None = None
) -> list[EvaluationRecord]:
    """`human:<name>` records derived from the event log, one per (person, response) with at
    least one current label; rulings are an adjudicator's, not an annotator's, and do not count.
    `gold_by_response` ({response_id: gold record}) supplies the facts a staged campaign asked
    about (see `record_from_labels`); without it, answers about facts that are not the person's
    own are left out."""
    wanted = None if response_ids is None else set(response_ids)
    by_response: dict[str, list] = {}
    for event in store.events.current_labels():
        if wanted is None or event.response_id in wanted:
            by_response.setdefault(event.response_id, []).append(event)
    gold = gold_by_response or {}
    order = {rid: n for n, rid in enumerate(store.response_ids())}
    records = [
        record
        for rid, events in by_response.items()
        for record in response_annotator_records(
            rid, store.response_sentences(rid), events, (), gold.get(rid)
        )
    ]
    return sorted(records, key=lambda r: (r.source, order.get(r.response_id, 0)))


def annotator_records(
    store, response_ids=None, gold_by_response: dict[str, EvaluationRecord] | None = None
) -> list[EvaluationRecord]:
    """Every annotator's `human:<name>` records: derived from the event log (`human_records`) and,
    for the (response, annotator) pairs the log has nothing on, the imported ones. Ordered by
    source, then response (import order)."""
    derived = human_records(store, response_ids, gold_by_response)
    derived_keys = {(r.response_id, r.source) for r in derived}
    wanted = None if response_ids is None else set(response_ids)
    imported = [
        r
        for r in store.list_records("human")
        if (r.response_id, r.source) not in derived_keys and (wanted is None or r.response_id in wanted)
    ]
    order = {rid: n for n, rid in enumerate(store.response_ids())}
    return sorted(imported + derived, key=lambda r: (r.source, order.get(r.response_id, 0)))
