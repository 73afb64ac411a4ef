"""The judges TOML file, API keys from the environment, and `V+D+E` configurations."""

from __future__ import annotations

import sys

import pytest

from annotation.protocol.errors import InputError
from calibration.judges.adapters import make_adapter
from calibration.judges.judges_file import load_judges, parse_configuration

GOOD = """\
[judges.qwen-omni]
adapter = "openai"
model = "Qwen/Qwen3-Omni-30B-A3B-Instruct"
base_urls = ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1/"]
api_key_env = "VLLM_API_KEY"
max_concurrency = 16
temperature = 0
price_in_per_1k = 0.5

[judges.gemini-flash]
adapter = "gemini"
model = "gemini-2.5-flash"
max_clip_s = 30
"""


def write(tmp_path, text: str):
    path = tmp_path / "judges.toml"
    path.write_text(text)
    return path


def problems_of(path) -> list:
    with pytest.raises(InputError) as caught:
        load_judges(path)
    return caught.value.problems


def test_judges_file_gives_the_configured_values_and_defaults(tmp_path):
    judges = load_judges(write(tmp_path, GOOD))
    qwen, gemini = judges["qwen-omni"], judges["gemini-flash"]
    assert qwen.base_urls == ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1")
    assert (qwen.max_concurrency, qwen.temperature, qwen.price_in_per_1k) == (16, 0.0, 0.5)
    assert (gemini.adapter, gemini.max_clip_s, gemini.max_concurrency, gemini.api_key_env) == (
        "gemini",
        30.0,
        4,
        None,
    )


def test_toml_syntax_error_names_the_file_and_line(tmp_path):
    path = write(tmp_path, '[judges.a]\nadapter = "openai"\nmodel = \n')
    [problem] = problems_of(path)
    assert (problem.path, problem.line) == (str(path), 3)


def test_unknown_key_is_reported_with_its_line_and_field(tmp_path):
    path = write(tmp_path, GOOD.replace("max_clip_s = 30", "max_clips = 30"))
    [problem] = problems_of(path)
    assert (problem.line, problem.field) == (13, "judges.gemini-flash.max_clips")
    assert "unknown key" in problem.message


def test_wrong_type_is_reported_with_its_line_and_field(tmp_path):
    path = write(tmp_path, GOOD.replace("max_concurrency = 16", 'max_concurrency = "16"'))
    [problem] = problems_of(path)
    assert (problem.line, problem.field) == (6, "judges.qwen-omni.max_concurrency")


def test_every_problem_of_the_file_is_reported_at_once(tmp_path):
    text = GOOD.replace("temperature = 0", "temperature = -1").replace(
        'adapter = "gemini"', 'adapter = "bard"'
    )
    fields = {p.field for p in problems_of(write(tmp_path, text))}
    assert fields == {"judges.qwen-omni.temperature", "judges.gemini-flash.adapter"}


def test_judge_named_gold_is_refused(tmp_path):
    [problem] = problems_of(
        write(
            tmp_path,
            '[judges.gold]\nadapter = "openai"\nmodel = "m"\nbase_urls = ["http://127.0.0.1:1/v1"]\n',
        )
    )
    assert (problem.line, problem.field) == (1, "judges.gold")


def test_openai_judge_without_an_endpoint_is_refused(tmp_path):
    [problem] = problems_of(write(tmp_path, '[judges.a]\nadapter = "openai"\nmodel = "m"\n'))
    assert problem.field == "judges.a.base_urls"


def test_a_key_written_into_the_file_is_refused_without_echoing_it(tmp_path):
    path = write(tmp_path, GOOD.replace('"VLLM_API_KEY"', '"sk-live abc"'))
    [problem] = problems_of(path)
    assert problem.field == "judges.qwen-omni.api_key_env" and "sk-live" not in str(problem)


def test_api_key_comes_from_the_named_environment_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("VLLM_API_KEY", "secret-value")
    judge = load_judges(write(tmp_path, GOOD))["qwen-omni"]
    assert judge.api_key() == "secret-value"
    assert "secret-value" not in repr(judge)


def test_unset_key_variable_is_named_in_the_error(tmp_path, monkeypatch):
    monkeypatch.delenv("VLLM_API_KEY", raising=False)
    judge = load_judges(write(tmp_path, GOOD))["qwen-omni"]
    with pytest.raises(InputError, match="VLLM_API_KEY is not set"):
        judge.api_key()


def test_unset_key_variable_is_located_in_the_judges_file(tmp_path, monkeypatch):
    # QA walk: the error said "<input>, field 'api_key_env'", and not which file or judge
    monkeypatch.delenv("VLLM_API_KEY", raising=False)
    path = write(tmp_path, GOOD)
    judge = load_judges(path)["qwen-omni"]
    with pytest.raises(InputError) as caught:
        judge.api_key()
    [problem] = caught.value.problems
    assert (problem.path, problem.line, problem.field) == (str(path), 5, "judges.qwen-omni.api_key_env")


def test_configuration_source_is_the_judge_prefixed_id(tmp_path):
    judges = load_judges(write(tmp_path, GOOD))
    configuration = parse_configuration("qwen-omni+gold+gemini-flash", judges)
    assert configuration.source == "judge:qwen-omni+gold+gemini-flash"


@pytest.mark.parametrize(
    "text, message",
    [
        ("qwen-omni+nobody+gold", "unknown judge"),
        ("qwen-omni+qwen-omni", "is not VERIFIER"),
        ("gold+gold+gold", "has no judge"),
        ("gold+qwen-omni+gold", "gold entailment needs gold facts"),
    ],
)
def test_configuration_that_cannot_run_is_refused(tmp_path, text, message):
    judges = load_judges(write(tmp_path, GOOD))
    with pytest.raises(InputError, match=message) as caught:
        parse_configuration(text, judges)
    assert caught.value.problems[0].field == "--config"


def test_gemini_judge_without_the_google_genai_package_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "google.genai", None)  # as if not installed
    judge = load_judges(write(tmp_path, GOOD))["gemini-flash"]
    with pytest.raises(InputError, match="pip install google-genai") as caught:
        make_adapter(judge, None)
    [problem] = caught.value.problems
    assert (problem.path, problem.line, problem.field) == (
        str(tmp_path / "judges.toml"),
        11,
        "judges.gemini-flash.adapter",
    )
