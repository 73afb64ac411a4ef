"""The judges page (admin): the judges file without keys, a dry-run plan, a background run
against the scripted OpenAI-compatible server on 127.0.0.1 (tests/judge_server.py), and the
records it produced.

The project holds judge_server.RESPONSES (two responses, six sentences) on a generated clip;
with one judge `j` the run `j+j+j` over all responses makes 19 calls and stores one record
per response (see tests/test_judges_run.py for the hand count).
"""

import html

import pytest
from app_support import PEOPLE, password_hash, shown_text, signed_in_app
from judge_server import JudgeServer, make_project, make_video

from annotation.store.project_store import ProjectStore
from pages.widgets import judge_run

SECRET = "sk-test-Zq81-never-shown"
KEY_VARIABLE = "MURGAT_TEST_JUDGE_KEY"


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    return make_video(tmp_path_factory.mktemp("media") / "clip.mp4")


@pytest.fixture
def server():
    with JudgeServer() as running:
        yield running


def judges_toml(base_url: str, **extra) -> str:
    lines = [
        "[judges.j]",
        'adapter = "openai"',
        'model = "test-model"',
        f'base_urls = ["{base_url}"]',
        f'api_key_env = "{KEY_VARIABLE}"',
        "max_concurrency = 2",
        "price_in_per_1k = 0.5",
        "price_out_per_1k = 1.5",
        "backoff_base_s = 0.001",
        "timeout_s = 5.0",
    ]
    return "\n".join(lines + [f"{k} = {v}" for k, v in extra.items()]) + "\n"


@pytest.fixture
def project(tmp_path, video, server):
    directory = tmp_path / "p"
    store = make_project(directory, video)
    for name, role in PEOPLE:
        store.add_user(name, role, password_hash(name))  # hashed once per process
    (directory / "judges.toml").write_text(judges_toml(server.base_url))
    return directory


@pytest.fixture
def page(monkeypatch, project):
    monkeypatch.setenv(KEY_VARIABLE, SECRET)
    return signed_in_app(monkeypatch, project, "boss").switch_page("pages/judges.py").run()


def everything_on(app) -> str:
    """Every element's full content (tables included), to look for what must not be there."""
    return "\n".join(
        str(node.proto)
        for block in (app.main, app.sidebar)
        for node in block
        if getattr(node, "proto", None) is not None
    )


def plan_all_responses(app):
    app.radio(key="run_responses").set_value("all").run()
    return app.button(key="plan_run").click().run()


def finished_run(app, project):
    run = judge_run.latest_run(ProjectStore.open(project))
    assert run.wait(timeout_s=60), "the run did not finish within a minute"
    return app.run()


def test_the_judges_chosen_are_still_there_after_a_visit_to_another_page(page):
    every = list(page.multiselect(key="run_verifiers").options)  # the one judge, and gold
    page.multiselect(key="run_verifiers").set_value(every).run()
    app = page.switch_page("pages/admin.py").run().switch_page("pages/judges.py").run()
    assert list(app.multiselect(key="run_verifiers").value) == every and len(every) == 2


def test_judges_of_the_toml_are_listed_with_the_key_variable_named_not_its_value(page):
    [row] = page.dataframe[0].value.to_dict("records")
    assert (row["judge"], row["model"], row["max concurrency"]) == ("j", "test-model", 2)
    assert row["API key"] == f"${KEY_VARIABLE} (set)"
    assert SECRET not in everything_on(page)


def test_unset_key_variable_is_named_and_the_run_cannot_start(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "boss").switch_page("pages/judges.py").run()
    assert app.dataframe[0].value.to_dict("records")[0]["API key"] == f"${KEY_VARIABLE} (not set)"
    plan_all_responses(app)
    assert app.button(key="start_run").disabled and f"${KEY_VARIABLE}" in app.warning[0].value


def test_plan_counts_the_calls_still_needed_without_making_any(page, server):
    plan_all_responses(page)
    metrics = {m.label: m.value for m in page.metric}
    # 6 verifiability calls (one per sentence) + 4 decompositions (the cited sentences, assumed
    # verifiable until answered); entailment calls depend on the facts, so they are estimated
    assert metrics["Calls needed"] == "10"
    more = metrics["Estimated more"].lstrip("~")
    assert f"A run makes about {10 + int(more)} calls: the 10 known now, and ~{more} more" in shown_text(page)
    assert server.log == []


def test_start_needs_a_plan_of_the_current_choice(page):
    assert "start_run" not in [b.key for b in page.button]
    plan_all_responses(page)
    assert not page.button(key="start_run").disabled
    page.radio(key="run_responses").set_value("gold").run()
    assert "start_run" not in [b.key for b in page.button]


def test_run_started_on_the_page_stores_one_record_per_response(page, project, server):
    plan_all_responses(page).button(key="start_run").click().run()
    app = finished_run(page, project)
    assert [r.response_id for r in ProjectStore.open(project).list_records(source="judge:j+j+j")] == [
        "r1",
        "r2",
    ]
    assert app.dataframe[-1].value.to_dict("records") == [{"source": "judge:j+j+j", "records": 2}]
    assert "2 response record(s) complete, 2 new or changed stored · 19 call(s) made" in app.success[0].value


def test_key_is_sent_to_the_endpoint_but_never_shown(page, project, server):
    plan_all_responses(page).button(key="start_run").click().run()
    app = finished_run(page, project)
    assert {r.authorization for r in server.log} == {f"Bearer {SECRET}"}
    assert SECRET not in everything_on(app)


def test_progress_shows_the_finished_run_with_its_calls_and_cost(page, project):
    plan_all_responses(page).button(key="start_run").click().run()
    app = finished_run(page, project)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Calls made"] == "19" and metrics["Cache hits"] == "0" and metrics["Failed"] == "0"
    assert app.progress[0].value == 100


def test_stop_ends_the_run_early_and_says_so(monkeypatch, tmp_path, video):
    with JudgeServer(latency_s=1.0) as slow:  # a response needs ≥ 3 rounds of calls: 3 s
        directory = tmp_path / "slow"
        store = make_project(directory, video)
        store.add_user("boss", "admin", password_hash("boss"))
        (directory / "judges.toml").write_text(judges_toml(slow.base_url))
        monkeypatch.setenv(KEY_VARIABLE, SECRET)
        app = signed_in_app(monkeypatch, directory, "boss").switch_page("pages/judges.py").run()
        plan_all_responses(app).button(key="start_run").click().run()
        app.button(key="stop_run").click().run()
        app = finished_run(app, directory)
    assert "Stopped early: stopped" in app.warning[0].value
    assert len(slow.log) < 19 and store.list_records("judge") == []


def test_broken_judges_file_shows_every_problem_with_its_line(monkeypatch, project):
    (project / "judges.toml").write_text(
        '[judges.j]\nadapter = "openai"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\nspeed = 3\n'
    )
    app = signed_in_app(monkeypatch, project, "boss").switch_page("pages/judges.py").run()
    assert "cannot be used" in app.error[0].value
    assert "line 5, field 'judges.j.speed': unknown key" in html.unescape(shown_text(app))


def test_judges_file_path_is_a_project_setting(page, project, server):
    (project / "other.toml").write_text(judges_toml(server.base_url).replace("[judges.j]", "[judges.k]"))
    page.text_input(key="judges_toml_input").input("other.toml")
    app = next(b for b in page.button if b.label == "Save path").click().run()
    assert ProjectStore.open(project).get_setting("judges_toml") == "other.toml"
    assert app.dataframe[0].value["judge"].tolist() == ["k"]


def test_without_a_judges_file_the_page_explains_where_to_write_one(monkeypatch, project):
    (project / "judges.toml").unlink()
    app = signed_in_app(monkeypatch, project, "boss").switch_page("pages/judges.py").run()
    assert "No judges file yet" in app.info[0].value and "No judge records yet." in shown_text(app)


@pytest.mark.parametrize("name", ["ann", "ada"])
def test_annotators_and_adjudicators_cannot_open_the_judges_page(monkeypatch, project, name):
    app = signed_in_app(monkeypatch, project, name)
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        app.switch_page("pages/judges.py")


@pytest.mark.parametrize("name", ["ann", "ada"])
def test_judges_page_refuses_other_roles_that_reach_it(monkeypatch, project, name):
    # Streamlit's legacy mode can run a script under pages/ directly; the page guards itself.
    app = signed_in_app(monkeypatch, project, name).run()
    app.switch_page("pages/judges.py").run()
    assert "not available to your role" in app.error[0].value
    assert not any(t.value == "Judges" for t in app.title)


def write_in_page(app, text: str):
    app.text_area(key="judges_file_text_input").input(text)
    return next(b for b in app.button if b.label == "Check and save").click().run()


def test_an_admin_writes_the_judges_file_from_the_page(page, project, server):
    text = judges_toml(server.base_url).replace("[judges.j]", "[judges.k]")
    app = write_in_page(page, text)
    assert (project / "judges.toml").read_text() == text
    assert [r["judge"] for r in app.dataframe[0].value.to_dict("records")] == ["k"]
    assert "Saved 1 judge(s) to" in app.success[0].value


def test_a_judges_file_with_an_api_key_or_an_error_is_refused_with_its_lines_and_not_written(
    page, project, server
):
    before = (project / "judges.toml").read_text()
    text = judges_toml(server.base_url, api_key='"sk-not-stored"', max_retries="-1")
    app = write_in_page(page, text)
    assert (project / "judges.toml").read_text() == before
    problems = shown_text(app)
    assert (
        "judges.toml, line 11" in problems
        and "judges.j.api_key" in problems
        and "judges.j.max_retries" in problems
    )
    assert "sk-not-stored" not in problems.replace(text, "")


def test_a_judges_file_path_that_is_a_folder_is_shown_as_a_problem_not_a_failure(monkeypatch, project):
    # set before the path was checked when written (or the folder made since): every visit failed
    (project / "judges").mkdir()
    ProjectStore.open(project).set_settings({"judges_toml": "judges"})
    app = signed_in_app(monkeypatch, project, "boss").switch_page("pages/judges.py").run()
    assert not app.exception
    assert "cannot be used" in app.error[0].value
    assert "cannot read the file: Is a directory" in shown_text(app)


def test_saving_a_folder_as_the_judges_file_path_is_refused_with_a_reason(page, project):
    (project / "judges").mkdir()
    page.text_input(key="judges_toml_input").input("judges")
    app = next(b for b in page.button if b.label == "Save path").click().run()
    assert not app.exception
    assert ProjectStore.open(project).get_setting("judges_toml") is None
    refusal = app.error[0].value  # shown literally: Markdown's characters come escaped
    assert (
        "Nothing was saved" in refusal and "is a folder" in refusal and "give the path of a file" in refusal
    )


def test_a_run_stopped_by_its_budget_still_says_why_its_calls_failed(monkeypatch, project, closed_endpoint):
    (project / "judges.toml").write_text(judges_toml(closed_endpoint, max_retries="1"))
    monkeypatch.setenv(KEY_VARIABLE, SECRET)
    app = signed_in_app(monkeypatch, project, "boss").switch_page("pages/judges.py").run()
    app.number_input(key="run_max_calls").set_value(3)
    plan_all_responses(app).button(key="start_run").click().run()
    app = finished_run(app, project)
    assert "Stopped early: budget: --max-calls 3 reached" in app.warning[0].value
    assert "3 call(s) failed after their retries" in app.error[0].value
    [row] = [t for t in app.dataframe if "error" in t.value.columns][0].value.to_dict("records")
    assert row["calls"] == 3 and row["error"].startswith(
        f"connection failed: {closed_endpoint}/chat/completions"
    )


def test_a_finished_run_says_how_many_values_the_judges_answers_did_not_give(monkeypatch, tmp_path, video):
    from judge_server import scripted_answer

    def hedging(stage, prompt, kinds, model):
        if stage == "verifiability" and "waves his hand" in prompt.split("Sentence to judge:")[1]:
            return "Hard to say, it might be."
        return scripted_answer(stage, prompt, kinds, model)

    with JudgeServer(hedging) as hedging_server:
        directory = tmp_path / "p"
        store = make_project(directory, video)
        for name, role in PEOPLE:
            store.add_user(name, role, password_hash(name))
        (directory / "judges.toml").write_text(judges_toml(hedging_server.base_url))
        monkeypatch.setenv(KEY_VARIABLE, SECRET)
        app = signed_in_app(monkeypatch, directory, "boss").switch_page("pages/judges.py").run()
        plan_all_responses(app).button(key="start_run").click().run()
        app = finished_run(app, directory)
    said = [w.value for w in app.warning if "the judges' answers did not give" in w.value]
    assert said and said[0].startswith("1 value(s) the judges' answers did not give are null")
    [row] = [t for t in app.dataframe if "why" in t.value.columns][0].value.to_dict("records")
    assert row["values"] == 1 and "verifiable" in row["why"]
