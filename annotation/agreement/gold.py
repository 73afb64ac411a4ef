"""Gold labels with provenance: derived from the annotators' labels by a rule, overruled by
adjudication, listed as disputes where people disagree, given as records.

A project's gold set is derived once per revision by `annotation.state.project_state` (its `gold`),
from the annotators' records and rulings through `derive_gold`; this module holds the rules.

Adjudication (the rulings, their vocabulary in the event log) is `adjudication.py`; the gold CSV
`annotation.formats.gold_csv`.

Rules (project settings): `gold_rule` "majority" (default: more than half of the annotators'
values) or "unanimity" (every annotator; anything else stays unresolved, None, until ruled);
`auto_accept_unanimous` (default true) — when false, unanimous units too wait for a ruling.
A ruling always wins. Stage 2 works on fact clusters (`clusters.py`): people agree on a sentence
when they stated the same clusters with the same citations, however they worded them; the gold
facts are then every cluster, each with its canonical wording; under "majority" otherwise the
clusters more than half of the decomposers stated. Stage 3 is decided on the questions a person is
asked (`protocol.questions.entailment_questions`) about each gold fact, counting every member of its cluster
who answered the same question (`entailment_answers.py`); the others are derived (PROTOCOL §2).

A response gets a gold record only once every stage-1 and stage-2 value its score is read from is
decided: a sentence's `verifiable`, and the fact list of a verifiable sentence with a valid
citation. Until then it is *awaiting* (`GoldSet.awaiting`: what it waits for) and has no record —
its MURGAT-S is undetermined (PROTOCOL §3), so it must not be scored, correlated or exported as if
an undecided sentence were not verifiable or had no facts. An unresolved stage-3 value leaves its
fact undetermined instead, as the scorer reads a null.

Provenance strings: "unanimous 3/3", "majority 2/3", "adjudicated:ada" or
"adjudicated:ada:annotator error", "derived (PROTOCOL §2)", "unresolved: …". A gold fact's
provenance also lists its cluster's `wordings` (author, text, citations).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from annotation.agreement.adjudication import Ruling
from annotation.agreement.clusters import FactCluster, SentenceClusters, response_clusters
from annotation.agreement.entailment_answers import answer_table, could_not_tell, question_segments
from annotation.agreement.reliability import agreement_stage, records_by_response
from annotation.agreement.same_fact import answers_from_rulings
from annotation.protocol.derivation import derive_entailment
from annotation.protocol.ids import FACTS_TASK, VERIFIABLE_TASK, QuestionKey, Task, Unit
from annotation.protocol.questions import entailment_questions, question_citations
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence
from annotation.protocol.same_sentence import sentence_at
from annotation.store.bulk import without_cycle_collection

RULES = ("majority", "unanimity")
DEFAULT_RULE = "majority"
FAST_MS = 2000  # a decision quicker than this is flagged on the disputes list
DERIVED = "derived (PROTOCOL §2)"
PROVENANCE_KINDS = ("unanimous", "majority", "adjudicated", "derived", "unresolved", "imported")
IMPORTED = "imported"  # a value of an imported gold record that says nothing of where it came from


class Provenance(NamedTuple):
    """Where a gold value came from: its `kind` (PROVENANCE_KINDS), what is counted, and its `text`,
    what records, CSV and pages show ("majority 2/3", "adjudicated:ada:annotator error", …). A named
    tuple: one is made for every gold value derived."""

    kind: str
    text: str


@dataclass
class GoldValue:
    """One value of the gold set, where it came from, and what each annotator said.

    `question` names the value as in provenance dicts ("verifiable", "facts", "all",
    "alone[0]"); `unit`/`task` are what an adjudicator rules on (None for derived values).
    `value` None means unresolved. `agreement` is the modal value's share of the annotators.
    `segments` index the sentence's citations: the media to replay when ruling. `compared` holds
    what is compared of each annotator's value (their value itself; for a fact list, its
    signature — the clusters and citations it states), `gold_compared` the same of the gold value.
    A fact list's value carries its sentence's `clusters`; a stage-3 value the fact's citations and
    its cluster's `wordings` (author, text, citations).
    """

    response_id: str
    sentence: int
    fact: str | None
    question: str
    unit: Unit | None
    task: Task | None
    values: dict[str, object]
    spent_ms: dict[str, int | None]
    value: object
    provenance: str
    agreement: float
    ruling: Ruling | None = None
    segments: tuple[int, ...] = ()  # the sentence's citations the question is about (playback)
    orphan: bool = False  # a question about a fact no annotator gave: only a ruling settles it
    compared: dict[str, object] = field(default_factory=dict)
    gold_compared: object = None
    citations: tuple[int, ...] = ()
    wordings: tuple[tuple[str, str, tuple[int, ...]], ...] = ()
    clusters: SentenceClusters | None = None
    provenance_kind: str = "derived"  # PROVENANCE_KINDS: `provenance` is its words

    @property
    def disputed(self) -> bool:
        """Annotators disagree in substance, or the value still waits for a ruling (annotators
        agreed but auto-acceptance is off, or nobody could answer it)."""
        return self.task is not None and (
            len(set(self.compared.values())) > 1
            or (self.value is None and (bool(self.values) or self.orphan))
        )

    @property
    def needs_ruling(self) -> bool:
        """Disputed and not settled: no majority (or rule) decides it and nobody has ruled."""
        return self.disputed and self.value is None

    def agrees_with_gold(self, name: str) -> bool:
        """Does `name`'s value say what the gold value says (a fact list: the same clusters)?"""
        return self.compared.get(name) == self.gold_compared

    @property
    def stage(self) -> str:
        """The agreement stage of this value ('verifiable', 'decomposition', 'entailment_all', …)."""
        return agreement_stage(Task.from_value_name(self.question))

    @property
    def key(self) -> str:
        """What an adjudicator rules on, as one string: response, unit and task."""
        return str(QuestionKey(self.response_id, self.unit, self.task))

    @property
    def fast_annotators(self) -> list[str]:
        """Annotators who decided this in under FAST_MS."""
        return sorted(n for n, ms in self.spent_ms.items() if ms is not None and ms < FAST_MS)


@dataclass(frozen=True)
class Awaiting:
    """A response whose gold is not decided yet (module doc): what it waits for ("sentence 2:
    verifiable"), and its record as decided so far — undecided values null, an undecided fact
    list empty — which is never scored: a staged campaign's people answer about its gold facts."""

    undecided: tuple[str, ...]
    record: EvaluationRecord


@dataclass
class GoldSet:
    """`records`: one per response whose stage-1 and stage-2 gold is decided; `awaiting`: the
    others, by response id (module doc)."""

    rule: str
    auto_accept_unanimous: bool
    values: list[GoldValue] = field(default_factory=list)
    records: list[EvaluationRecord] = field(default_factory=list)
    awaiting: dict[str, Awaiting] = field(default_factory=dict)

    def disputes(self, open_only: bool = False) -> list[GoldValue]:
        """Disputed values, lowest agreement first (ties in response/sentence order);
        `open_only` keeps those without a ruling."""
        found = [v for v in self.values if v.disputed and not (open_only and v.ruling is not None)]
        return sorted(found, key=lambda v: v.agreement)

    def counts(self) -> dict[str, int]:
        """How many values came from each kind of provenance (PROVENANCE_KINDS)."""
        return dict(Counter(v.provenance_kind for v in self.values))

    def awaiting_note(self) -> str | None:
        """What a reader of the gold records is told of the responses left without one (None:
        every labelled response has its record)."""
        return awaiting_note(len(self.awaiting))


def awaiting_note(n_awaiting: int) -> str | None:
    """`GoldSet.awaiting_note` of `n_awaiting` responses."""
    if not n_awaiting:
        return None
    return (
        f"{n_awaiting} labelled response(s) await a ruling or labels on stage 1 or 2 (Disputes): "
        "no gold record yet, left out"
    )


def decide(
    compared: dict[str, object], rule: str, auto_accept_unanimous: bool, ruling: Ruling | None
) -> tuple[object, Provenance, float]:
    """(the modal compared value or the ruling's value, provenance, agreement) of one unit from what
    is compared of each annotator's value. A ruling wins; no values → unresolved. Raises ValueError
    for an unknown rule."""
    if rule not in RULES:
        raise ValueError(f"gold rule '{rule}' is not one of {', '.join(RULES)}")
    return _decided(compared, rule, auto_accept_unanimous, ruling)


def _decided(compared: dict, rule: str, auto_accept_unanimous: bool, ruling: Ruling | None) -> tuple:
    """`decide` with `rule` known to be one of RULES (checked once per derivation)."""
    values = list(compared.values())
    n = len(values)
    first = values[0] if n else None
    if values.count(first) == n:  # unanimous (or nothing): no counting
        top, m = first, n
    else:
        top, m = Counter(values).most_common(1)[0]
    agreement = m / n if n else 0.0
    if ruling is not None:
        return ruling.value, Provenance("adjudicated", ruling.provenance), agreement
    if n == 0:
        return None, _NO_VALUES, 0.0
    provenance = _counted_provenance(m, n, rule, auto_accept_unanimous)
    return (None if provenance.kind == "unresolved" else top), provenance, agreement


_NO_VALUES = Provenance("unresolved", "unresolved: no annotator values")


@lru_cache(maxsize=1024)  # a few counts: one provenance object (and text) shared by every value it names
def _counted_provenance(m: int, n: int, rule: str, auto_accept_unanimous: bool) -> Provenance:
    """The provenance of a unit decided by counting: `m` of `n` annotators gave the modal value."""
    if m == n:
        if auto_accept_unanimous:
            return Provenance("unanimous", f"unanimous {n}/{n}")
        return Provenance("unresolved", f"unresolved: unanimous {n}/{n}, awaiting confirmation")
    if rule == "majority" and m * 2 > n:
        return Provenance("majority", f"majority {m}/{n}")
    return Provenance("unresolved", f"unresolved: disputed {m}/{n}")


@lru_cache(maxsize=256)  # a handful of names, asked for every gold fact
def _value_name(kind: str, j: int | None) -> str:
    return Task(kind, j).value_name


def _fact_dicts(facts) -> list[dict]:
    return [{"text": text, "citations": list(cites)} for text, cites, *_ in facts]


class _Deriver:
    """Builds one response's gold values and gold record. `by_name` gives stages 1–2 (and the
    clusters); `answers` the stage-3 answers (in a staged campaign, about the gold facts)."""

    def __init__(self, response_id: str, by_name: dict, answers: dict, settings: tuple, rulings, spent_ms):
        self.rid, self.by_name, self.answers = response_id, by_name, answers
        self.rule, self.auto_accept = settings
        self.rulings, self.spent = rulings, spent_ms
        self.clusters = response_clusters(by_name, answers_from_rulings(rulings, response_id))
        self.values: list[GoldValue] = []
        self._found: dict[tuple, FactCluster | None] = {}
        self._answering_at: dict[int, list] = {}
        self._own_at: dict[int, dict[str, Sentence]] = {}  # sentence i of each deciding record, by name
        self._answers: dict[int, tuple[Fact, dict]] = {}  # id(fact) → (the fact, kept alive; its answers)
        self._units: dict[int, tuple[Fact, Unit]] = {}  # id(fact) → (the fact, kept alive; its unit)
        self._named = sorted(by_name.items())  # asked for every sentence

    def _unit_of(self, i: int, fact: Fact) -> Unit:
        """`Unit.of_fact` of a voter's fact of sentence i, once per fact, however many questions it
        answers."""
        found = self._units.get(id(fact))
        if found is None:
            found = self._units[id(fact)] = (fact, Unit.of_fact(i, fact.text, fact.citations))
        return found[1]

    def _answered(self, fact: Fact, sentence: Sentence) -> dict:
        """`answer_table` of a voter's fact, once per fact ({} for a malformed one: no vote), however
        many questions it is asked."""
        key = id(fact)
        if key not in self._answers:
            try:
                self._answers[key] = (fact, answer_table(fact, sentence))
            except ValueError:  # a malformed fact in an imported record: no vote
                self._answers[key] = (fact, {})
        return self._answers[key][1]

    def _find(self, clusters: SentenceClusters, fact: Fact, subset: tuple[int, ...]) -> FactCluster | None:
        """`clusters.find` of a voter's fact (cited `subset`, its sorted distinct citations), once per
        wording and subset of a sentence (every gold fact of the sentence asks about every voter's
        facts)."""
        key = (clusters.sentence, fact.text, subset)
        if key not in self._found:
            self._found[key] = clusters.find(fact.text, fact.citations)
        return self._found[key]

    def _answering(self, i: int) -> list[tuple[str, Sentence, list[tuple[Fact, tuple, tuple]]]]:
        """(name, their sentence i, [(fact, (its wording as compared, sorted citations), its sorted
        distinct citations)]) of every answering record that has sentence i, by name; read once per
        sentence, whatever number of gold facts asks."""
        if i not in self._answering_at:
            if self.answers is self.by_name:  # the deciding records answer too: their sentences as found
                found = self._own_at[i].items()
            else:
                base = self.by_name[min(self.by_name)].sentences[i]
                found = ((n, sentence_at(r, i, base)) for n, r in sorted(self.answers.items()))
            rows = []
            for name, sentence in found:
                if sentence is not None:
                    facts = [
                        (
                            f,
                            (f.text.strip().casefold(), tuple(sorted(f.citations))),
                            tuple(sorted(set(f.citations))),
                        )
                        for f in sentence.facts
                    ]
                    rows.append((name, sentence, facts))
            self._answering_at[i] = rows
        return self._answering_at[i]

    def _ruling(self, units, task: Task | None) -> Ruling | None:
        if not self.rulings:
            return None
        found = [self.rulings[(self.rid, u, task)] for u in units if (self.rid, u, task) in self.rulings]
        return max(found, key=lambda r: r.event_id, default=None)

    def _value(
        self, sentence: int, question: str, unit, task, values: dict, *,
        compared: dict | None = None, spent: dict | None = None, ruling_units=None, fact=None,
        segments: tuple[int, ...] = (), orphan: bool = False, citations: tuple[int, ...] = (),
        wordings: tuple = (), clusters: SentenceClusters | None = None,
    ) -> GoldValue:  # fmt: skip
        """A gold value from the annotators' `values`; `compared` (default: the values), `spent`
        ({name: ms}; default: each one's event on `unit`, `task`), `ruling_units` (units whose
        ruling counts, default: `unit`), `fact` (its text); the other GoldValue fields as named."""
        # the values themselves when nothing else is compared: one dict, pickled once when kept
        compared = compared or values
        ruling = None
        if self.rulings and unit is not None:
            ruling = self._ruling(ruling_units or [unit], task)
        value, provenance, agreement = _decided(compared, self.rule, self.auto_accept, ruling)
        if spent is None:
            get, rid = self.spent.get, self.rid
            spent = {name: get((name, rid, unit, task)) for name in values}
        gold = GoldValue(
            self.rid, sentence, fact, question, unit, task, values, spent, value, provenance.text, agreement,
            ruling=ruling, segments=segments, orphan=orphan, compared=compared, gold_compared=value,
            citations=citations, wordings=wordings, clusters=clusters, provenance_kind=provenance.kind,
        )  # fmt: skip
        self.values.append(gold)
        return gold

    def sentence(self, i: int, base: Sentence) -> Sentence:
        own = {n: s for n, r in self._named if (s := sentence_at(r, i, base)) is not None}
        self._own_at[i] = own
        unit = Unit.of_sentence(i)
        labelled = {n: s.verifiable for n, s in own.items() if s.verifiable is not None}
        verifiable = self._value(
            i,
            "verifiable",
            unit,
            VERIFIABLE_TASK,
            labelled,
            segments=tuple(range(len(base.citations))),
        )
        provenance = {"verifiable": verifiable.provenance}
        facts: list[Fact] = []
        if verifiable.value is True and base.has_valid_citation:
            facts, provenance["facts"] = self._facts(i, base, own)
        return Sentence(
            base.text, verifiable.value, list(base.citations), facts, base.start, base.end, provenance
        )

    def _facts(self, i: int, base: Sentence, own: dict[str, Sentence]) -> tuple[list[Fact], str]:
        unit = Unit.of_sentence(i)
        clusters = self.clusters.get(i) or SentenceClusters(i)
        signatures = clusters.signatures()
        lists = {
            n: [{"text": f.text, "citations": sorted(set(f.citations))} for f in s.facts]
            for n, s in own.items()
            if s.facts
        }
        # nobody will decompose a sentence they all called not verifiable: only a ruling can
        nobody = not lists and not any(s.verifiable for s in own.values())
        whole = self._value(
            i,
            "facts",
            unit,
            FACTS_TASK,
            lists,
            compared={n: signatures.get(n, frozenset()) for n in lists},
            segments=tuple(range(len(base.citations))),
            orphan=nobody,
            clusters=clusters,
        )
        chosen = self._chosen_facts(whole, clusters)
        whole.value = _fact_dicts(chosen) if chosen or whole.ruling is not None else None
        whole.gold_compared = clusters.signature_of(whole.value) if whole.value is not None else None
        facts = [self._fact(i, base, *fact) for fact in chosen]
        return facts, whole.provenance

    def _chosen_facts(self, whole: GoldValue, clusters: SentenceClusters) -> list[tuple]:
        """(text, citations, provenance, cluster or None) of the gold facts of a sentence: the ruled
        list; every cluster when the decomposers agree (none while that awaits confirmation); else,
        under majority, the clusters most of them stated (whole.provenance becomes 'majority per
        fact')."""
        if whole.ruling is not None:
            return [
                (
                    f["text"],
                    sorted(set(f["citations"])),
                    whole.provenance,
                    clusters.find(f["text"], f["citations"]),
                )
                for f in whole.ruling.value
            ]
        n = len(clusters.decomposers)
        if len(set(whole.compared.values())) == 1:  # unanimous: all of it, or nothing until confirmed
            picked = list(clusters.clusters) if whole.value is not None else []
        elif self.rule == "majority" and n:
            picked = clusters.majority()
            if picked:
                whole.provenance, whole.provenance_kind = "majority per fact", "majority"
        else:
            picked = []
        return [
            (
                c.canonical,
                list(c.citations),
                f"{'unanimous' if c.support == n else 'majority'} {c.support}/{n}",
                c,
            )
            for c in picked
        ]

    def _voters(self, i: int, text: str, cites: list[int], cluster: FactCluster | None) -> dict:
        """{name: (fact, sentence)} whose stage-3 answers are about the gold fact: a fact worded as the
        gold fact with its citations (a staged campaign asks about the gold facts), else their own
        member of its cluster."""
        wanted = (text.strip().casefold(), tuple(sorted(cites)))
        clusters = self.clusters.get(i) or SentenceClusters(i)
        out = {}
        for name, sentence, facts in self._answering(i):
            # the first exact wording with answers, else the first answered member of the cluster
            chosen = next(
                (f for f, worded, _ in facts if worded == wanted and f.entailment is not None), None
            )
            if chosen is None and cluster is not None:
                chosen = next(
                    (
                        f
                        for f, _, subset in facts
                        if f.entailment is not None and self._find(clusters, f, subset) is cluster
                    ),
                    None,
                )
            if chosen is not None:
                out[name] = (chosen, sentence)
        return out

    def _fact(
        self, i: int, sentence: Sentence, text: str, cites: list[int], text_provenance: str, cluster
    ) -> Fact:
        bare = Fact(text, cites)
        provenance: dict = {"text": text_provenance}
        # one tuple for every question's value: built (and kept) once, not once per question
        wordings = cluster.wordings if cluster is not None else ()
        if cluster is not None:
            provenance["wordings"] = [{"author": a, "text": t, "citations": list(c)} for a, t, c in wordings]
        try:
            questions = entailment_questions(bare, sentence)
        except ValueError:  # a citation index outside the sentence (imported records): not judgeable
            return Fact(text, cites, None, provenance)
        voters = self._voters(i, text, cites, cluster)
        units = [Unit.of_fact(i, text, cites)]
        if self.rulings:  # the members' units only name the rulings that count
            units += [Unit.of_fact(i, m.text, cites) for m in getattr(cluster, "members", ())]
        given = Entailment(None, [None] * len(cites), [None] * len(cites))
        # each voter's answers read once for all the fact's questions
        tables = [(name, self._answered(f, s), f) for name, (f, s) in voters.items()]
        about = (text, tuple(cites), wordings)
        for task, kind, j in questions:
            gold = self._entailment_value(
                i, sentence, about, (task, kind, j), (voters, tables), units, cluster
            )
            if j is None:
                given.all = gold.value
            else:
                getattr(given, kind)[j] = gold.value
            provenance[gold.question] = gold.provenance
        filled = derive_entailment(Fact(text, cites, given), sentence)
        self._derived_values(i, text, filled, provenance)
        return Fact(text, cites, filled, provenance)

    def _entailment_value(self, i, sentence, about, question, voting, units, cluster) -> GoldValue:
        """The gold value of one stage-3 question about a gold fact (`about`: its text, its citations
        as a tuple, its cluster's wordings), from every voter who answered E(fact, the same segments)
        (`voting`: the voters, and (name, the answer table of their fact, the fact) of each)."""
        (task, kind, j), (text, cited, wordings), (voters, tables) = question, about, voting
        segments = question_segments(cited, sentence, kind, j)
        asked = (kind, segments)
        values, spent = {}, {}
        get, rid = self.spent.get, self.rid
        for name, table, their in tables:
            found = table.get(asked)
            if found is not None:
                values[name] = found[0]
                spent[name] = get((name, rid, self._unit_of(i, their), found[1]))
        return self._value(
            i,
            _value_name(kind, j),
            units[0],
            task,
            values,
            fact=text,
            spent=spent,
            ruling_units=units,
            segments=question_citations(cited, kind, j),
            # nobody decided (every voter could not tell): only a ruling settles it
            orphan=(cluster is None and not voters)
            or (not values and any(could_not_tell(f, s, segments) for f, s in voters.values())),
            citations=cited,
            wordings=wordings,
        )

    def _derived_values(self, i: int, text: str, filled: Entailment, provenance: dict) -> None:
        """The values PROTOCOL §2 fills, each a GoldValue of its own with DERIVED provenance."""
        for kind in ("alone", "without"):
            for j, value in enumerate(getattr(filled, kind)):
                name = _value_name(kind, j)
                if name not in provenance:
                    provenance[name] = (
                        DERIVED if value is not None else "unresolved: derived from an unresolved value"
                    )
                    self.values.append(
                        GoldValue(
                            self.rid,
                            i,
                            text,
                            name,
                            None,
                            None,
                            {},
                            {},
                            value,
                            provenance[name],
                            1.0,
                            provenance_kind="derived" if value is not None else "unresolved",
                        )
                    )


def imported_gold_values(record: EvaluationRecord) -> list[GoldValue]:
    """The values of an imported gold record (one that stands for a response nobody labelled here),
    as gold values of kind "imported", in the order `derive_gold` gives a response's: each
    sentence's `verifiable`, its fact list when it has facts, then each fact's stage-3 values. A
    value's provenance text is the record's own (a gold record exported from a project carries
    "adjudicated:ada" and the like), else "imported". They name no unit to rule on: nobody here
    labelled the response, so nothing is disputed."""
    out = []

    def add(i: int, fact: str | None, question: str, value, said: dict | None) -> None:
        text = said.get(question) if isinstance(said, dict) else None
        out.append(
            GoldValue(
                record.response_id, i, fact, question, None, None, {}, {}, value,
                text if isinstance(text, str) else IMPORTED, 1.0, provenance_kind="imported",
            )
        )  # fmt: skip

    for i, sentence in enumerate(record.sentences):
        add(i, None, "verifiable", sentence.verifiable, sentence.provenance)
        if sentence.facts:
            add(
                i,
                None,
                "facts",
                _fact_dicts((f.text, f.citations) for f in sentence.facts),
                sentence.provenance,
            )
        for fact in sentence.facts:
            given = fact.entailment or Entailment()
            add(i, fact.text, "all", given.all, fact.provenance)
            for kind in ("alone", "without"):
                for j, value in enumerate(getattr(given, kind) or ()):
                    add(i, fact.text, _value_name(kind, j), value, fact.provenance)
    return out


def derive_gold(
    records,
    rulings: dict | None = None,
    *,
    rule: str = DEFAULT_RULE,
    auto_accept_unanimous: bool = True,
    spent_ms: dict | None = None,
    answers=None,
) -> GoldSet:
    """The gold set of every response with at least one labelled `human:*` record (other sources
    are ignored), in the records' response order.

    `rulings`: {(response_id, unit, task): Ruling} (see `rulings_from_events`); `spent_ms`:
    {(annotator, response_id, unit, task): ms} for the disputes list; `answers`: records whose
    stage-3 answers count (default: `records`; a staged campaign's people answer about the gold
    facts, which their own records do not hold). Sentences follow the alphabetically first
    annotator's record; another's sentence with a different text is ignored. Raises ValueError for
    an unknown rule.
    """
    if rule not in RULES:
        raise ValueError(f"gold rule '{rule}' is not one of {', '.join(RULES)}")
    with without_cycle_collection():
        return _derive_gold(list(records), rulings, rule, auto_accept_unanimous, spent_ms, answers)


def _derive_gold(records, rulings, rule, auto_accept_unanimous, spent_ms, answers) -> GoldSet:
    by_response = records_by_response(records)
    answering = by_response if answers is None else records_by_response(answers)
    gold = GoldSet(rule, auto_accept_unanimous)
    for response_id, by_name in by_response.items():
        deriver = _Deriver(
            response_id,
            by_name,
            answering.get(response_id, by_name),
            (rule, auto_accept_unanimous),
            rulings or {},
            spent_ms or {},
        )
        base = by_name[min(by_name)].sentences
        sentences = [deriver.sentence(i, s) for i, s in enumerate(base)]
        undecided = tuple(
            f"sentence {v.sentence}: {v.question}"
            for v in deriver.values
            if v.value is None and v.question in _SCORED_AS_A_WHOLE
        )
        record = EvaluationRecord(response_id, "gold", sentences)
        if undecided:
            gold.awaiting[response_id] = Awaiting(undecided, record)
        else:
            gold.records.append(record)
        gold.values.extend(deriver.values)
    return gold


# the values a response's score cannot be read without (a fact list is only asked of a verifiable
# sentence with a valid citation); an undecided stage-3 value leaves only its fact undetermined
_SCORED_AS_A_WHOLE = frozenset({"verifiable", "facts"})
