"""The judge runner against a real OpenAI-compatible server on 127.0.0.1 (tests/judge_server.py).

The project holds two responses on a generated 6 s clip (see judge_server.RESPONSES); the
server answers by `scripted_answer`'s rules, so every record below is computed by hand:
r1: "waves his hand" (visual span) and "says hello" (audio span), one citation each → one
`all` call per fact; r2: "A red ball rolls and a bell rings (visual, 0:02; audio, 0:02-0:04)"
→ two facts with k = 2 → `all` + two `alone` each, `without` derived; "The ball stops
(visual, 0:05; visual, 0:75)" → the invalid 0:75 is never sent, one call. Per configuration:
6 verifiability + 4 decompose + 9 entailment = 19 calls.
"""

from __future__ import annotations

import threading

from judge_server import CALLS_PER_CONFIGURATION, EXPECTED, JudgeServer, scripted_answer, summary

from annotation.protocol.records import EvaluationRecord, Fact, Sentence
from calibration.judges.cache import CallCache
from calibration.judges.judges_file import JudgeConfig, parse_configuration
from calibration.judges.plan import plan_run
from calibration.judges.runner import assemble_records, run_configurations


def judge_at(judge_endpoint, name: str = "j", model: str = "test-model", **overrides) -> JudgeConfig:
    fields = {"backoff_base_s": 0.001, "backoff_max_s": 0.01, "timeout_s": 2.0, **overrides}
    return JudgeConfig(name, "openai", model, (judge_endpoint.base_url,), **fields)


def run(judge_project, judges, *config_ids, **options):
    configurations = [parse_configuration(c, judges) for c in config_ids]
    return run_configurations(judge_project, judges, configurations, responses="all", **options)


def test_run_yields_the_expected_records(judge_project, judge_endpoint):
    judges = {"j": judge_at(judge_endpoint)}
    report = run(judge_project, judges, "j+j+j")
    assert {r.response_id: summary(r) for r in report.records} == EXPECTED
    stored = judge_project.list_records(source="judge:j+j+j")
    assert {r.response_id: summary(r) for r in stored} == EXPECTED
    assert report.calls_made == CALLS_PER_CONFIGURATION and report.incomplete == []


def test_identical_second_run_makes_zero_requests(judge_project, judge_endpoint):
    judges = {"j": judge_at(judge_endpoint)}
    run(judge_project, judges, "j+j+j")
    requests_after_first = len(judge_endpoint.log)
    second = run(judge_project, judges, "j+j+j")
    assert len(judge_endpoint.log) == requests_after_first
    assert second.calls_made == 0 and second.cache_hits == CALLS_PER_CONFIGURATION
    assert second.records_written == 0  # identical records are not stored twice


def test_run_stopped_midway_and_resumed_makes_no_duplicate_requests(judge_project, judge_endpoint):
    judges = {"j": judge_at(judge_endpoint)}
    stop = threading.Event()

    def stop_after_five(progress):
        if progress.calls_done >= 5:
            stop.set()

    first = run(judge_project, judges, "j+j+j", concurrency=2, stop=stop, progress=stop_after_five)
    assert first.stopped and first.incomplete and first.calls_made < CALLS_PER_CONFIGURATION
    second = run(judge_project, judges, "j+j+j", concurrency=2)
    assert {r.response_id: summary(r) for r in second.records} == EXPECTED
    assert first.calls_made + second.calls_made == CALLS_PER_CONFIGURATION
    answered = judge_endpoint.answered()
    assert len(answered) == CALLS_PER_CONFIGURATION and set(answered.values()) == {1}


def test_max_calls_budget_stops_cleanly_and_a_rerun_finishes_the_rest(judge_project, judge_endpoint):
    judges = {"j": judge_at(judge_endpoint)}
    first = run(judge_project, judges, "j+j+j", max_calls=7)
    assert first.calls_made == 7 and first.stopped == "budget: --max-calls 7 reached"
    assert len(first.incomplete) == 2 and first.records == [] and judge_project.list_records("judge") == []
    second = run(judge_project, judges, "j+j+j")
    assert second.calls_made == CALLS_PER_CONFIGURATION - 7
    assert set(judge_endpoint.answered().values()) == {1}


def test_max_cost_budget_is_not_exceeded(judge_project, judge_endpoint):
    judges = {"j": judge_at(judge_endpoint, price_in_per_1k=1.0, price_out_per_1k=1.0)}
    report = run(judge_project, judges, "j+j+j", max_cost=2.0, concurrency=1)
    assert report.stopped == "budget: --max-cost 2 reached"
    assert 0 < report.cost <= 2.0


def test_thirty_percent_injected_failures_lose_nothing_and_never_count_as_no(
    judge_project, judge_clip, tmp_path
):
    with JudgeServer(failure_rate=0.3, seed=7, timeout_sleep_s=2.0) as flaky:
        for kind in ("429", "500", "timeout", "malformed"):  # each kind at least once
            flaky.fail_next(kind)
        judges = {
            "j": judge_at(flaky, timeout_s=1.0, max_retries=12)
        }  # 1 s: a loaded CI box must not time out a normal answer
        report = run(judge_project, judges, "j+j+j", concurrency=4)
        statuses = flaky.statuses()
        answered = flaky.answered()
    assert {r.response_id: summary(r) for r in report.records} == EXPECTED
    assert {"429", "500", "timeout", "malformed"} <= set(statuses)
    assert report.retries == sum(n for status, n in statuses.items() if status != "200")
    assert len(answered) == CALLS_PER_CONFIGURATION and set(answered.values()) == {1}


def test_unparseable_answer_is_undetermined_and_its_raw_text_is_kept(judge_project):
    def hedging(stage, prompt, kinds, model):
        if stage == "verifiability" and "waves his hand" in prompt.split("Sentence to judge:")[1]:
            return "Hard to say, it might be."
        return scripted_answer(stage, prompt, kinds, model)

    with JudgeServer(hedging) as server:
        report = run(judge_project, {"j": judge_at(server)}, "j+j+j")
    first = next(r for r in report.records if r.response_id == "r1").sentences[0]
    assert first.verifiable is None and first.facts == []
    assert first.provenance["verifiable"]["raw"] == "Hard to say, it might be."
    call = CallCache(judge_project).get(first.provenance["verifiable"]["call"])
    assert call.response == "Hard to say, it might be." and call.parsed["value"] is None


def test_call_failing_after_its_retries_leaves_no_record_and_a_rerun_completes(judge_project, judge_endpoint):
    judges = {"j": judge_at(judge_endpoint, max_retries=1)}
    judge_endpoint.fail_next("500", 2)
    first = run(judge_project, judges, "j+j+j", concurrency=1)
    assert first.failed == 1 and len(first.records) == 1
    assert "failed after retries" in first.incomplete[0][2]
    second = run(judge_project, judges, "j+j+j")
    assert first.calls_made + second.calls_made == CALLS_PER_CONFIGURATION
    assert {r.response_id: summary(r) for r in judge_project.list_records("judge")} == EXPECTED


def test_dry_run_spends_nothing_and_counts_the_calls(judge_project, judge_endpoint):
    judges = {"j": judge_at(judge_endpoint)}
    configurations = [parse_configuration("j+j+j", judges)]
    before = plan_run(judge_project, judges, configurations, responses="all")
    assert judge_endpoint.log == []
    assert (before.needed, before.cached) == (6 + 4, 0) and before.estimated > 0
    run(judge_project, judges, "j+j+j")
    after = plan_run(judge_project, judges, configurations, responses="all")
    assert (after.needed, after.cached, after.estimated) == (0, CALLS_PER_CONFIGURATION, 0)


def test_configurations_that_share_stages_share_their_calls(judge_project, judge_endpoint):
    judges = {"j": judge_at(judge_endpoint), "k": judge_at(judge_endpoint, "k", model="other-model")}
    report = run(judge_project, judges, "j+j+j", "j+j+k", "j+k+j")
    # j+j+k adds only k's 9 entailment calls; j+k+j adds k's 4 decompositions, and its facts are
    # the same text, so j's entailment calls are reused
    assert len(judge_endpoint.log) == CALLS_PER_CONFIGURATION + 9 + 4
    assert len(report.records) == 6


def test_invalid_citation_is_never_sent_to_the_judge(judge_project, judge_endpoint):
    run(judge_project, {"j": judge_at(judge_endpoint)}, "j+j+j")
    stops = [r for r in judge_endpoint.log if r.stage == "entailment" and "The ball stops." in r.prompt]
    assert [r.part_kinds for r in stops] == [["frame"]]


def test_media_parts_go_as_data_urls_by_default(judge_project, judge_endpoint):
    run(judge_project, {"j": judge_at(judge_endpoint)}, "j+j+j")
    urls = {url.split(",")[0] for r in judge_endpoint.log for url in r.part_urls}
    assert urls == {"data:video/mp4;base64", "data:audio/wav;base64", "data:image/jpeg;base64"}


def test_media_parts_go_as_file_urls_when_the_endpoint_reads_local_files(judge_project, judge_endpoint):
    run(judge_project, {"j": judge_at(judge_endpoint, media_transport="file")}, "j+j+j")
    assert {url[:8] for r in judge_endpoint.log for url in r.part_urls} == {"file:///"}


def test_records_reassemble_from_the_cache_with_zero_requests(judge_project, judge_endpoint):
    judges = {"j": judge_at(judge_endpoint)}
    report = run(judge_project, judges, "j+j+j")
    requests = len(judge_endpoint.log)
    rebuilt = assemble_records(
        judge_project, judges, [parse_configuration("j+j+j", judges)], responses="all", write=False
    )
    assert [r.to_dict() for r in rebuilt.records] == [r.to_dict() for r in report.records]
    assert len(judge_endpoint.log) == requests and rebuilt.calls_made == 0


def test_assembling_without_cached_calls_makes_no_request_and_lists_what_is_missing(
    judge_project, judge_endpoint
):
    judges = {"j": judge_at(judge_endpoint)}
    rebuilt = assemble_records(judge_project, judges, [parse_configuration("j+j+j", judges)], responses="all")
    assert judge_endpoint.log == [] and rebuilt.records == [] and len(rebuilt.incomplete) == 2


def _gold(judge_project, verifiable: dict[tuple[str, int], bool], facts: dict[tuple[str, int], list[Fact]]):
    records = []
    for response_id in judge_project.response_ids():
        sentences = [
            Sentence(
                s.text,
                verifiable.get((response_id, i), False),
                list(s.citations),
                facts.get((response_id, i), []),
                s.start,
                s.end,
            )
            for i, s in enumerate(judge_project.response_sentences(response_id))
        ]
        records.append(EvaluationRecord(response_id, "gold", sentences))
    judge_project.add_records(records)


def test_gold_verifier_takes_the_gold_verifiable_labels(judge_project, judge_endpoint):
    _gold(judge_project, {("r1", 1): True, ("r2", 0): True}, {})
    report = run(judge_project, {"j": judge_at(judge_endpoint)}, "gold+j+j")
    assert [s.verifiable for s in report.records[0].sentences] == [False, True, False]
    assert not any(r.stage == "verifiability" for r in judge_endpoint.log)


def test_judge_entails_gold_facts_and_a_sentence_without_gold_facts_gets_a_note(
    judge_project, judge_endpoint
):
    gold_fact = Fact("A man waves.", [0])
    _gold(judge_project, {("r1", 0): True}, {("r1", 0): [gold_fact]})
    report = run(judge_project, {"j": judge_at(judge_endpoint)}, "j+gold+j")
    r1 = next(r for r in report.records if r.response_id == "r1")
    assert [(f.text, f.entailment.all) for f in r1.sentences[0].facts] == [("A man waves.", True)]
    assert (
        r1.sentences[1].facts == []
        and "gold has no facts" in r1.sentences[1].provenance["facts"]["undetermined"]
    )


def test_calls_refused_under_a_call_budget_say_why_they_failed(judge_project, closed_endpoint):
    # QA walk: with --max-calls the refused connections were stored but every response said "budget"
    judges = {
        "j": JudgeConfig("j", "openai", "test-model", (closed_endpoint,), max_retries=1, backoff_base_s=0.001)
    }
    report = run(judge_project, judges, "j+j+j", max_calls=3)
    assert report.failed == 3 and report.stopped == "budget: --max-calls 3 reached"
    [(error, count)] = report.call_errors.items()
    assert count == 3 and error.startswith(f"connection failed: {closed_endpoint}/chat/completions: ")
    assert "Connection refused" in error
    # each of the three failed calls is the reason of the response that asked it, not the budget
    failed_here = [why for _, _, why in report.incomplete if "failed after retries" in why]
    assert sum(int(why.split(" call(s)")[0]) for why in failed_here) == 3
    assert all(why.endswith(error) for why in failed_here)
