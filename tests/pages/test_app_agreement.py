"""The agreement page through streamlit's AppTest: on the demo project (three annotators with
complete labels) and on tiny projects whose labels are written in code."""

import json
import threading
from concurrent.futures import Executor, Future

import pytest
from app_support import shown_text, signed_in_app, tiny_project

from annotation.agreement.reliability import measure_agreement, measure_units
from annotation.project import export_records
from annotation.protocol.ids import Unit
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from annotation.work.labels import CANT_TELL
from calibration.scoring.murgat_s import PRECISION_MODES
from calibration.sweep.parity import annotator_rows, parity_tables
from pages.widgets import agreement_measure, agreement_tables
from pages.widgets.agreement_measure import latest_agreement, wait_for_agreement
from pages.widgets.agreement_tables import latest_tables, wait_for_tables

PAGE = "pages/agreement.py"
SHOWN = ("verifiable", "decomposition", "entailment_all", "entailment_alone", "entailment_without")
STAGE_NAMES = [
    "Stage 1 · verifiable",
    "Stage 2 · atomic facts",
    "Stage 3 · all",
    "Stage 3 · alone",
    "Stage 3 · without",
]  # in SHOWN order


@pytest.fixture(scope="module")
def demo(module_demo):
    return ProjectStore.open(module_demo)


@pytest.fixture
def tiny(tmp_path):
    """ann and bob on r1: s0 true/false, s1 true/true, s2 false/false; ada rules s0 true."""
    store = tiny_project(tmp_path / "p")
    for sentence, ann, bob in ((0, True, False), (1, True, True), (2, False, False)):
        store.events.append(
            "ann", "r1", f"s{sentence}", "verifiable", ann, spent_ms=(1000, 3000, 2000)[sentence]
        )
        store.events.append(
            "bob", "r1", f"s{sentence}", "verifiable", bob, spent_ms=(4000, 6000, 5000)[sentence]
        )
    store.events.append("ada", "r1", "s0", "gold.verifiable", {"value": True, "reason": None})
    return tmp_path / "p"


def agreement_page(monkeypatch, project, name="ada"):
    """The page once its agreement is measured and its tables worked out (both run in the
    background)."""
    app = signed_in_app(monkeypatch, project, name).switch_page(PAGE).run()
    store = ProjectStore.open(project)
    wait_for_agreement(store, project_state(store))
    wait_for_tables(store, project_state(store))
    return app.run()


def table(app, first_column):
    """The page's table whose first column is `first_column`."""
    return next(d.value for d in app.dataframe if list(d.value.columns)[:1] == [first_column])


def figure(app, key):
    chart = next(c for c in app.get("plotly_chart") if key in c.proto.id)
    return json.loads(chart.proto.spec)


@pytest.fixture(scope="module")
def demo_page(demo):
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield agreement_page(monkeypatch, demo.directory)


def test_annotator_cannot_open_the_agreement_page(monkeypatch, tiny):
    app = signed_in_app(monkeypatch, tiny, "ann")
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        app.switch_page(PAGE)


def test_agreement_page_refuses_an_annotator_who_reaches_it(monkeypatch, tiny):
    app = signed_in_app(monkeypatch, tiny, "ann").run()
    app.switch_page(PAGE).run()
    assert "not available to your role" in app.error[0].value and not app.get("plotly_chart")


@pytest.fixture(scope="module")
def demo_agreement(demo):
    """What the page should show, measured here once for the module (the α of the demo's atomic
    facts takes a while)."""
    return measure_agreement(export_records(demo, "human"))


def test_agreement_page_shows_alpha_for_all_five_stages_on_the_demo(demo_agreement, demo_page):
    expected = demo_agreement
    alphas = table(demo_page, "stage")
    assert list(alphas["stage"]) == STAGE_NAMES
    assert list(alphas["alpha"]) == [f"{expected[stage].alpha:.3f}" for stage in SHOWN]


def test_alpha_bars_carry_the_bootstrap_ci_as_error_bars(demo_agreement, demo_page):
    expected = demo_agreement["verifiable"]
    bars = figure(demo_page, "alpha_chart")["data"][0]
    assert bars["y"][0] == pytest.approx(expected.alpha)
    assert bars["error_y"]["array"][0] == pytest.approx(expected.ci_high - expected.alpha)
    assert bars["error_y"]["arrayminus"][0] == pytest.approx(expected.alpha - expected.ci_low)


def test_demo_shows_one_confusion_matrix_per_annotator_pair(demo_page):
    charts = [c.proto.id for c in demo_page.get("plotly_chart") if "confusion:" in c.proto.id]
    assert [c.split("confusion:verifiable:", 1)[1] for c in charts] == [
        "alice:bob",
        "alice:carol",
        "bob:carol",
    ]


def test_each_annotator_is_shown_against_the_others_mean_per_precision_mode_on_the_demo(demo, demo_page):
    humans = export_records(demo, "human")
    tables = parity_tables(humans, sorted({r.response_id for r in humans}), PRECISION_MODES)
    expected = {row["source"]: row for row in annotator_rows(tables) if row["precision_mode"] == "individual"}
    shown = table(demo_page, "precision mode")
    assert list(shown["precision mode"]) == ["individual", "necessity", "alce"]
    assert shown["alice"][0] == f"{expected['human:alice']['r_vs_gold_without']:.3f}"
    assert "ceiling" not in shown_text(demo_page).lower()


def test_an_annotator_r_that_is_undefined_shows_a_dash_and_says_why(monkeypatch, tmp_path):
    store = tiny_project(tmp_path / "p")
    fact = [{"text": "A man points at the screen.", "citations": [0]}]
    for who in ("ann", "bob"):  # one response finished each: r needs three shared
        for sentence, verifiable in ((0, True), (1, False), (2, False)):
            store.events.append(who, "r1", f"s{sentence}", "verifiable", verifiable)
        store.events.append(who, "r1", "s0", "facts", fact)
        store.events.append(who, "r1", Unit.of_fact(0, fact[0]["text"], [0]), "all", True)
    shown = table(agreement_page(monkeypatch, tmp_path / "p"), "precision mode")
    assert list(shown["ann"]) == ["—"] * 3 and "fewer than 3 shared responses" in shown["note"][0]


def test_undefined_stage_says_why(monkeypatch, tiny):
    alphas = table(agreement_page(monkeypatch, tiny), "stage")
    notes = dict(zip(alphas["stage"], alphas["note"], strict=True))
    assert set(alphas["stage"]) == set(STAGE_NAMES) and len(alphas) == 5
    assert notes["Stage 3 · all"] == "undefined: fewer than two annotators (0)"
    assert (
        list(alphas["alpha"])[0] == "0.444"
    )  # hand: 3 units, D_o = 2/6, D_e = 18/30 → 1 − (1/3)/(3/5) = 4/9


def test_confusion_matrix_counts_the_units_per_pair_of_values(monkeypatch, tiny):
    heatmap = figure(agreement_page(monkeypatch, tiny), "confusion:verifiable:ann:bob")["data"][0]
    # ann across, bob down: (false, false) s2, (true, false) s0, (true, true) s1
    assert heatmap["x"] == ["false", "true"] and heatmap["z"] == [[1, 1], [0, 1]]


def test_annotator_table_gives_agreement_with_gold_and_median_time(monkeypatch, tiny):
    rows = table(agreement_page(monkeypatch, tiny), "annotator").to_dict("records")
    assert [
        (
            r["annotator"],
            r["agrees with gold"],
            r["agrees on adjudicated"],
            r["median time per decision"],
            r["decisions under 2 s"],
        )
        for r in rows
    ] == [("ann", "100.0%", "1 of 1", "2.0 s", "33%"), ("bob", "66.7%", "0 of 1", "5.0 s", "0%")]


def test_annotator_table_gives_each_annotators_cant_tell_rate_among_their_stage_three_answers(
    monkeypatch, tiny
):
    store = ProjectStore.open(tiny)
    first, second = Unit.of_fact(1, "A man points.", [0]), Unit.of_fact(1, "A man speaks.", [0])
    store.events.append("ann", "r1", first, "all", {CANT_TELL: "the audio is inaudible"})
    store.events.append("ann", "r1", second, "all", True)
    store.events.append("bob", "r1", first, "all", True)
    rows = table(agreement_page(monkeypatch, tiny), "annotator").to_dict("records")
    assert [(r["annotator"], r["can't tell"]) for r in rows] == [
        ("ann", "1 of 2 (50%)"),
        ("bob", "0 of 1 (0%)"),
    ]


def test_annotator_table_counts_facts_answered_in_contradiction(monkeypatch, tiny):
    store = ProjectStore.open(tiny)
    waves = Unit.of_fact(1, "He waves.", [0, 1])  # sentence 2 cites the sound and the picture
    for who, together, picture_alone in (("ann", False, True), ("bob", True, True)):
        store.events.append(who, "r1", "s1", "facts", [{"text": "He waves.", "citations": [0, 1]}])
        store.events.append(who, "r1", waves, "all", together)
        store.events.append(who, "r1", waves, "alone.1", picture_alone)
    rows = table(agreement_page(monkeypatch, tiny), "annotator").to_dict("records")
    assert [(r["annotator"], r["facts answered in contradiction"]) for r in rows] == [
        ("ann", "1 of 1 (100%)"),  # together not, the picture alone yes: cannot both be true
        ("bob", "0 of 1 (0%)"),
    ]


def test_stage_button_opens_the_disputes_of_that_stage(monkeypatch, demo):
    app = agreement_page(monkeypatch, demo.directory)
    app.button(key="to_disputes:entailment_all").click().run()
    assert [t.value for t in app.title] == ["Disputes"] and app.selectbox(key="stage").value == "s3-all"
    assert {line.split(" · ")[2] for line in app.radio(key="dispute_choice").options} == {"all"}


def test_confusion_button_opens_the_disputes_of_the_chosen_stage(monkeypatch, tiny):
    app = agreement_page(monkeypatch, tiny)
    app.selectbox(key="confusion_stage").select("decomposition").run()
    app.button(key="to_disputes:confusion").click().run()
    assert app.selectbox(key="stage").value == "s2"


def test_stage_buttons_come_in_protocol_order(demo_page):
    wanted = {f"to_disputes:{stage}" for stage in SHOWN}
    assert [b.key for b in demo_page.button if b.key in wanted] == [f"to_disputes:{stage}" for stage in SHOWN]


def test_atomic_facts_are_compared_per_pair_as_the_facts_both_stated(monkeypatch, tmp_path):
    # ann and bob word one fact differently (the same fact) and bob adds another: 1 shared of 1 and 2
    store = tiny_project(tmp_path / "f")
    for who, facts in (("ann", ["A man points."]), ("bob", ["The man is pointing.", "A dog barks."])):
        store.events.append(who, "r1", "s0", "verifiable", True)
        store.events.append(who, "r1", "s0", "facts", [{"text": t, "citations": [0]} for t in facts])
    app = agreement_page(monkeypatch, tmp_path / "f")
    app.selectbox(key="confusion_stage").select("decomposition").run()
    assert table(app, "pair").to_dict("records") == [
        {
            "pair": "ann × bob",
            "facts both stated": 1,
            "facts of the first": 1,
            "facts of the second": 2,
            "F1": "0.667",
        }
    ]


def test_after_a_new_label_the_last_measured_numbers_show_at_once_until_the_new_ones_are_ready(tiny):
    store = ProjectStore.open(tiny)
    before = project_state(store)
    latest_agreement(store, before)  # the page's first look starts the measurement
    measured = wait_for_agreement(store, before)
    release = threading.Event()

    def slow_measure(units):  # the real measurement, held until the test has looked
        release.wait(30)
        return measure_units(units, n_resamples=20)

    store.events.append("bob", "r1", "s0", "verifiable", True)  # a new label: bob now agrees on s0
    after = project_state(store)
    shown, fresh, error = latest_agreement(store, after, slow_measure)
    assert (shown, fresh, error) == (measured, False, None)  # at once: the last numbers, stale
    release.set()
    new = wait_for_agreement(store, after)
    assert latest_agreement(store, after) == (new, True, None)
    assert new["verifiable"].alpha != measured["verifiable"].alpha


def test_a_label_undone_brings_back_the_numbers_measured_before_it(tiny):
    store = ProjectStore.open(tiny)
    before = project_state(store)
    latest_agreement(store, before)
    measured = wait_for_agreement(store, before)
    store.events.append("bob", "r1", "s0", "verifiable", True)
    latest_agreement(store, project_state(store))
    assert wait_for_agreement(store, project_state(store)) is not measured
    store.events.undo_last("bob", "r1")
    undone = project_state(store)
    latest_agreement(store, undone)
    assert wait_for_agreement(store, undone) is measured  # the same units: not measured again


def test_after_a_new_label_the_last_tables_show_at_once_until_the_new_ones_are_worked_out(tiny):
    store = ProjectStore.open(tiny)
    before = wait_for_tables(store, project_state(store))
    assert [r["annotator"] for r in before.annotators] == ["ann", "bob"]
    store.events.append("bob", "r1", "s0", "verifiable", True)  # a new label: bob now agrees on s0
    release = threading.Event()
    # the tables' one background worker held busy while the page looks: on a loaded machine the new
    # tables (a few ms on this project) could otherwise be done before the look returns
    agreement_tables._EXECUTOR.submit(release.wait, 30)
    shown, fresh = latest_tables(store, project_state(store))
    release.set()
    assert shown is before and not fresh  # at once: the last tables, stale
    after = wait_for_tables(store, project_state(store))
    assert latest_tables(store, project_state(store)) == (after, True)
    assert after.units["verifiable"] != before.units["verifiable"]


class _DoneAtOnce(Executor):
    """Runs each job in the caller: it is done before `submit` returns (a job that beats the look)."""

    def submit(self, fn, /, *args, **kwargs):
        future = Future()
        future.set_result(fn(*args, **kwargs))
        return future


def test_tables_done_before_the_look_returns_are_shown_as_fresh(tiny, monkeypatch):
    store = ProjectStore.open(tiny)
    monkeypatch.setattr(agreement_tables, "_EXECUTOR", _DoneAtOnce())
    state = project_state(store)
    shown, fresh = latest_tables(store, state)
    assert fresh and shown == agreement_tables.agreement_tables(store, state)


def test_a_measurement_done_before_the_look_returns_is_shown_as_fresh(tiny, monkeypatch):
    store = ProjectStore.open(tiny)
    monkeypatch.setattr(agreement_measure, "_EXECUTOR", _DoneAtOnce())
    state = project_state(store)
    shown, fresh, error = latest_agreement(store, state, measure=lambda units: {"measured": sorted(units)})
    assert (shown, fresh, error) == (
        {"measured": sorted(agreement_measure.agreement_inputs(store, state).units)},
        True,
        None,
    )


def test_an_alpha_of_zero_keeps_its_value_label_beside_its_empty_bar():
    from annotation.agreement.reliability import Agreement
    from pages.widgets.agreement_charts import alpha_bars

    results = {
        "verifiable": Agreement("verifiable", "nominal", 0.9, 0.8, 0.95, 20, 3),
        "entailment_all": Agreement("entailment_all", "nominal", 0.0, -0.1, 0.1, 20, 3),
    }
    bar = alpha_bars(results, {}).data[0]
    assert list(bar.text) == ["0.90", "0.00"]
    assert list(bar.textposition) == ["inside", "outside"]
