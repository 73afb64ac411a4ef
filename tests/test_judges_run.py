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

import pytest
from judge_server import JudgeServer, make_project, make_video, scripted_answer

from annotation.records import EvaluationRecord, Fact, Sentence
from calibration.judges.cache import CallCache
from calibration.judges.config import JudgeConfig, parse_configuration
from calibration.judges.plan import plan_run
from calibration.judges.runner import assemble_records, run_configurations

CALLS_PER_CONFIGURATION = 19

# response → per sentence: (verifiable, [(fact, citations, all, alone, without)])
EXPECTED = {
    "r1": [(True, [("The man waves his hand.", [0], True, [True], [False])]),
           (True, [("He says hello.", [0], True, [True], [False])]),
           (False, [])],
    "r2": [(True, [("A red ball rolls.", [0, 1], True, [True, False], [False, True]),
                   ("A bell rings.", [0, 1], True, [False, True], [True, False])]),
           (True, [("The ball stops.", [0, 1], True, [True, False], [False, True])]),
           (False, [])],
}


def summary(record: EvaluationRecord) -> list:
    return [(s.verifiable, [(f.text, f.citations, f.entailment.all, f.entailment.alone, f.entailment.without)
                            for f in s.facts]) for s in record.sentences]


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    return make_video(tmp_path_factory.mktemp("media") / "clip.mp4")


@pytest.fixture
def store(tmp_path, video):
    return make_project(tmp_path / "project", video)


@pytest.fixture
def server():
    with JudgeServer() as running:
        yield running


def judge_at(server, name: str = "j", model: str = "test-model", **overrides) -> JudgeConfig:
    fields = {"backoff_base_s": 0.001, "backoff_max_s": 0.01, "timeout_s": 2.0, **overrides}
    return JudgeConfig(name, "openai", model, (server.base_url,), **fields)


def run(store, judges, *config_ids, **options):
    configurations = [parse_configuration(c, judges) for c in config_ids]
    return run_configurations(store, judges, configurations, responses="all", **options)


def test_run_yields_the_expected_records(store, server):
    judges = {"j": judge_at(server)}
    report = run(store, judges, "j+j+j")
    assert {r.response_id: summary(r) for r in report.records} == EXPECTED
    stored = store.list_records("judge:j+j+j")
    assert {r.response_id: summary(r) for r in stored} == EXPECTED
    assert report.calls_made == CALLS_PER_CONFIGURATION and report.incomplete == []


def test_identical_second_run_makes_zero_requests(store, server):
    judges = {"j": judge_at(server)}
    run(store, judges, "j+j+j")
    requests_after_first = len(server.log)
    second = run(store, judges, "j+j+j")
    assert len(server.log) == requests_after_first
    assert second.calls_made == 0 and second.cache_hits == CALLS_PER_CONFIGURATION
    assert second.records_written == 0  # identical records are not stored twice


def test_run_stopped_midway_and_resumed_makes_no_duplicate_requests(store, server):
    judges = {"j": judge_at(server)}
    stop = threading.Event()

    def stop_after_five(progress):
        if progress.calls_done >= 5:
            stop.set()

    first = run(store, judges, "j+j+j", concurrency=2, stop=stop, progress=stop_after_five)
    assert first.stopped and first.incomplete and first.calls_made < CALLS_PER_CONFIGURATION
    second = run(store, judges, "j+j+j", concurrency=2)
    assert {r.response_id: summary(r) for r in second.records} == EXPECTED
    assert first.calls_made + second.calls_made == CALLS_PER_CONFIGURATION
    answered = server.answered()
    assert len(answered) == CALLS_PER_CONFIGURATION and set(answered.values()) == {1}


def test_max_calls_budget_stops_cleanly_and_a_rerun_finishes_the_rest(store, server):
    judges = {"j": judge_at(server)}
    first = run(store, judges, "j+j+j", max_calls=7)
    assert first.calls_made == 7 and first.stopped == "budget: --max-calls 7 reached"
    assert len(first.incomplete) == 2 and first.records == [] and store.list_records("judge:") == []
    second = run(store, judges, "j+j+j")
    assert second.calls_made == CALLS_PER_CONFIGURATION - 7
    assert set(server.answered().values()) == {1}


def test_max_cost_budget_is_not_exceeded(store, server):
    judges = {"j": judge_at(server, price_in_per_1k=1.0, price_out_per_1k=1.0)}
    report = run(store, judges, "j+j+j", max_cost=2.0, concurrency=1)
    assert report.stopped == "budget: --max-cost 2 reached"
    assert 0 < report.cost <= 2.0


def test_thirty_percent_injected_failures_lose_nothing_and_never_count_as_no(store, video, tmp_path):
    with JudgeServer(failure_rate=0.3, seed=7, timeout_sleep_s=2.0) as flaky:
        for kind in ("429", "500", "timeout", "malformed"):  # each kind at least once
            flaky.fail_next(kind)
        judges = {"j": judge_at(flaky, timeout_s=1.0, max_retries=12)}  # 1 s: a loaded CI box must not time out a normal answer
        report = run(store, judges, "j+j+j", concurrency=4)
        statuses = flaky.statuses()
        answered = flaky.answered()
    assert {r.response_id: summary(r) for r in report.records} == EXPECTED
    assert {"429", "500", "timeout", "malformed"} <= set(statuses)
    assert report.retries == sum(n for status, n in statuses.items() if status != "200")
    assert len(answered) == CALLS_PER_CONFIGURATION and set(answered.values()) == {1}


def test_unparseable_answer_is_undetermined_and_its_raw_text_is_kept(store):
    def hedging(stage, prompt, kinds, model):
        if stage == "verifiability" and "waves his hand" in prompt.split("Sentence to judge:")[1]:
            return "Hard to say, it might be."
        return scripted_answer(stage, prompt, kinds, model)

    with JudgeServer(hedging) as server:
        report = run(store, {"j": judge_at(server)}, "j+j+j")
    first = next(r for r in report.records if r.response_id == "r1").sentences[0]
    assert first.verifiable is None and first.facts == []
    assert first.provenance["verifiable"]["raw"] == "Hard to say, it might be."
    call = CallCache(store).get(first.provenance["verifiable"]["call"])
    assert call.response == "Hard to say, it might be." and call.parsed["value"] is None


def test_call_failing_after_its_retries_leaves_no_record_and_a_rerun_completes(store, server):
    judges = {"j": judge_at(server, max_retries=1)}
    server.fail_next("500", 2)
    first = run(store, judges, "j+j+j", concurrency=1)
    assert first.failed == 1 and len(first.records) == 1
    assert "failed after retries" in first.incomplete[0][2]
    second = run(store, judges, "j+j+j")
    assert first.calls_made + second.calls_made == CALLS_PER_CONFIGURATION
    assert {r.response_id: summary(r) for r in store.list_records("judge:")} == EXPECTED


def test_dry_run_spends_nothing_and_counts_the_calls(store, server):
    judges = {"j": judge_at(server)}
    configurations = [parse_configuration("j+j+j", judges)]
    before = plan_run(store, judges, configurations, responses="all")
    assert server.log == []
    assert (before.needed, before.cached) == (6 + 4, 0) and before.estimated > 0
    run(store, judges, "j+j+j")
    after = plan_run(store, judges, configurations, responses="all")
    assert (after.needed, after.cached, after.estimated) == (0, CALLS_PER_CONFIGURATION, 0)


def test_configurations_that_share_stages_share_their_calls(store, server):
    judges = {"j": judge_at(server), "k": judge_at(server, "k", model="other-model")}
    report = run(store, judges, "j+j+j", "j+j+k", "j+k+j")
    # j+j+k adds only k's 9 entailment calls; j+k+j adds k's 4 decompositions, and its facts are
    # the same text, so j's entailment calls are reused
    assert len(server.log) == CALLS_PER_CONFIGURATION + 9 + 4
    assert len(report.records) == 6


def test_invalid_citation_is_never_sent_to_the_judge(store, server):
    run(store, {"j": judge_at(server)}, "j+j+j")
    stops = [r for r in server.log if r.stage == "entailment" and "The ball stops." in r.prompt]
    assert [r.part_kinds for r in stops] == [["frame"]]


def test_media_parts_go_as_data_urls_by_default(store, server):
    run(store, {"j": judge_at(server)}, "j+j+j")
    urls = {url.split(",")[0] for r in server.log for url in r.part_urls}
    assert urls == {"data:video/mp4;base64", "data:audio/wav;base64", "data:image/jpeg;base64"}


def test_media_parts_go_as_file_urls_when_the_endpoint_reads_local_files(store, server):
    run(store, {"j": judge_at(server, media_transport="file")}, "j+j+j")
    assert {url[:8] for r in server.log for url in r.part_urls} == {"file:///"}


def test_records_reassemble_from_the_cache_with_zero_requests(store, server):
    judges = {"j": judge_at(server)}
    report = run(store, judges, "j+j+j")
    requests = len(server.log)
    rebuilt = assemble_records(store, judges, [parse_configuration("j+j+j", judges)], responses="all",
                               write=False)
    assert [r.to_dict() for r in rebuilt.records] == [r.to_dict() for r in report.records]
    assert len(server.log) == requests and rebuilt.calls_made == 0


def test_assembling_without_cached_calls_makes_no_request_and_lists_what_is_missing(store, server):
    judges = {"j": judge_at(server)}
    rebuilt = assemble_records(store, judges, [parse_configuration("j+j+j", judges)], responses="all")
    assert server.log == [] and rebuilt.records == [] and len(rebuilt.incomplete) == 2


def _gold(store, verifiable: dict[tuple[str, int], bool], facts: dict[tuple[str, int], list[Fact]]):
    records = []
    for response_id in store.response_ids():
        sentences = [Sentence(s.text, verifiable.get((response_id, i), False), list(s.citations),
                              facts.get((response_id, i), []), s.start, s.end)
                     for i, s in enumerate(store.response_sentences(response_id))]
        records.append(EvaluationRecord(response_id, "gold", sentences))
    store.add_records(records)


def test_gold_verifier_takes_the_gold_verifiable_labels(store, server):
    _gold(store, {("r1", 1): True, ("r2", 0): True}, {})
    report = run(store, {"j": judge_at(server)}, "gold+j+j")
    assert [s.verifiable for s in report.records[0].sentences] == [False, True, False]
    assert not any(r.stage == "verifiability" for r in server.log)


def test_judge_entails_gold_facts_and_a_sentence_without_gold_facts_gets_a_note(store, server):
    gold_fact = Fact("A man waves.", [0])
    _gold(store, {("r1", 0): True}, {("r1", 0): [gold_fact]})
    report = run(store, {"j": judge_at(server)}, "j+gold+j")
    r1 = next(r for r in report.records if r.response_id == "r1")
    assert [(f.text, f.entailment.all) for f in r1.sentences[0].facts] == [("A man waves.", True)]
    assert r1.sentences[1].facts == [] and "gold has no facts" in r1.sentences[1].provenance["facts"]["undetermined"]
