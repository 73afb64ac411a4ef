"""The calibration page (admin) on the demo project: the sweep table, the choice, the figures,
a response opened from the scatter, and the export (none for the demo's simulated judges; a
real file for judges that a judges TOML configures).

The demo holds 24 gold responses, three annotators' labels in the event log, and four
simulated judge configurations built to rank strong > … > random (annotation/demo.py).
"""

import json
from pathlib import Path

import pytest
from app_support import shown_text, signed_in_app, tiny_project

from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Sentence
from annotation.store.project_store import ProjectStore
from calibration.scoring.murgat_s import PRECISION_MODES
from calibration.sweep.parity import DEFAULT_EPSILON
from calibration.sweep.project_sweep import background_sweep
from pages.widgets import opened_response

DEMO_SOURCES = {
    "judge:sim-strong+sim-strong+sim-strong",
    "judge:sim-weak+sim-good+sim-good",
    "judge:sim-good+sim-good+sim-weak",
    "judge:sim-random+sim-random+sim-random",
}
BEST = "judge:sim-strong+sim-strong+sim-strong"


@pytest.fixture(scope="module")
def demo(module_demo):
    return module_demo


# Tests that click on the page sweep with fewer resamples (the form's own setting): none of them is
# about the resample count, and the page with the default settings is `shown`, read by the rest.
# (pages/calibrate.py's DEFAULT_SETTINGS but n_boot; importing a page would run it)
FEWER_RESAMPLES = {
    "modes": list(PRECISION_MODES),
    "n_boot": 200,
    "folds": 5,
    "seed": 0,
    "epsilon": DEFAULT_EPSILON,
}


def calibrate_page(monkeypatch, project, name="admin", **session_state):
    return signed_in_app(monkeypatch, project, name, **session_state).switch_page("pages/calibrate.py").run()


@pytest.fixture(scope="module")
def shown(demo):
    """The page as the admin first sees it (default settings: 2,000 resamples), for tests that
    only read it."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield calibrate_page(monkeypatch, demo)


@pytest.fixture
def page(monkeypatch, demo):
    """A page of this test's own, to click on."""
    return calibrate_page(monkeypatch, demo, calibrate_settings=dict(FEWER_RESAMPLES))


def unescaped(markdown: str) -> str:
    """The page escapes Markdown in names from records; the text as a reader sees it."""
    return markdown.replace("\\", "")


def sweep_table(app):
    return app.dataframe[0].value  # the first table on the page


def test_sweep_table_holds_every_demo_judge_source_in_each_of_the_three_modes(shown):
    table = sweep_table(shown)
    assert set(table["source"]) == DEMO_SOURCES
    assert sorted(zip(table["source"], table["mode"], strict=True)) == sorted(
        (s, m) for s in DEMO_SOURCES for m in ("individual", "necessity", "alce")
    )
    assert set(table["n"]) == {24}


def test_best_configuration_is_the_strong_judges_but_not_shown_as_decided(shown):
    table = sweep_table(shown)
    assert table.iloc[0]["source"] == BEST and table.iloc[0]["may be the best (95 % set)"] == "best"
    assert f"Chosen (the gold cannot decide): **{BEST} [alce]**" in unescaped(shown.warning[2].value)
    assert not shown.success  # nothing green: the gold does not decide the choice


def test_the_first_sentence_says_the_demo_gold_cannot_separate_the_configurations_with_the_numbers(shown):
    report = shown.session_state["calibrate_sweep"]["report"]
    s = report.separation
    sentence = unescaped(first_sentence(shown).value)
    assert sentence.startswith(
        "These 24 gold responses cannot separate the configurations: the 95 % confidence set of the "
        "best holds 11 of 12 configurations."
    )
    assert (
        f"About {s['more_gold_needed']} more gold responses ({s['responses_needed']} in all) would be "
        f"expected to separate the top two, {BEST} [alce] (r 0.857) and {s['second']}"
    ) in sentence


def first_sentence(app):
    """The first element under the page's title (the demo banner of the frame sits above it)."""
    children = list(app.main.children.values())
    title = next(i for i, c in enumerate(children) if getattr(c, "value", None) == "Calibrate")
    return next(iter(children[title + 1].children.values()))


def test_a_choice_whose_r_interval_includes_zero_says_so_first(page):
    random = "judge:sim-random+sim-random+sim-random [individual]"
    app = page.radio(key="choose_rule").set_value("hand").run()
    app = app.selectbox(key="hand_config").set_value(random).run()
    sentence = unescaped(first_sentence(app).value)
    assert f"{random}'s r 0.109 has a 95 % CI [-0.473, 0.624] that includes 0" in sentence


def test_an_undecided_choice_needs_the_acknowledgement_box_before_any_export(monkeypatch, configured):
    # configured judges: the demo's simulated ones are never exportable, and the page says that first
    app = calibrate_page(monkeypatch, configured, "boss", calibrate_settings=dict(FEWER_RESAMPLES))
    assert app.checkbox(key="export_undecided").value is False
    assert "Tick the box above to export a choice the gold cannot decide." in shown_text(app)
    assert not app.get("download_button")


def test_the_sweep_table_shows_the_confidence_set_p_best_and_parity_of_each_configuration(shown):
    table = sweep_table(shown)
    report = shown.session_state["calibrate_sweep"]["report"]
    best = table.iloc[0]
    assert best["win share"] == pytest.approx(report.best.p_best)
    assert best["parity advantage"] == pytest.approx(report.best.parity["advantage"])
    assert set(table["may be the best (95 % set)"]) <= {"best", "yes", "no"} and set(
        table["undetermined"]
    ) == {0}


def test_sweep_is_not_redone_when_nothing_changed(page):
    before = page.session_state["calibrate_sweep"]["report"]
    page.radio(key="choose_rule").set_value("best").run()
    assert page.session_state["calibrate_sweep"]["report"] is before


def test_changed_settings_make_a_new_sweep(page):
    before = page.session_state["calibrate_sweep"]["key"]
    page.number_input(key="sweep_seed").set_value(1)
    app = next(b for b in page.button if b.label == "Run the sweep with these settings").click().run()
    assert app.session_state["calibrate_sweep"]["key"] != before
    assert app.session_state["calibrate_sweep"]["report"].settings["seed"] == 1


def test_the_figures_name_human_parity_and_the_confidence_set(shown):
    report = shown.session_state["calibrate_sweep"]["report"]
    figures = [json.loads(chart.proto.spec) for chart in shown.get("plotly_chart")]
    assert len(figures) == 4
    scatter, heatmap, forest, parity = figures
    assert "human parity: r(judge) − r(annotator) = " in scatter["layout"]["annotations"][0]["text"]
    assert "95 % confidence set of the best" in heatmap["layout"]["title"]["text"]
    [ringed] = [t for t in forest["data"] if t["name"] == "in the 95 % confidence set of the best"]
    assert len(ringed["x"]) == len(report.best_set)
    # one trace per precision mode (an error bar takes its marker's one colour)
    points = [
        x
        for t in parity["data"]
        if t["name"].startswith("mean advantage over the annotators")
        for x in t["x"]
    ]
    assert sorted(points) == pytest.approx(sorted(c.parity["advantage"] for c in report.configs))


def test_the_choice_says_what_each_number_is(shown):
    text = unescaped(shown_text(shown))
    assert "95 % confidence set of the best" in text
    assert "Expected r of choosing the highest r, on responses it was not chosen on" in text
    assert "held-out r" not in text and "ceiling" not in text and "indistinguishable" not in text


def test_scatter_shows_one_point_per_gold_response_with_its_id(shown):
    scatter = json.loads(shown.get("plotly_chart")[0].proto.spec)
    [points] = [t for t in scatter["data"] if t.get("name") == "responses"]
    assert len(points["x"]) == 24 and points["customdata"][0] == ["demo-a-01"]
    assert any(t.get("name") == "95 % CI of the line" for t in scatter["data"])


def test_heatmap_has_a_panel_per_decomposer_and_mode(shown):
    heatmap = json.loads(shown.get("plotly_chart")[1].proto.spec)
    titles = {a["text"] for a in heatmap["layout"]["annotations"] if "decomposer" in a["text"]}
    assert titles == {
        f"{m} · decomposer {d}"
        for m in ("individual", "necessity", "alce")
        for d in ("sim-good", "sim-random", "sim-strong")
    }


def test_clicking_a_point_on_the_scatter_opens_that_response(page):
    page.session_state["calibrate_scatter"] = {
        "selection": {"points": [{"customdata": ["demo-c-05"]}], "point_indices": [0], "box": [], "lasso": []}
    }
    app = page.run()
    assert "Response demo-c-05" in [s.value for s in app.subheader]
    assert app.selectbox(key=opened_response.OPEN_KEY).value == "demo-c-05"


def test_open_its_disputes_goes_to_the_disputes_page_filtered_to_the_response(page):
    app = page.selectbox(key=opened_response.OPEN_KEY).select("demo-a-02").run()
    app = app.button(key="open_disputes").click().run()
    assert any(t.value == "Disputes" for t in app.title)
    assert app.selectbox(key="dispute_response").value == "demo-a-02"


def test_choosing_a_response_opens_its_text_scores_and_player(page):
    app = page.selectbox(key=opened_response.OPEN_KEY).select("demo-b-03").run()
    assert "Response demo-b-03" in [s.value for s in app.subheader]
    assert {m.label for m in app.metric} >= {"Gold MURGAT-S", "Judge MURGAT-S"}
    players = [e for e in app.get("bidi_component") if e.proto.component_name == "murgat_players"]
    assert len(players) >= 1  # the citation players (pages.widgets.player) are one element
    assert app.button(key="open_disputes")


def test_demo_export_explains_that_simulated_judges_cannot_be_exported(page):
    # before any acknowledgement is asked for: nothing the box would unlock
    assert "simulated judges" in shown_text(page) and "nothing to export" in shown_text(page)
    assert not page.get("download_button") and "export_undecided" not in [c.key for c in page.checkbox]


@pytest.mark.parametrize("name", ["alice", "ada"])
def test_annotators_and_adjudicators_cannot_open_the_calibrate_page(monkeypatch, demo, name):
    app = signed_in_app(monkeypatch, demo, name)
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        app.switch_page("pages/calibrate.py")


@pytest.mark.parametrize("name", ["alice", "ada"])
def test_calibrate_page_refuses_other_roles_that_reach_it(monkeypatch, demo, name):
    app = signed_in_app(monkeypatch, demo, name).run()
    app.switch_page("pages/calibrate.py").run()
    assert "not available to your role" in app.error[0].value
    assert not any(t.value == "Calibrate" for t in app.title)


def test_project_without_gold_says_what_is_missing(monkeypatch, tmp_path):
    tiny_project(tmp_path / "p")
    app = calibrate_page(monkeypatch, tmp_path / "p", "boss")
    assert "No gold records yet" in app.info[0].value and "No judge records yet" in app.info[0].value


# -- a project whose judge `j` is configured in a judges TOML ------------------------------------
ENTAILED = {  # response → per sentence: does its one fact hold (gold, judge)?
    "r1": ((1, 1, 1), (1, 1, 1)),
    "r2": ((1, 1, 0), (1, 1, 1)),
    "r3": ((1, 0, 0), (1, 0, 0)),
    "r4": ((0, 0, 0), (0, 1, 0)),
    "r5": ((1, 1, 0), (1, 1, 0)),
    "r6": ((1, 0, 0), (0, 0, 0)),
}
TEXT = "A cat sits (visual, 0:01). A dog barks (audio, 0:02). A bird flies (visual, 0:03).\nAnswer: A"
JUDGES_TOML = (
    '[judges.j]\nadapter = "openai"\nmodel = "test-model"\nbase_url = "http://127.0.0.1:9/v1"\n'
    "price_in_per_1k = 0.5\nprice_out_per_1k = 1.5\n"
)


def record(store, response_id: str, source: str, entailed) -> EvaluationRecord:
    sentences = [
        Sentence(
            s.text,
            True,
            s.citations,
            [Fact(s.text.split(" (")[0] + ".", [0], Entailment(bool(e), [bool(e)], [False]))],
            s.start,
            s.end,
        )
        for s, e in zip(store.response_sentences(response_id), entailed, strict=True)
    ]
    return EvaluationRecord(response_id, source, sentences)


@pytest.fixture
def configured(tmp_path):
    store = tiny_project(tmp_path / "p", texts=(TEXT,) * len(ENTAILED))
    store.add_records(
        [record(store, rid, "gold", gold) for rid, (gold, _) in ENTAILED.items()]
        + [record(store, rid, "judge:j+j+j", judged) for rid, (_, judged) in ENTAILED.items()]
    )
    (tmp_path / "p" / "judges.toml").write_text(JUDGES_TOML)
    return tmp_path / "p"


def test_configured_judges_can_be_exported_once_the_undecided_choice_is_acknowledged(monkeypatch, configured):
    app = calibrate_page(monkeypatch, configured, "boss", calibrate_settings=dict(FEWER_RESAMPLES))
    assert not app.get("download_button")  # six responses: the gold cannot decide
    app = app.checkbox(key="export_undecided").check().run()
    mode = app.session_state["calibrate_sweep"]["report"].best.precision_mode
    assert f"j+j+j in {mode} mode" in shown_text(app)
    assert [b.label for b in app.get("download_button")] == ["Download the calibrated configuration (JSON)"]


def test_a_choice_by_hand_needs_a_reason_before_it_is_exported(monkeypatch, configured):
    app = calibrate_page(monkeypatch, configured, "boss", calibrate_settings=dict(FEWER_RESAMPLES))
    app = app.radio(key="choose_rule").set_value("hand").run()
    app = app.selectbox(key="hand_config").set_value("judge:j+j+j [necessity]").run()
    app = app.checkbox(key="export_undecided").check().run()
    assert "Say why this configuration is chosen by hand" in shown_text(app) and not app.get(
        "download_button"
    )
    app = app.text_input(key="hand_reason").input("cheaper to run, r within the set").run()
    assert "j+j+j in necessity mode" in shown_text(app)
    assert "Chosen by hand" in shown_text(app)


# three of the demo's four simulated judges described (not sim-random): an export chooses among the rest
THREE_OF_FOUR_JUDGES = "".join(
    f'[judges.{name}]\nadapter = "openai"\nmodel = "{name}"\nbase_url = "http://127.0.0.1:9/v1"\n'
    for name in ("sim-strong", "sim-good", "sim-weak")
)


def test_the_page_exports_the_file_calibration_export_writes_when_the_judges_file_leaves_some_out(
    monkeypatch, demo_copy, tmp_path, capsys
):
    from calibration.cli.main import main as calibration_main
    from calibration.config import calibrated

    (demo_copy / "judges.toml").write_text(THREE_OF_FOUR_JUDGES)
    written = []  # what the page's download holds: the file it writes, read back
    real = calibrated.write_calibrated_config
    monkeypatch.setattr(
        calibrated,
        "write_calibrated_config",
        lambda cfg, out: (real(cfg, out), written.append(json.loads(Path(out).read_text()))),
    )
    app = calibrate_page(monkeypatch, demo_copy, calibrate_settings=dict(FEWER_RESAMPLES))
    assert "left out: judge:sim-random+sim-random+sim-random" in unescaped(shown_text(app))
    app.checkbox(key="export_undecided").check().run()
    out = tmp_path / "calibrated.json"
    settings = ["--bootstrap", "200", "--folds", "5", "--seed", "0", "--epsilon", str(DEFAULT_EPSILON)]
    argv = ["export", "--project", str(demo_copy), "--judges", str(demo_copy / "judges.toml")]
    assert calibration_main([*argv, "--out", str(out), "--allow-undecided", *settings]) == 0, (
        capsys.readouterr()
    )
    from_cli, from_page = json.loads(out.read_text()), written[-1]
    for exported in (from_cli, from_page):
        exported.pop("created_at")
    assert from_page == from_cli
    assert len(from_page["evidence"]["best_set"]) < 12  # chosen among the 9 exportable, not all 12


def test_changed_records_make_a_new_sweep(monkeypatch, configured):
    app = calibrate_page(monkeypatch, configured, "boss", calibrate_settings=dict(FEWER_RESAMPLES))
    before = app.session_state["calibrate_sweep"]["key"]
    store = ProjectStore.open(configured)
    store.add_records([record(store, "r6", "judge:j+j+j", (1, 0, 0))])
    assert app.run().session_state["calibrate_sweep"]["key"] == before  # shown while the new one runs
    background_sweep(store, FEWER_RESAMPLES).result()
    assert app.run().session_state["calibrate_sweep"]["key"] != before


def test_cheapest_rule_without_recorded_calls_says_why_and_keeps_the_best(monkeypatch, configured):
    app = calibrate_page(monkeypatch, configured, "boss", calibrate_settings=dict(FEWER_RESAMPLES))
    app.radio(key="choose_rule").set_value("cheapest").run()
    assert "No price for the cheapest rule" in app.info[0].value
    assert ": **judge:j+j+j [" in unescaped(shown_text(app))


def test_cheapest_rule_needs_a_judges_file(page):
    app = page.radio(key="choose_rule").set_value("cheapest").run()
    assert "needs the judges' prices from the judges file" in app.info[0].value


def test_sources_not_of_the_form_verifier_decomposer_entailer_are_listed_beside_the_heatmap(
    monkeypatch, configured
):
    store = ProjectStore.open(configured)
    store.add_records(
        [record(store, rid, "judge:reference-metric", judged) for rid, (_, judged) in ENTAILED.items()]
    )
    app = calibrate_page(monkeypatch, configured, "boss", calibrate_settings=dict(FEWER_RESAMPLES))
    assert "(so not in the heatmap): judge:reference-metric" in unescaped(shown_text(app))


# -- one input path: the page, `sweep --project` and export-then-`sweep --gold/--judges` ----------
def cli_json(main, argv, capsys) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_the_page_sweep_project_and_export_then_sweep_give_identical_numbers(shown, demo, tmp_path, capsys):
    from annotation.cli.main import main as annotation_main
    from calibration.cli.main import main as calibration_main

    on_page = json.loads(json.dumps(shown.session_state["calibrate_sweep"]["report"].to_dict()))
    # --rank-intervals: every configuration's rank intervals, as the page's report gives them
    from_project = cli_json(
        calibration_main, ["sweep", "--project", str(demo), "--json", "--rank-intervals"], capsys
    )
    exported = tmp_path / "all.jsonl"
    assert annotation_main(["export", "--project", str(demo), "--out", str(exported), "--source", "all"]) == 0
    capsys.readouterr()
    from_files = cli_json(
        calibration_main,
        ["sweep", "--gold", str(exported), "--judges", str(exported), "--json", "--rank-intervals"],
        capsys,
    )
    assert from_project == on_page and from_files == on_page
    # the demo's annotators live in the event log only, and all three are compared
    assert {row["source"] for row in on_page["annotators"]} == {"human:alice", "human:bob", "human:carol"}
    assert all(len(c["parity"]["annotators"]) == 3 for c in on_page["configs"])


def test_the_scatter_and_the_chooser_narrow_to_the_models_chosen(page, demo):
    model_of = dict(ProjectStore.open(demo).response_models())
    one = model_of["demo-a-01"]
    app = page.multiselect(key="calibrate_models").set_value([one]).run()
    scatter = json.loads(app.get("plotly_chart")[0].proto.spec)
    [points] = [t for t in scatter["data"] if t.get("name") == "responses"]
    shown = [rid for (rid,) in points["customdata"]]
    assert shown and all(model_of[rid] == one for rid in shown) and len(shown) < 24
    chooser = app.selectbox(key=opened_response.OPEN_KEY)
    assert [rid for rid in chooser.options if rid in model_of] == shown


def test_after_a_new_label_the_page_shows_the_last_sweep_marked_updating_then_the_new_one(
    monkeypatch, demo_copy
):
    settings = {**FEWER_RESAMPLES, "seed": 3}
    app = calibrate_page(monkeypatch, demo_copy, calibrate_settings=dict(settings))
    assert any("Figures as of the latest change" in c.value for c in app.caption)
    shown_before = sweep_table(app)
    store = ProjectStore.open(demo_copy)
    try:
        store.events.append("alice", store.response_ids()[0], "s0", "verifiable", False, spent_ms=1000)
        app.run()
        updating = [c.value for c in app.caption if "updating" in c.value]
        assert updating and "the last measured ones" in updating[0]
        assert sweep_table(app).equals(shown_before)  # the last report, drawn at once
        assert not app.exception
        background_sweep(store, settings).result()
    finally:
        store.close()
    app.run()
    assert any("Figures as of the latest change" in c.value for c in app.caption)
    assert not any("updating" in c.value for c in app.caption)
