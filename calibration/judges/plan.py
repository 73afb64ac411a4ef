"""How many calls a run would make now, and what they would cost — without making any.

`plan_run` walks every (configuration, response) pipeline against the cache. Calls whose
inputs are known and that are not cached are *needed* (exact); calls that depend on an
answer not known yet are *estimated*, under assumptions the plan states (`RunPlan.assumptions`)
and a test holds: when they hold, the plan's calls are the run's calls.
- a sentence whose verifiability is pending is verifiable (stage 2 is an upper bound);
- a pending decomposition gives as many facts as gold has for that sentence (else gold's mean
  per sentence, else 2), each citing every valid citation of the sentence, and a fact with 3 or
  more citations gets every `without` question; configurations that share the decomposition and
  the entailer share these calls, as a run shares them through the cache;
- a call costs the judge's observed mean tokens for its stage when the cache has any, else
  rough defaults (the prompt's characters / 4 and a fixed count per media part and per answer).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from calibration.judges.cache import CallCache
from calibration.judges.judges_file import Configuration, JudgeConfig
from calibration.judges.parsing import parse_answer
from calibration.judges.pipeline import Answer, CallSpec, project_pipelines

DEFAULT_FACTS_PER_SENTENCE = 2.0  # planning guess when neither answers nor gold say better
_TOKENS_PER_PART = {"frame": 300, "video": 250, "audio": 100}  # rough, per part, for estimates
_TOKENS_OUT = {"verifiability": 60, "decompose": 150, "entailment": 60}


@dataclass
class RunPlan:
    """What a run would cost now. `needed` calls are known and not cached; `estimated` are
    calls that depend on answers not known yet (upper bound for stage 2, a guess for stage 3)."""

    configurations: list[str]
    pipelines: int = 0
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    cached: int = 0
    needed: int = 0
    estimated: float = 0.0
    estimated_cost: float = 0.0
    by_stage: dict = field(default_factory=dict)
    by_judge: dict = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)

    @property
    def calls_to_make(self) -> int:
        return self.needed + round(self.estimated)

    def to_dict(self) -> dict:
        return {**asdict(self), "calls_to_make": self.calls_to_make}


def estimated_cost(judge: JudgeConfig, spec: CallSpec | None, stage: str, cache: CallCache) -> float:
    """Expected price of one call (of `spec`, or a typical one of `stage` when None)."""
    observed = cache.mean_usage(judge.model, stage)
    if observed is not None:
        tokens_in, tokens_out = observed
    else:
        tokens_in = (
            len(spec.prompt) / 4 + sum(_TOKENS_PER_PART[p.kind] for p in spec.parts)
            if spec is not None
            else 400
        )
        tokens_out = _TOKENS_OUT[stage]
    return judge.cost(tokens_in, tokens_out)


class _PlanCounter:
    """Answers a dry run's pipelines from the cache alone and counts what a run would still ask."""

    def __init__(self, cache: CallCache, plan: RunPlan, facts_per_sentence: float):
        self.cache, self.plan, self.facts_per_sentence = cache, plan, facts_per_sentence
        self.seen: dict[str, Answer] = {}
        self.estimated_for: set[tuple[str, str]] = set()  # (entailer, pending decomposition) counted

    def tally(self, judge: JudgeConfig, stage: str, kind: str, count: float, cost: float) -> None:
        self.plan.by_stage.setdefault(stage, {"cached": 0, "needed": 0, "estimated": 0.0})[kind] += count
        entry = self.plan.by_judge.setdefault(
            judge.name, {"cached": 0, "needed": 0, "estimated": 0.0, "cost": 0.0}
        )
        entry[kind] += count
        entry["cost"] += cost
        self.plan.estimated_cost += cost

    def ask(self, specs: list[CallSpec]) -> list[Answer]:
        for spec in specs:
            if spec.key in self.seen:
                continue
            record = self.cache.answered(spec.key)
            if record is not None:
                parsed = parse_answer(spec.stage, record.response, spec.n_citations)
                self.seen[spec.key] = Answer(spec.key, "answered", parsed)
                self.plan.cached += 1
                self.tally(spec.judge, spec.stage, "cached", 1, 0.0)
            else:
                self.seen[spec.key] = Answer(spec.key, "pending")
                self.plan.needed += 1
                self.tally(
                    spec.judge,
                    spec.stage,
                    "needed",
                    1,
                    estimated_cost(spec.judge, spec, spec.stage, self.cache),
                )
        return [self.seen[spec.key] for spec in specs]

    def unknown_facts(self, entailer: JudgeConfig, sentence, gold_sentence, decomposition: str) -> None:
        """Entailment calls for facts a decomposer has not written yet (see the module doc): as many
        facts as gold has for the sentence (else the mean), and the questions PROTOCOL §2 leaves to
        ask (all; alone from 2 valid citations; without from 3). Once per entailer and pending
        decomposition: configurations sharing both make these calls once."""
        if (entailer.name, decomposition) in self.estimated_for:
            return
        self.estimated_for.add((entailer.name, decomposition))
        facts = len(gold_sentence.facts) if gold_sentence is not None and gold_sentence.facts else None
        k = len(sentence.valid_citation_indices)
        per_fact = 1 + (k if k >= 2 else 0) + (k if k >= 3 else 0)
        calls = (self.facts_per_sentence if facts is None else facts) * per_fact
        self.plan.estimated += calls
        self.tally(
            entailer,
            "entailment",
            "estimated",
            calls,
            calls * estimated_cost(entailer, None, "entailment", self.cache),
        )


ASSUMPTIONS = (
    "a sentence whose verifiability is not known yet is verifiable",
    "a decomposition not made yet gives as many facts as gold has for the sentence (else {mean}), "
    "each citing all the sentence's valid citations",
    "a call costs the judge's mean tokens in the cache for its stage, else a rough default",
)


def plan_run(
    store: ProjectStore,
    judges: dict[str, JudgeConfig],
    configurations: list[Configuration],
    responses: str | list[str] = "gold",
) -> RunPlan:
    """Count the calls a run would make (after the cache) and their cost; makes no call."""
    plan = RunPlan([c.id for c in configurations])
    gold_facts = [
        len(s.facts)
        for r in project_state(store).gold.records
        for s in r.sentences
        if s.verifiable and s.has_valid_citation and s.facts
    ]
    facts_per_sentence = sum(gold_facts) / len(gold_facts) if gold_facts else DEFAULT_FACTS_PER_SENTENCE
    counter = _PlanCounter(CallCache(store), plan, facts_per_sentence)
    mean = f"gold's mean, {facts_per_sentence:.2g} a sentence" if gold_facts else f"{facts_per_sentence:.2g}"
    plan.assumptions = [text.format(mean=mean) for text in ASSUMPTIONS]
    for configuration, response_id, pipeline in project_pipelines(
        store, judges, configurations, responses, counter.ask, counter.unknown_facts
    ):
        if isinstance(pipeline, str):
            plan.skipped.append((configuration.id, response_id, pipeline))
            continue
        plan.pipelines += 1
        pipeline.run()
    return plan
