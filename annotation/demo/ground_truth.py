"""The demo's ground truth per stored sentence: what each planned response says is verifiable, its
atomic facts (as claims about the video) and their entailment, read off the scene list. The simulated
people label against it and the adjudicator rules to it."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.demo.texts import Plan, PlannedFact, supported
from annotation.demo.videos import VideoTruth
from annotation.protocol.ids import PER_CITATION, Task
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence

GOLD_PROVENANCE = "demo ground truth"


@dataclass
class GoldSentence:
    """A stored sentence with what the plan says about it (facts as claims)."""

    sentence: Sentence
    verifiable: bool
    facts: tuple[PlannedFact, ...]


def align_plan(plan: Plan, sentences: list[Sentence]) -> list[GoldSentence]:
    """Pair the sentences the importer split with the planned ones. Raises RuntimeError when
    they differ, which means the templates wrote something the splitter reads otherwise."""
    texts = [s.text for s in plan.sentences]
    if texts != [s.text for s in sentences]:
        raise RuntimeError(
            f"demo response '{plan.response.response_id}' splits differently than "
            f"planned:\n{texts}\n{[s.text for s in sentences]}"
        )
    out = []
    for planned, sentence in zip(plan.sentences, sentences, strict=True):
        if planned.n_citations != len(sentence.citations):
            raise RuntimeError(
                f"'{sentence.text}': {len(sentence.citations)} citations parsed, "
                f"{planned.n_citations} planned"
            )
        facts = planned.facts if planned.verifiable and sentence.has_valid_citation else ()
        out.append(GoldSentence(sentence, planned.verifiable, facts))
    return out


def _true_entailment(truth: VideoTruth, sentence: Sentence, fact: PlannedFact) -> Entailment:
    cited = [sentence.citations[i] for i in fact.citations]
    rest = [[c for i, c in enumerate(cited) if i != j] for j in range(len(cited))]
    return Entailment(
        all=supported(truth, fact.claims, cited),
        alone=[supported(truth, fact.claims, [c]) for c in cited],
        without=[supported(truth, fact.claims, r) for r in rest],
    )


def gold_record(response_id: str, truth: VideoTruth, gold: list[GoldSentence]) -> EvaluationRecord:
    """Every value known from the ground truth, each marked as coming from it."""
    sentences = []
    for g in gold:
        facts = []
        for fact in g.facts:
            k = len(fact.citations)
            provenance = {
                name: GOLD_PROVENANCE
                for name in ["text", "all", *(Task(q, j).value_name for q in PER_CITATION for j in range(k))]
            }
            facts.append(
                Fact(fact.text, list(fact.citations), _true_entailment(truth, g.sentence, fact), provenance)
            )
        sentences.append(
            Sentence(
                g.sentence.text,
                g.verifiable,
                list(g.sentence.citations),
                facts,
                g.sentence.start,
                g.sentence.end,
                {"verifiable": GOLD_PROVENANCE},
            )
        )
    return EvaluationRecord(response_id, "gold", sentences)
