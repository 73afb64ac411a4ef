"""`python -m calibration judge …` through its real parser, against the test server on 127.0.0.1."""

# The project and server fixtures are imported from test_judges_run and used as parameters
# (ruff reads them as unused imports redefined): shared pytest fixtures without a conftest.
from __future__ import annotations

import argparse

from calibration.cli.judge import add_judge_parser

SECRET = "sk-test-7f3a9c"


def judges_file(tmp_path, base_url: str, extra: str = "") -> str:
    path = tmp_path / "judges.toml"
    path.write_text(
        f'[judges.j]\nadapter = "openai"\nmodel = "test-model"\nbase_urls = ["{base_url}"]\n'
        f'api_key_env = "TEST_JUDGE_KEY"\nbackoff_base_s = 0.001\nprice_in_per_1k = 0.01\n{extra}'
    )
    return str(path)


def run_all(judge_project, judge_endpoint, tmp_path, *options: str) -> int:
    """`judge run` of configuration j+j+j on every response of the project, with `options`."""
    project, judges = str(judge_project.directory), judges_file(tmp_path, judge_endpoint.base_url)
    return cli(
        "judge",
        "run",
        "--project",
        project,
        "--judges",
        judges,
        "--config",
        "j+j+j",
        "--responses",
        "all",
        *options,
    )


def cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="calibration")
    add_judge_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    return args.func(args)


def test_dry_run_prints_the_calls_needed_and_spends_nothing(
    judge_project, judge_endpoint, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("TEST_JUDGE_KEY", SECRET)
    code = run_all(judge_project, judge_endpoint, tmp_path, "--dry-run")
    out = capsys.readouterr().out
    assert code == 0 and judge_endpoint.log == []
    assert "verifiability: 6 call(s) needed, 0 cached" in out and "decompose: 4 call(s) needed" in out


def test_run_sends_the_key_but_never_prints_or_stores_it(
    judge_project, judge_endpoint, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("TEST_JUDGE_KEY", SECRET)
    code = run_all(judge_project, judge_endpoint, tmp_path)
    captured = capsys.readouterr()
    assert code == 0 and "records: 2 complete" in captured.out
    assert {r.authorization for r in judge_endpoint.log} == {f"Bearer {SECRET}"}
    assert SECRET not in captured.out + captured.err
    stored = b"".join(p.read_bytes() for p in judge_project.directory.rglob("*") if p.is_file())
    assert SECRET.encode() not in stored


def test_unset_key_variable_is_bad_input_before_any_call(
    judge_project, judge_endpoint, tmp_path, capsys, monkeypatch
):
    monkeypatch.delenv("TEST_JUDGE_KEY", raising=False)
    code = run_all(judge_project, judge_endpoint, tmp_path, "--no-progress")
    assert code == 2 and judge_endpoint.log == []
    assert capsys.readouterr().err.splitlines() == [
        f"error: {tmp_path / 'judges.toml'}, line 5, field 'judges.j.api_key_env': "
        "judge 'j': environment variable TEST_JUDGE_KEY is not set"
    ]


def test_judges_file_problems_are_located_and_exit_2(judge_project, judge_endpoint, tmp_path, capsys):
    path = judges_file(tmp_path, judge_endpoint.base_url, extra="max_concurency = 4\n")
    code = cli("judge", "list", "--judges", path)
    err = capsys.readouterr().err
    assert code == 2 and f"{path}, line 8, field 'judges.j.max_concurency': unknown key" in err


def test_budget_stop_exits_1_and_says_what_was_left(
    judge_project, judge_endpoint, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("TEST_JUDGE_KEY", SECRET)
    code = run_all(judge_project, judge_endpoint, tmp_path, "--max-calls", "3", "--no-progress")
    out = capsys.readouterr().out
    assert code == 1 and len(judge_endpoint.log) == 3
    assert "stopped early: budget: --max-calls 3 reached" in out and "left without a record (2)" in out


def test_failed_calls_say_why_even_when_the_budget_stops_the_run(
    judge_project, closed_endpoint, tmp_path, capsys, monkeypatch
):
    # QA walk: "failed 3" and "stopped early: budget", and the refused connections never said
    monkeypatch.setenv("TEST_JUDGE_KEY", SECRET)
    judges = judges_file(tmp_path, closed_endpoint, extra="max_retries = 1\n")
    code = cli(
        "judge", "run", "--project", str(judge_project.directory), "--judges", judges,
        "--config", "j+j+j", "--responses", "all", "--max-calls", "3", "--no-progress",
    )  # fmt: skip
    out = capsys.readouterr().out.splitlines()
    assert code == 1 and "stopped early: budget: --max-calls 3 reached" in out
    reported = out.index("failed calls (3), by error:")
    count, error = out[reported + 1].split(" × ", 1)
    assert count == "  3" and error.startswith(f"connection failed: {closed_endpoint}/chat/completions: ")
    assert "Connection refused" in error


def test_a_run_says_how_many_values_the_judges_answers_did_not_give_and_why(
    judge_project, tmp_path, capsys, monkeypatch
):
    # QA (pass 3): every answer unreadable, and the run said "failed 0, 24 complete", nothing more
    from judge_server import JudgeServer, scripted_answer

    def hedging(stage, prompt, kinds, model):
        if stage == "verifiability" and "waves his hand" in prompt.split("Sentence to judge:")[1]:
            return "Hard to say, it might be."
        return scripted_answer(stage, prompt, kinds, model)

    monkeypatch.setenv("TEST_JUDGE_KEY", SECRET)
    with JudgeServer(hedging) as server:
        code = cli(
            "judge", "run", "--project", str(judge_project.directory),
            "--judges", judges_file(tmp_path, server.base_url),
            "--config", "j+j+j", "--responses", "all", "--no-progress",
        )  # fmt: skip
    out = capsys.readouterr().out.splitlines()
    said = next(i for i, line in enumerate(out) if line.startswith("values the judges' answers did not give"))
    assert code == 0 and out[said].startswith(
        "values the judges' answers did not give (1; null in the records"
    )
    count, reason = out[said + 1].split(" × ", 1)
    assert count == "  1" and "verifiable" in reason
