"""The Model scores page (admin) on the demo project: the forest plot of the three models with
human-only and PPI intervals side by side, the differences, the planner and its queue, the model
filter, and the downloads; and on tiny projects built in code."""

import json

import pytest
from app_support import shown_text, signed_in_app, tiny_project

from annotation.demo.models import MODELS
from annotation.protocol.records import EvaluationRecord
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from annotation.work.sample_queues import annotation_scope, create_sample_queue, sample_queue
from pages.widgets.model_filter import NO_MODEL

PAGE = "pages/model_scores.py"


@pytest.fixture(scope="module")
def demo(module_demo):
    return module_demo


def scores_page(monkeypatch, project, who="admin"):
    return signed_in_app(monkeypatch, project, who).switch_page(PAGE).run()


@pytest.fixture(scope="module")
def page(demo):
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield scores_page(monkeypatch, demo)


def figure(app, key):
    chart = next(c for c in app.get("plotly_chart") if key in c.proto.id)
    return json.loads(chart.proto.spec)


def test_the_forest_plot_shows_each_model_with_its_human_only_and_ppi_intervals_side_by_side(page):
    spec = figure(page, "scores_forest")
    traces = {t["name"]: t for t in spec["data"]}
    human, ppi = traces["human-only (95 % CI)"], traces["PPI++ (95 % CI)"]
    assert len(human["x"]) == len(ppi["x"]) == 3
    assert sorted(spec["layout"]["yaxis"]["ticktext"]) == sorted(MODELS)
    assert all(h > p for h, p in zip(human["y"], ppi["y"], strict=True))  # human above, PPI below
    widths = [
        sum(t["error_x"][k][i] for k in ("array", "arrayminus")) for t in (human, ppi) for i in range(3)
    ]
    with_ci = [(h, p) for h, p in zip(widths[:3], widths[3:], strict=True) if h > 0]
    assert len(with_ci) == 2 and all(p < h for h, p in with_ci)  # the 10- and 8-gold models
    assert widths.count(0.0) == 2  # the 6-gold model: its means, no interval (no bar)
    assert "6 gold responses: an interval needs at least 8" in shown_text(page)
    assert "judge-only (biased, no CI)" in traces


def test_the_page_opens_on_the_judges_calibrated_mode_and_shows_the_correction(page):
    assert page.selectbox(key="scores_mode").value == "alce"  # the demo judge's highest r: alce
    assert "It is calibrated in alce mode" in shown_text(page)
    table = page.dataframe[0].value
    correction = table["correction (PPI++ − judge-only)"]
    assert list(correction) == pytest.approx(list(table["PPI++"] - table["judge-only (biased)"]))
    assert "Correction (PPI++ − judge-only):" in shown_text(page)


def test_the_models_table_says_the_judge_only_mean_is_biased_and_gives_the_gain(page):
    table = page.dataframe[0].value
    assert list(table["model"]) == figure(page, "scores_forest")["layout"]["yaxis"]["ticktext"]  # best first
    assert {"judge-only (biased)", "PPI++ low", "PPI++ high", "ESS gain"} <= set(table.columns)
    assert "no interval is claimed" in shown_text(page)


def test_three_models_give_three_independent_differences(page):
    table = page.dataframe[1].value
    assert len(table) == 3 and set(table["design"]) == {"independent"}
    assert len(figure(page, "scores_differences")["data"]) == 1


def test_the_planner_lists_more_gold_needed_per_model(page):
    plan = page.dataframe[2].value
    assert sorted(plan["model"]) == sorted(MODELS)
    reachable = plan[plan["reachable"]]
    assert all(reachable["more gold needed"] > 0) and all(reachable["P(reaching the target)"] >= 0.8)
    assert "with probability ≥ 0.80" in shown_text(page)


def test_a_narrower_target_needs_more_gold(page):
    before = page.dataframe[2].value["more gold needed"].sum()
    page.number_input(key="scores_target").set_value(0.04).run()
    assert page.dataframe[2].value["more gold needed"].sum() > before
    page.number_input(key="scores_target").set_value(0.05).run()


def test_creating_the_queue_stores_the_sample_and_annotators_are_asked_it(monkeypatch, demo_copy):
    app = scores_page(monkeypatch, demo_copy)
    plan = app.dataframe[2].value  # out of reach: every unlabelled response of the model
    needed = {
        row["model"]: int(row["more gold needed"]) if row["reachable"] else int(row["unlabelled"])
        for _, row in plan.iterrows()
    }
    app.text_input(key="scores_queue_name").input("round 2")
    app = next(b for b in app.button if b.label == "Create the annotation queue").click().run()
    assert "Queue created with" in app.success[0].value
    queued = sample_queue(ProjectStore.open(demo_copy), "round 2")
    assert {m: sum(1 for _, s in queued if s == m) for m in needed} == needed


def test_the_new_queue_says_how_many_of_the_plans_responses_wait_in_earlier_queues(monkeypatch, demo_copy):
    store = ProjectStore.open(demo_copy)
    labelled = set(project_state(store).responses)
    unlabelled = [rid for rid, model in store.response_models() if model == MODELS[0] and rid not in labelled]
    create_sample_queue(store, "earlier", [(rid, MODELS[0]) for rid in unlabelled[:2]])
    app = scores_page(monkeypatch, demo_copy)
    app.text_input(key="scores_queue_name").input("round 2")
    app = next(b for b in app.button if b.label == "Create the annotation queue").click().run()
    assert app.success[0].value.endswith(" The plan's other 2 wait in earlier queues.")


def test_the_scope_toggle_sets_whether_only_queued_responses_are_asked(monkeypatch, demo_copy):
    app = scores_page(monkeypatch, demo_copy)
    assert app.toggle(key="scores_scope").value is True  # the demo asks only its labelled queue
    app.toggle(key="scores_scope").set_value(False).run()
    assert annotation_scope(ProjectStore.open(demo_copy)) == "all"


def test_the_model_filter_narrows_every_table_to_the_chosen_models(monkeypatch, demo):
    app = scores_page(monkeypatch, demo)
    app.multiselect(key="scores_models").set_value([MODELS[0], MODELS[2]]).run()
    assert sorted(app.dataframe[0].value["model"]) == sorted([MODELS[0], MODELS[2]])
    assert len(app.dataframe[1].value) == 1


def test_another_metric_and_level_change_the_estimates(monkeypatch, demo):
    app = scores_page(monkeypatch, demo)
    app.selectbox(key="scores_level").set_value("90 %").run()
    assert "PPI++ (90 % CI)" in {t["name"] for t in figure(app, "scores_forest")["data"]}
    app.selectbox(key="scores_metric").set_value("coverage").run()
    assert figure(app, "scores_forest")["layout"]["xaxis"]["title"]["text"] == "mean coverage"


def test_the_choices_made_are_still_there_after_a_visit_to_another_page(monkeypatch, demo):
    # Streamlit forgets a field's value in a run that does not draw it: the mode fell to individual
    app = scores_page(monkeypatch, demo)
    app.selectbox(key="scores_level").set_value("90 %").run()
    app = app.switch_page("pages/admin.py").run().switch_page(PAGE).run()
    assert (app.selectbox(key="scores_mode").value, app.selectbox(key="scores_level").value) == (
        "alce",
        "90 %",
    )
    assert "in alce mode. It is calibrated in alce mode" in shown_text(app)


def test_the_page_offers_csv_and_json_downloads(page):
    names = {b.proto.label for b in page.get("download_button")}
    assert {"Models (CSV)", "Differences (CSV)", "Estimates (JSON)"} <= names


def test_an_annotator_has_no_model_scores_page(monkeypatch, tmp_path):
    tiny_project(tmp_path / "p")
    app = signed_in_app(monkeypatch, tmp_path / "p", "ann")
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        app.switch_page(PAGE)


def test_the_page_refuses_an_annotator_who_reaches_it(monkeypatch, tmp_path):
    tiny_project(tmp_path / "p")
    app = signed_in_app(monkeypatch, tmp_path / "p", "ann").run()
    app.switch_page(PAGE).run()
    assert "not available to your role" in app.error[0].value and not app.get("plotly_chart")


def test_a_project_without_judge_records_says_so(monkeypatch, tmp_path):
    tiny_project(tmp_path / "p")
    app = scores_page(monkeypatch, tmp_path / "p", who="boss")
    assert "No judge records yet" in app.info[0].value


def test_responses_without_a_model_are_one_row_named_as_such(monkeypatch, tmp_path):
    store = tiny_project(tmp_path / "p")
    store.add_records([EvaluationRecord(rid, "judge:j", []) for rid in store.response_ids()])
    app = scores_page(monkeypatch, tmp_path / "p", who="boss")
    assert list(app.dataframe[0].value["model"]) == [NO_MODEL]


def test_the_page_says_how_many_responses_await_gold_and_counts_them_as_not_labelled(monkeypatch, demo_copy):
    store = ProjectStore.open(demo_copy)
    store.set_setting("gold_rule", "unanimity")  # the demo's annotators disagree on some sentences
    waiting = len(project_state(store).gold.awaiting)
    assert waiting
    assert (
        f"Gold: {waiting} labelled response(s) await a ruling or labels on stage 1 or 2 (Disputes): "
        "no gold record yet, left out (here they count as not labelled)."
    ) in shown_text(scores_page(monkeypatch, demo_copy))
