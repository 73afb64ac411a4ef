"""The judges page with models: judge records counted per model on the demo, a download narrowed
to chosen models, and a run planned on the responses of the chosen models only."""

import pytest
from app_support import PEOPLE, password_hash, signed_in_app
from judge_server import RESPONSES, JudgeServer, make_project, make_video
from test_app_judges import KEY_VARIABLE, SECRET, judges_toml

from annotation.demo.labellers import JUDGE_CONFIGS, judge_source
from annotation.demo.models import MODELS
from annotation.protocol.records import Response
from annotation.protocol.sentences import sentences_for_response

STRONG = judge_source(JUDGE_CONFIGS[0])


@pytest.fixture(scope="module")
def demo_page(module_demo):
    directory = module_demo
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield signed_in_app(monkeypatch, directory, "admin").switch_page("pages/judges.py").run()


def test_judge_records_are_counted_per_model(demo_page):
    table = demo_page.dataframe[-1].value
    strong = table[table["source"] == STRONG]
    assert dict(zip(strong["model"], strong["records"], strict=True)) == {
        "sim-omni-large": 210,
        "sim-omni-small": 208,
        "sim-omni-tiny": 206,
    }


def test_the_records_download_can_be_narrowed_to_chosen_models(demo_page):
    demo_page.selectbox(key="records_choice").set_value(STRONG).run()
    demo_page.multiselect(key="records_models").set_value([MODELS[0]]).run()
    assert "Download 210 record(s) as JSONL" in {b.proto.label for b in demo_page.get("download_button")}


@pytest.fixture
def two_model_project(tmp_path_factory, tmp_path):
    video = make_video(tmp_path_factory.mktemp("media") / "clip.mp4")
    with JudgeServer() as server:
        directory = tmp_path / "p"
        store = make_project(directory, video)
        text = RESPONSES["r1"]
        duration = store.media("clip.mp4").duration_s
        store.add_responses(
            [
                (
                    Response("m2/r1", text, "clip.mp4", "What happens?", ["A. x", "B. y"], "B", model="m2"),
                    sentences_for_response(text, duration),
                )
            ]
        )
        for name, role in PEOPLE:
            store.add_user(name, role, password_hash(name))  # hashed once per process
        (directory / "judges.toml").write_text(judges_toml(server.base_url))
        yield directory


def test_a_run_is_planned_on_the_chosen_models_responses_only(monkeypatch, two_model_project):
    monkeypatch.setenv(KEY_VARIABLE, SECRET)
    app = signed_in_app(monkeypatch, two_model_project, "boss").switch_page("pages/judges.py").run()
    app.radio(key="run_responses").set_value("all").run()
    app.multiselect(key="run_models").set_value(["m2"]).run()
    app = app.button(key="plan_run").click().run()
    signature, _ = app.session_state["judge_plan"]
    assert signature[1] == ("m2/r1",)
