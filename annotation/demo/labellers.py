"""Simulated annotators and judges: their error rates per stage, and how they label a response
against its ground truth (`ground_truth.GoldSentence`) — as an evaluation record, or as the events
the app records when a person labels. Errors happen at known rates; every answer otherwise asks
the same oracle as the ground truth (`texts.supported`)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from annotation.demo.ground_truth import GoldSentence
from annotation.demo.texts import PlannedFact, supported
from annotation.demo.videos import VideoTruth
from annotation.protocol.ids import RESPONSE_UNIT, Source, Task, Unit, entailment_task, fact_key
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence
from annotation.store.project_store import ProjectStore


@dataclass(frozen=True)
class Labeller:
    """Error rates of a simulated person or judge, per stage.

    Stage 1: `verify_error` flips a verifiability decision. Stage 2: `merge_rate` joins a
    sentence's first two facts, `split_rate` splits a coloured figure into shape + colour,
    `reword_rate` words a fact differently, `drop_rate` leaves one fact out. Stage 3:
    `entail_error` flips an answer (0.5 = a coin). `fast_rate` is the share of quick (< 2 s)
    decisions; `correct_rate` the share of stage-1 clicks first made wrong, then relabelled.
    """

    verify_error: float
    merge_rate: float
    split_rate: float
    reword_rate: float
    drop_rate: float
    entail_error: float
    fast_rate: float = 0.05
    correct_rate: float = 0.0


ANNOTATORS = {
    "alice": Labeller(0.04, 0.05, 0.10, 0.30, 0.02, 0.06, fast_rate=0.05, correct_rate=0.05),
    "bob": Labeller(0.08, 0.15, 0.05, 0.40, 0.05, 0.10, fast_rate=0.15),
    "carol": Labeller(0.15, 0.30, 0.00, 0.20, 0.15, 0.20, fast_rate=0.65),  # careless and fast
}
_VERIFIER = {"strong": 0.07, "good": 0.1, "weak": 0.3, "random": 0.5}
_DECOMPOSER = {
    "strong": (0.05, 0.05, 0.2, 0.0),
    "good": (0.15, 0.05, 0.4, 0.05),
    "weak": (0.3, 0.1, 0.5, 0.2),
    "random": (0.5, 0.2, 0.6, 0.4),
}
_ENTAILER = {"strong": 0.1, "good": 0.12, "weak": 0.3, "random": 0.5}
# (verifier, decomposer, entailment judge), best first: the order the demo promises.
JUDGE_CONFIGS = (
    ("strong", "strong", "strong"),
    ("weak", "good", "good"),
    ("good", "good", "weak"),
    ("random", "random", "random"),
)


def judge_source(stages: tuple[str, str, str]) -> str:
    return str(Source.judge_configuration(*(f"sim-{quality}" for quality in stages)))


def judge_labeller(stages: tuple[str, str, str]) -> Labeller:
    verifier, decomposer, entailer = stages
    return Labeller(_VERIFIER[verifier], *_DECOMPOSER[decomposer], _ENTAILER[entailer])


@dataclass
class LabelledFact:
    text: str
    citations: list[int]
    answers: dict[Task, bool]  # stage-3 task → answer, only the questions PROTOCOL §2 cannot derive
    claims: tuple = ()  # what the simulated person meant: lets a benchmark align wordings by meaning


@dataclass
class LabelledSentence:
    verifiable: bool
    facts: list[LabelledFact] | None  # None: no stage 2 (not verifiable or no valid citation)


def _merge(a: PlannedFact, b: PlannedFact) -> PlannedFact:
    text = a.text.rstrip(".") + " and " + b.text[0].lower() + b.text[1:]
    return PlannedFact(text, a.claims + b.claims, tuple(sorted(set(a.citations) | set(b.citations))))


def _decompose(gold: GoldSentence, who: Labeller, rng: random.Random) -> list[PlannedFact]:
    """The labeller's fact list for a sentence: gold's, merged, split, reworded or thinned."""
    facts = list(gold.facts) or [
        PlannedFact(gold.sentence.text, (), tuple(gold.sentence.valid_citation_indices))
    ]
    if len(facts) >= 2 and rng.random() < who.merge_rate:
        facts[:2] = [_merge(facts[0], facts[1])]
    out: list[PlannedFact] = []
    for fact in facts:
        alternatives = fact.alternatives
        if fact.split and rng.random() < who.split_rate:
            out.extend(fact.split)
        elif alternatives and rng.random() < who.reword_rate:
            out.append(PlannedFact(rng.choice(alternatives), fact.claims, fact.citations))
        else:
            out.append(fact)
    if len(out) >= 2 and rng.random() < who.drop_rate:
        out.pop(rng.randrange(len(out)))
    unique = {fact_key(f.text, list(f.citations)): f for f in out}  # one fact per key (labels.py)
    return list(unique.values())


def _questions(sentence: Sentence, citations: tuple[int, ...]) -> list[tuple[str, int | None]]:
    """Stage-3 questions a person is asked: `all`, and `alone`/`without` per valid citation
    only where PROTOCOL §2 cannot derive them (alone from k = 2, without from k = 3)."""
    k = len(citations)
    valid = [j for j, index in enumerate(citations) if sentence.citations[index].valid]
    return (
        [("all", None)] + [("alone", j) for j in valid if k >= 2] + [("without", j) for j in valid if k >= 3]
    )


def label_response(
    truth: VideoTruth, gold: list[GoldSentence], who: Labeller, rng: random.Random
) -> list[LabelledSentence]:
    """What `who` answers on one response, stage by stage, errors included."""
    out = []
    for g in gold:
        verifiable = g.verifiable != (rng.random() < who.verify_error)
        if not (verifiable and g.sentence.has_valid_citation):
            out.append(LabelledSentence(verifiable, None))
            continue
        facts = []
        for fact in _decompose(g, who, rng):
            cited = [g.sentence.citations[i] for i in fact.citations]
            answers = {}
            for question, j in _questions(g.sentence, fact.citations):
                subset = (
                    cited
                    if question == "all"
                    else [cited[j]]
                    if question == "alone"
                    else cited[:j] + cited[j + 1 :]
                )
                answer = supported(truth, fact.claims, subset) != (rng.random() < who.entail_error)
                answers[entailment_task(question, j)] = answer
            facts.append(LabelledFact(fact.text, list(fact.citations), answers, fact.claims))
        out.append(LabelledSentence(verifiable, facts))
    return out


def labelled_record(
    response_id: str, source: str, gold: list[GoldSentence], labels: list[LabelledSentence]
) -> EvaluationRecord:
    """The record of a labelling, the same one `labels.record_from_labels` derives from events."""
    sentences = []
    for g, labelled in zip(gold, labels, strict=True):
        facts = [
            Fact(
                f.text,
                list(f.citations),
                Entailment(
                    f.answers.get(entailment_task("all")),
                    [f.answers.get(entailment_task("alone", j)) for j in range(len(f.citations))],
                    [f.answers.get(entailment_task("without", j)) for j in range(len(f.citations))],
                ),
            )
            for f in labelled.facts or []
        ]
        sentences.append(
            Sentence(
                g.sentence.text,
                labelled.verifiable,
                list(g.sentence.citations),
                facts,
                g.sentence.start,
                g.sentence.end,
            )
        )
    return EvaluationRecord(response_id, source, sentences)


def _spent_ms(who: Labeller, stage: str, rng: random.Random) -> int:
    """Plausible time on one decision; a fast click takes under two seconds."""
    if rng.random() < who.fast_rate:
        return rng.randint(3000, 8000) if stage == "facts" else rng.randint(600, 1900)
    typical = {"verifiable": 4500, "facts": 20000, "entailment": 7000}[stage]
    return int(typical * math.exp(rng.gauss(0, 0.45)))


def write_label_events(
    store: ProjectStore,
    name: str,
    response_id: str,
    who: Labeller,
    labels: list[LabelledSentence],
    rng: random.Random,
) -> None:
    """Append one person's labels as events, stage by stage as the app records them, then `done`."""
    for i, labelled in enumerate(labels):
        if rng.random() < who.correct_rate:  # a slip, relabelled at once; the later label wins
            store.events.append(
                name,
                response_id,
                Unit.of_sentence(i),
                "verifiable",
                not labelled.verifiable,
                spent_ms=rng.randint(500, 1500),
            )
        store.events.append(
            name,
            response_id,
            Unit.of_sentence(i),
            "verifiable",
            labelled.verifiable,
            spent_ms=_spent_ms(who, "verifiable", rng),
        )
    for i, labelled in enumerate(labels):
        if labelled.facts is not None:
            store.events.append(
                name,
                response_id,
                Unit.of_sentence(i),
                "facts",
                [{"text": f.text, "citations": f.citations} for f in labelled.facts],
                spent_ms=_spent_ms(who, "facts", rng),
            )
    for i, labelled in enumerate(labels):
        for fact in labelled.facts or []:
            unit = Unit.of_fact(i, fact.text, fact.citations)
            for task, answer in fact.answers.items():
                store.events.append(
                    name, response_id, unit, task, answer, spent_ms=_spent_ms(who, "entailment", rng)
                )
    store.events.append(name, response_id, RESPONSE_UNIT, "done", True, spent_ms=rng.randint(500, 2500))
