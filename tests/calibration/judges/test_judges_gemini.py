"""The Gemini adapter through the real google-genai client, against tests/judge_server.py speaking
Gemini's REST API (generateContent) on 127.0.0.1: the same project and hand-computed records as
test_judges_run.py, media sent inline with their MIME types, the key in Gemini's header, and
Gemini's errors retried or reported like any other endpoint's."""

from __future__ import annotations

import pytest
from judge_server import CALLS_PER_CONFIGURATION, EXPECTED, JudgeServer, summary

from calibration.judges.judges_file import JudgeConfig, parse_configuration
from calibration.judges.runner import run_configurations


@pytest.fixture(autouse=True)
def _google_genai():
    """Imported by the tests that use it (≈ 0.8 CPU s), not by every test process as it collects."""
    pytest.importorskip("google.genai", reason="the gemini adapter's package, pinned in requirements.txt")


def gemini_judge(judge_endpoint, monkeypatch, **overrides) -> dict[str, JudgeConfig]:
    monkeypatch.setenv("TEST_GEMINI_KEY", "test-key-123")
    fields = {
        "backoff_base_s": 0.001,
        "backoff_max_s": 0.01,
        "timeout_s": 2.0,
        "api_key_env": "TEST_GEMINI_KEY",
        **overrides,
    }
    return {"g": JudgeConfig("g", "gemini", "gemini-test", (judge_endpoint.gemini_base_url,), **fields)}


def run(judge_project, judges, **options):
    return run_configurations(
        judge_project, judges, [parse_configuration("g+g+g", judges)], responses="all", **options
    )


def test_gemini_judge_yields_the_same_records_as_any_other_endpoint(judge_project, monkeypatch):
    with JudgeServer() as server:
        report = run(judge_project, gemini_judge(server, monkeypatch))
        log = list(server.log)
    assert {r.response_id: summary(r) for r in report.records} == EXPECTED
    assert report.calls_made == CALLS_PER_CONFIGURATION == len(log)
    assert {entry.authorization for entry in log} == {"test-key-123"}


def test_gemini_receives_each_segment_inline_with_its_media_type(judge_project, monkeypatch):
    with JudgeServer() as server:
        run(judge_project, gemini_judge(server, monkeypatch))
        sent = {(tuple(e.part_kinds), tuple(e.part_urls)) for e in server.log if e.stage == "entailment"}
    assert (("video",), ("video/mp4",)) in sent and (("audio",), ("audio/wav",)) in sent
    assert all(kinds == () for e in server.log if e.stage != "entailment" for kinds in [tuple(e.part_kinds)])


def test_gemini_rate_limits_errors_timeouts_and_cut_off_replies_are_retried(judge_project, monkeypatch):
    # A timeout from google-genai's transport (httpx2) ended the whole run, and a cut-off body
    # counted as bad input, before the adapter caught them.
    with JudgeServer(timeout_sleep_s=2.0) as server:
        for kind in ("429", "500", "timeout", "malformed"):
            server.fail_next(kind)
        report = run(judge_project, gemini_judge(server, monkeypatch, timeout_s=1.0), concurrency=1)
        statuses = server.statuses()
    assert {r.response_id: summary(r) for r in report.records} == EXPECTED
    assert all(statuses[kind] == 1 for kind in ("429", "500", "timeout", "malformed"))
    assert report.retries == 4 and report.incomplete == []


def test_gemini_call_failing_after_its_retries_is_reported_not_recorded(judge_project, monkeypatch):
    with JudgeServer() as server:
        server.fail_next("500", 2)
        report = run(judge_project, gemini_judge(server, monkeypatch, max_retries=1), concurrency=1)
    assert report.failed == 1 and "Gemini error 500" in report.incomplete[0][2]
