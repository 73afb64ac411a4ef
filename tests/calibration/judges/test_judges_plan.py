"""The dry-run plan against a real run on the local OpenAI-compatible server (tests/judge_server.py):
when the plan's stated assumptions hold, it counts exactly the calls the run makes.

The project is judge_server.RESPONSES. Gold holds the facts the scripted judge writes (r1: one
fact in each of its two cited sentences; r2: two facts citing both segments, then one fact whose
second citation, 0:75, is invalid), so "as many facts as gold, each citing every valid citation"
holds. By hand, per configuration: 6 verifiability + 4 decompose + 9 entailment (1 + 1 + 2 × 3 + 1).
"""

from __future__ import annotations

from judge_server import CALLS_PER_CONFIGURATION

from annotation.protocol.records import EvaluationRecord, Fact, Sentence
from calibration.judges.judges_file import JudgeConfig, parse_configuration
from calibration.judges.plan import plan_run
from calibration.judges.runner import run_configurations

GOLD_FACTS = {
    ("r1", 0): [Fact("The man waves his hand.", [0])],
    ("r1", 1): [Fact("He says hello.", [0])],
    ("r2", 0): [Fact("A red ball rolls.", [0, 1]), Fact("A bell rings.", [0, 1])],
    ("r2", 1): [Fact("The ball stops.", [0])],
}


def judge_at(endpoint, name: str, model: str) -> JudgeConfig:
    return JudgeConfig(name, "openai", model, (endpoint.base_url,), backoff_base_s=0.001, timeout_s=2.0)


def with_gold(store) -> None:
    store.add_records(
        EvaluationRecord(
            rid,
            "gold",
            [
                Sentence(
                    s.text,
                    (rid, i) in GOLD_FACTS,
                    list(s.citations),
                    GOLD_FACTS.get((rid, i), []),
                    s.start,
                    s.end,
                )
                for i, s in enumerate(store.response_sentences(rid))
            ],
        )
        for rid in store.response_ids()
    )


def test_the_plan_counts_the_calls_the_run_makes_when_its_assumptions_hold(judge_project, judge_endpoint):
    with_gold(judge_project)
    judges = {"j": judge_at(judge_endpoint, "j", "test-model"), "k": judge_at(judge_endpoint, "k", "other")}
    # two verifiers, one decomposer and one entailer: the run makes stage 2 and 3 once for both
    configurations = [parse_configuration(c, judges) for c in ("j+j+j", "k+j+j")]
    plan = plan_run(judge_project, judges, configurations, responses="all")
    assert (plan.needed, plan.estimated) == (6 + 6 + 4, 9)
    report = run_configurations(judge_project, judges, configurations, responses="all")
    assert report.calls_made == len(judge_endpoint.log) == 6 + CALLS_PER_CONFIGURATION
    assert plan.calls_to_make == report.calls_made


def test_the_plan_states_its_assumptions(judge_project, judge_endpoint):
    judges = {"j": judge_at(judge_endpoint, "j", "test-model")}
    plan = plan_run(judge_project, judges, [parse_configuration("j+j+j", judges)], responses="all")
    assert plan.assumptions[0] == "a sentence whose verifiability is not known yet is verifiable"
    assert "as many facts as gold has for the sentence (else 2)" in plan.assumptions[1]
