"""The project as of one revision: its current labels, every annotator's `human:*` records, the one
gold set and the judge records, derived once and read by every page and command.

`project_state(store)` reads the project's revision (`Revision`: the last event id, the last record
id, the number of responses and the settings — every write moves one of them) and returns the
state of that revision. States are cached per project file: the same revision returns the same
object, derived once however many threads ask. A new revision re-derives only what changed:
the responses with events since the last one (events carry their response) or whose imported
annotator records changed; a change of the gold rule re-derives everything.

Per response, gold is derived in two passes (a staged campaign): the annotators' own labels
settle the gold facts (stages 1–2); people then answer stage 3 about those gold facts, which
their own records do not hold, so — when someone answered about a gold fact outside their own
list (`work.labels.ResponseLabels.judge_gold_facts`; otherwise the second pass would add nothing) —
their records are built again with the gold record and, when that adds answers, gold is derived
again counting them (`agreement.gold.derive_gold`'s `answers`).

Gold is one set everywhere: derived for every response someone labelled (events or imported
`human:*` records), and the imported `gold` record of a response nobody labelled here.

Each derived response's result is kept in the project file (`store.derived_results`, under a key of
its last event id, its imported records' last id, the gold settings and the deriving code), so a new
process reads the responses nothing has touched since instead of deriving them: a response's share
read from there holds no label events (`ResponseState.labels` None), and the state reads every
current label of its revision on the first use of `labels` or `rulings`. A state derived from
nothing lets go of each response's events once it is derived, as if it had been read: 256k events
at 4,000 responses are ≈ 100 MB that the pages which never ask for them (Calibrate, Model scores,
the sweep) would otherwise hold, and the first page that asks reads them in one query (≈ 1 s).
"""

from __future__ import annotations

import gc
import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from annotation.agreement.adjudication import rulings_from_events
from annotation.agreement.gold import DEFAULT_RULE, GoldSet, derive_gold, imported_gold_values
from annotation.project_settings import ProjectSettings
from annotation.protocol.records import EvaluationRecord, Sentence
from annotation.store import derived_results
from annotation.store.bulk import without_cycle_collection
from annotation.store.event_log import Event
from annotation.work.labels import ResponseLabels

KEPT_PROJECTS = 8  # states kept in memory, one per project file, the least recently read dropped
MANY_CHANGED = 64  # beyond this many changed responses, one read of every label beats one per response


@dataclass(frozen=True)
class Revision:
    """Marks that move with every write to a project: the append-only event log's and record
    table's last ids, the number of responses, the settings as stored."""

    events: int
    records: int
    responses: int
    settings: str

    @classmethod
    def of(cls, store) -> Revision:
        return cls(*store.change_marks())


@dataclass(frozen=True)
class ResponseState:
    """One response's share of the state: its current label events (rulings included; None when
    the share was read from the project file or derived from nothing, see module doc), its
    annotators' records and its gold (values and record; empty when nobody labelled it)."""

    labels: tuple[Event, ...] | None
    annotators: tuple[EvaluationRecord, ...]
    gold: GoldSet


@dataclass
class ProjectState:
    """A project as of `revision` (see module doc). `labels`: every current label event, by id;
    `annotators`: the `human:*` records by source, then response (import order); `gold`: the gold
    set — values of the labelled responses in import order, records of every response with gold
    (the labelled ones whose stage-1 and stage-2 gold is decided; the others are `gold.awaiting`);
    `judges`: the stored judge records, read on first use. `responses` holds each labelled
    response's share, `order` the import order, `imported` the imported annotator and gold records
    by response: what the next revision starts from."""

    revision: Revision
    settings: ProjectSettings
    responses: dict[str, ResponseState]
    order: dict[str, int]
    imported: tuple[dict[str, tuple[EvaluationRecord, ...]], dict[str, EvaluationRecord]]
    sentences: dict[str, list[Sentence]] = field(repr=False)
    store: object = field(repr=False, compare=False)
    gold: GoldSet = field(default_factory=lambda: GoldSet(DEFAULT_RULE, True))
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)
    _judges: list[EvaluationRecord] | None = field(default=None, repr=False, compare=False)
    _rulings: dict | None = field(default=None, repr=False, compare=False)
    _labels: tuple[Event, ...] | None = field(default=None, repr=False, compare=False)
    _annotators: list[EvaluationRecord] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        rule, auto_accept = self.settings.gold
        self.gold = GoldSet(rule, auto_accept)
        for part in self._parts():
            self.gold.values.extend(part.gold.values)
            self.gold.records.extend(part.gold.records)
            self.gold.awaiting.update(part.gold.awaiting)
        # an imported gold record stands for a response nobody labelled here (not one awaiting gold);
        # its values are listed too (kind "imported"), so the gold CSV holds what the records hold
        standing = [r for rid, r in self.imported[1].items() if rid not in self.responses]
        self.gold.records.extend(standing)
        for record in sorted(standing, key=lambda r: self.order.get(r.response_id, 0)):
            self.gold.values.extend(imported_gold_values(record))
        self.gold.records.sort(key=lambda r: self.order.get(r.response_id, 0))

    def _parts(self) -> list[ResponseState]:
        """The labelled responses' shares, in import order."""
        return [self.responses[rid] for rid in sorted(self.responses, key=lambda rid: self.order.get(rid, 0))]

    # every label of the project sorted anew costs more than the one response a new label derives:
    # labels and annotators are gathered on first use, once per revision
    @property
    def labels(self) -> tuple[Event, ...]:
        with self._lock:
            if self._labels is None:
                if any(part.labels is None for part in self.responses.values()):
                    self._read_labels()
                self._labels = tuple(
                    sorted((e for part in self._parts() for e in part.labels), key=lambda e: e.id)
                )
            return self._labels

    def _read_labels(self) -> None:
        """The label events of the shares read from the project file, from one read of every
        current label as of this revision (later states start from shares that hold them)."""
        with _long_lived():  # 256k events at 4,000 responses
            found = _labels_of(self.store, None, up_to=self.revision.events)
        for rid, part in self.responses.items():
            if part.labels is None:
                self.responses[rid] = replace(part, labels=tuple(found.get(rid, ())))

    @property
    def annotators(self) -> list[EvaluationRecord]:
        with self._lock:
            if self._annotators is None:
                self._annotators = sorted(
                    (r for part in self._parts() for r in part.annotators),
                    key=lambda r: (r.source, self.order.get(r.response_id, 0)),
                )
            return self._annotators

    @property
    def judges(self) -> list[EvaluationRecord]:
        """The stored `judge:*` records (latest per response and source), read once."""
        with self._lock:
            if self._judges is None:
                self._judges = self.store.list_records("judge")
            return self._judges

    @property
    def rulings(self) -> dict:
        """The adjudicators' rulings in force ({(response_id, unit, task): Ruling}, as gold reads
        them), the "Same fact?" answers among them: what agreement needs to cluster as gold does."""
        with self._lock:
            if self._rulings is None:
                self._rulings = rulings_from_events(self.labels)
            return self._rulings

    def gold_by_response(self) -> dict[str, EvaluationRecord]:
        return {r.response_id: r for r in self.gold.records}

    def gold_so_far_by_response(self) -> dict[str, EvaluationRecord]:
        """`gold_by_response` and the records as decided so far of the responses awaiting gold: what
        a staged campaign asks stage 3 about (a sentence's gold facts need not wait for another
        sentence's ruling; what is undecided is asked about once it is decided)."""
        return {rid: waiting.record for rid, waiting in self.gold.awaiting.items()} | self.gold_by_response()


# -- derivation --------------------------------------------------------------------------------
def derive_response(
    response_id: str,
    sentences: list[Sentence],
    labels,
    imported_humans=(),
    imported_gold: EvaluationRecord | None = None,
    settings: ProjectSettings = ProjectSettings(),
) -> ResponseState:
    """One response's annotator records and gold from its current label events, its imported
    annotator records and (for a response nobody labels) its imported gold; see module doc."""
    labels = tuple(labels)
    rule, auto_accept = settings.gold
    options = {
        "rule": rule,
        "auto_accept_unanimous": auto_accept,
        "spent_ms": {(e.who, e.response_id, e.unit, e.task): e.spent_ms for e in labels},
    }
    rulings = rulings_from_events(labels)
    indexed = ResponseLabels(labels)
    own = indexed.records(response_id, sentences, imported_humans)
    first = derive_gold(own, rulings, **options)
    # gold as decided so far: people may have answered about the gold facts of a response that
    # still awaits another sentence's ruling
    waiting = first.awaiting.get(response_id)
    gold_record = first.records[0] if first.records else waiting.record if waiting else imported_gold
    if not indexed.judge_gold_facts(sentences, gold_record):
        return ResponseState(labels, tuple(own), first)  # the second pass would add nothing
    about_gold = indexed.records(response_id, sentences, imported_humans, gold_record)
    gold = first if about_gold == own else derive_gold(own, rulings, answers=about_gold, **options)
    return ResponseState(labels, tuple(about_gold), gold)


def _imported(store) -> tuple[dict[str, tuple[EvaluationRecord, ...]], dict[str, EvaluationRecord]]:
    """({response: its imported `human:*` records}, {response: its imported gold record})."""
    humans: dict[str, list[EvaluationRecord]] = {}
    for record in store.list_records("human"):
        humans.setdefault(record.response_id, []).append(record)
    gold = {r.response_id: r for r in store.list_records("gold")}
    return {rid: tuple(found) for rid, found in humans.items()}, gold


def _labels_of(store, response_ids: set[str] | None, up_to: int | None = None) -> dict[str, list[Event]]:
    """{response: its current label events} of `response_ids` (None: every response), as of the
    log's last id `up_to` (None: now)."""
    if response_ids is not None and len(response_ids) <= MANY_CHANGED:
        return {rid: store.events.current_labels(response_id=rid, up_to=up_to) for rid in response_ids}
    out: dict[str, list[Event]] = {rid: [] for rid in response_ids or ()}
    for event in store.events.current_labels(up_to=up_to):
        if response_ids is None or event.response_id in response_ids:
            out.setdefault(event.response_id, []).append(event)
    return out


def derive_state(
    store,
    previous: ProjectState | None = None,
    revision: Revision | None = None,
    *,
    kept: bool = True,
) -> ProjectState:
    """The project's state, derived anew (`previous` None) or from `previous` re-deriving only what
    changed since (see module doc); no cache. `project_state` is the cached way to read it.
    `kept` False derives every response itself: the results kept in the project file are neither
    read nor written."""
    with _long_lived() if previous is None else without_cycle_collection():
        return _derive_state(store, previous, revision, kept)


@contextmanager
def _long_lived():
    """For a read that makes millions of objects which live as long as the state (a state from
    nothing, every label of it): what is garbage now is collected, the read runs without the cycle
    collector, and then everything alive moves to the collector's permanent generation
    (`gc.freeze`). Otherwise every later collection walks the whole state again — seconds at 4,000
    responses, to free nothing: the state holds no cycles, so reference counting frees it when
    it is dropped, frozen or not."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()  # before the collector is back: its first pass would walk every new object
        if enabled:
            gc.enable()


def _derive_state(
    store, previous: ProjectState | None, revision: Revision | None, kept: bool
) -> ProjectState:
    revision = revision or Revision.of(store)
    settings = ProjectSettings.of(store)
    full = (
        previous is None
        or previous.settings.gold != settings.gold
        or previous.revision.responses != revision.responses
    )
    if full:
        order = {rid: n for n, rid in enumerate(store.response_ids())}
        imported = _imported(store)
        sentences: dict[str, list[Sentence]] = {}
        parts: dict[str, ResponseState] = {}
        changed = None
    else:
        order, sentences, parts = previous.order, dict(previous.sentences), dict(previous.responses)
        imported = previous.imported
        changed = store.events.responses_since(previous.revision.events)
        if revision.records != previous.revision.records:
            imported = _imported(store)
            changed |= {
                rid
                for rid in set(imported[0]) | set(previous.imported[0])
                if imported[0].get(rid) != previous.imported[0].get(rid)
            }
            changed |= {
                rid
                for rid in set(imported[1]) | set(previous.imported[1])
                if imported[1].get(rid) != previous.imported[1].get(rid) and rid in parts
            }
    keys: dict[str, str] = {}
    if kept:
        # the marks are read before the labels: a result is never kept under a mark older than
        # the labels it was derived from (a label appended meanwhile makes a newer mark)
        marks = derived_results.response_marks(store, revision.events, revision.records, changed)
        if changed is None:
            changed = set(marks) | set(imported[0])
        rule, auto_accept = settings.gold
        keys = {rid: f"{marks.get(rid, '0/0')}|{rule}|{auto_accept}" for rid in changed}
    stored = derived_results.read_results(store, keys) if kept else {}
    for rid, result in stored.items():
        if result is None:
            parts.pop(rid, None)
        else:
            parts[rid] = ResponseState(None, *result)
    labels = _labels_of(store, None if changed is None else changed - set(stored))
    if changed is None:
        changed = set(labels) | set(imported[0])
    derived: dict[str, tuple[str, object]] = {}
    sentences.update(store.responses_sentences(rid for rid in changed - set(stored) if rid not in sentences))
    for rid in changed - set(stored):
        # from nothing, each response's events are let go once derived (module doc)
        found = labels.pop(rid, []) if previous is None else labels.get(rid, [])
        if not found and rid not in imported[0]:
            parts.pop(rid, None)
            derived[rid] = (keys.get(rid), None)
            continue
        part = derive_response(
            rid, sentences[rid], found, imported[0].get(rid, ()), imported[1].get(rid), settings
        )
        if previous is None:
            part = ResponseState(None, part.annotators, part.gold)
        parts[rid] = part
        derived[rid] = (keys.get(rid), (part.annotators, part.gold))
    if kept:
        derived_results.write_results(store, derived)
    return ProjectState(revision, settings, parts, order, imported, sentences, store)


# -- the cache ---------------------------------------------------------------------------------
_states: OrderedDict[tuple, ProjectState] = OrderedDict()
_locks: dict[tuple, threading.Lock] = {}
_cache_lock = threading.Lock()


def _identity(store) -> tuple:
    """The project file: its path and inode (a file replaced at the same path is another project)."""
    path = store.db_path.resolve()
    stat = path.stat()
    return str(path), stat.st_dev, stat.st_ino


def state_in_memory(store) -> bool:
    """Whether this process holds a state of the project, of any revision: `project_state` then
    derives at most what changed since; otherwise it reads (or derives) every response, seconds at
    campaign size."""
    key = _identity(store)
    with _cache_lock:
        return key in _states


def project_state(store) -> ProjectState:
    """The state of the project's current revision (see module doc): the cached one when nothing
    changed since, else derived from the last one. Thread-safe: threads asking for the same
    project wait for one derivation. ValueError for an unknown gold rule setting."""
    key = _identity(store)
    with _cache_lock:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        revision = Revision.of(store)
        with _cache_lock:
            previous = _states.get(key)
        if previous is not None and previous.revision == revision:
            with _cache_lock:
                _states.move_to_end(key)
            return previous
        state = derive_state(store, previous, revision)
        with _cache_lock:
            _states[key] = state
            _states.move_to_end(key)
            while len(_states) > KEPT_PROJECTS:
                dropped, _ = _states.popitem(last=False)
                _locks.pop(dropped, None)
        return state
