"""Calibrate (admin): which judge configuration tracks the human gold best, how sure we are,
whether it could stand in for an annotator, and the calibrated configuration to export.

The sweep is `calibration.sweep.run.run_sweep` over the project state's inputs
(`calibration.sweep.inputs`: the one gold set, annotators from the event log, judges) — the input
path of `sweep --project` and `export --project` too, so the page and the commands give the same
numbers. It runs once per (project revision, settings) (`calibration.sweep.project_sweep`), so
reruns (a click on the scatter, a tab) and other sessions do not redo it, and the scatter reads
the scores the sweep computed. After a change (a new label) the page shows the last report at
once, saying which revision it is of, while the new one runs in the background; a timed fragment
looks every 2 s and draws the new report when it is ready.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import streamlit as st

from annotation.protocol.errors import InputError
from annotation.protocol.ids import configuration_of, configuration_parts
from annotation.store.rows import Person
from calibration.config.calibrated import (
    build_calibrated_config,
    exportable_sources,
    write_calibrated_config,
)
from calibration.config.costs import cheapest_choice
from calibration.scoring.murgat_s import PRECISION_MODES
from calibration.stats.numbers import interval, number, share
from calibration.sweep.inputs import inputs_from_state
from calibration.sweep.parity import DEFAULT_EPSILON
from calibration.sweep.project_sweep import latest_project_sweep, project_sweep, start_background_sweep
from calibration.sweep.verdict import decision, export_refusal
from pages.widgets import calibration_charts as charts
from pages.widgets.calibration_tables import (
    annotator_rows,
    dataframe_numbers,
    stage_rows,
    sweep_rows,
)
from pages.widgets.context import current_state, literal
from pages.widgets.frame import run_page
from pages.widgets.judges_file import load_project_judges
from pages.widgets.model_filter import choose_models
from pages.widgets.opened_response import open_response, picked_from_scatter
from pages.widgets.problem_box import show_problems

RULES = {
    "best": "Highest r",
    "cheapest": "Cheapest in the 95 % confidence set of the best",
    "hand": "By hand, with a reason",
}
DEFAULT_SETTINGS = {
    "modes": list(PRECISION_MODES),
    "n_boot": 2000,
    "folds": 5,
    "seed": 0,
    "epsilon": DEFAULT_EPSILON,
}
SCATTER_KEY = "calibrate_scatter"
DRAWING = "calibrate_drawing"  # True while a whole run draws the page (its fragments run inside it)


def cached_sweep(store, settings: dict) -> dict:
    """{'key', 'report', 'fresh', 'as_of', …} for the project's revision and these settings: the
    sweep is run once per (revision, settings) for every session (`latest_project_sweep`: after a
    change, the last report while the new one runs); the dict keeps this session's choices about
    that report (the cheapest rule's pick). InputError passes through."""
    with st.spinner("Running the sweep (bootstrap, confidence set, cross-validation, human parity)…"):
        latest = latest_project_sweep(store, settings, start=False)  # started when the page is drawn
    cached = st.session_state.get("calibrate_sweep")
    if cached is None or cached["report"] is not latest.report:
        key = (str(latest.as_of), json.dumps(settings, sort_keys=True))
        cached = {"key": key, "report": latest.report}
        st.session_state["calibrate_sweep"] = cached
    cached["fresh"], cached["as_of"] = latest.fresh, latest.as_of
    return cached


def as_of_caption(store, cached: dict, settings: dict) -> None:
    """What revision the figures are of; while a newer sweep runs, say so and look again every 2 s."""
    as_of = cached["as_of"]
    said = f"event {as_of.events:,}, record {as_of.records:,} of the project's logs"
    if cached["fresh"]:
        st.caption(f"Figures as of the latest change ({said}).")
        return
    st.caption(
        f"⟳ updating… the figures below are the last measured ones, as of {said}; the sweep of the "
        "latest labels runs in the background and shows here when it is done."
    )
    st.fragment(sweep_watch, run_every=2.0)(store, settings)


def sweep_watch(store, settings: dict) -> None:
    """A timed fragment: once the current revision's sweep is done, one whole run draws it; between
    whole runs it starts the sweep if none is running (one for older labels may have been)."""
    if latest_project_sweep(store, settings, start=False).fresh:
        st.rerun()
    if not st.session_state.get(DRAWING):  # not inside a whole run, which starts it when drawn
        start_background_sweep(store, settings)


def response_models(store) -> dict[str, str | None]:
    """{response: its model}, read once per responses mark in this session (50,000 rows are a third
    of a rerun; only an import of responses changes them)."""
    marks = current_state(store).revision
    key = (str(store.db_path), marks.responses)
    found = st.session_state.get("calibrate_models_of")
    if found is None or found[0] != key:
        found = (key, dict(store.response_models()))
        st.session_state["calibrate_models_of"] = found
    return found[1]


def response_scores(cached: dict, source: str, mode: str) -> dict[str, float | None]:
    """{response_id: MURGAT-S} of `source` in `mode` over the gold responses, as the sweep scored them."""
    return cached["report"].scores.get((source, mode), {})


def settings_form() -> dict:
    settings = st.session_state.setdefault("calibrate_settings", dict(DEFAULT_SETTINGS))
    with st.expander("Sweep settings"), st.form("sweep_settings"):
        modes = st.multiselect(
            "Precision modes", PRECISION_MODES, default=settings["modes"], key="sweep_modes"
        )
        left, middle, right, last = st.columns(4)
        n_boot = left.number_input(
            "Bootstrap resamples",
            min_value=100,
            max_value=20000,
            step=100,
            value=settings["n_boot"],
            key="sweep_n_boot",
        )
        folds = middle.number_input(
            "Cross-validation folds", min_value=2, max_value=20, value=settings["folds"], key="sweep_folds"
        )
        seed = right.number_input("Seed", min_value=0, value=settings["seed"], key="sweep_seed")
        epsilon = last.number_input(
            "Parity margin ε",
            min_value=0.0,
            max_value=1.0,
            step=0.05,
            value=float(settings["epsilon"]),
            key="sweep_epsilon",
            help="In r: a judge wins against an annotator when its r against the other annotators' "
            "mean is shown to be no more than ε below the annotator's. Calderon et al.'s test puts "
            "its margin on a win rate and asks 50–100 responses; below 30 parity is flagged.",
        )
        if st.form_submit_button("Run the sweep with these settings"):
            settings = {
                "modes": [m for m in PRECISION_MODES if m in modes] or list(PRECISION_MODES),
                "n_boot": int(n_boot),
                "folds": int(folds),
                "seed": int(seed),
                "epsilon": float(epsilon),
            }
            st.session_state["calibrate_settings"] = settings
    return settings


def choose(store, report, cached: dict):
    """(the chosen configuration, the rule, the reason for a choice by hand or None): by the admin's
    rule (default: the sweep's best)."""
    rule = st.radio(
        "Choose the configuration by", tuple(RULES), format_func=RULES.get, horizontal=True, key="choose_rule"
    )
    if report.best is None:
        return None, "best", None
    if rule == "hand":
        return choose_by_hand(report)
    if rule == "best":
        return report.best, "best", None
    path, judges, problem = load_project_judges(store)
    if not judges:
        st.info(
            "The cheapest rule needs the judges' prices from the judges file (Judges page)"
            + (", which has problems" if problem else "")
            + "; showing the highest r."
        )
        return report.best, "best", None
    key = (str(path), path.stat().st_mtime_ns)
    if cached.get("cheapest", (None,))[0] != key:
        try:
            cached["cheapest"] = (key, cheapest_choice(report, judges, store), None)
        except ValueError as error:
            cached["cheapest"] = (key, None, str(error))
    _, cheapest, why = cached["cheapest"]
    if cheapest is None:
        st.info(f"No price for the cheapest rule: {literal(why)}. Showing the highest r.")
        return report.best, "best", None
    return cheapest, "cheapest", None


def choose_by_hand(report):
    """Any configuration of the sweep, chosen by a person with a reason (recorded in the export)."""
    names = [c.name for c in report.configs]
    if st.session_state.get("hand_config") not in names:
        st.session_state.pop("hand_config", None)
    left, right = st.columns([2, 3])
    name = left.selectbox("Configuration", names, index=names.index(report.best.name), key="hand_config")
    reason = right.text_input("Why this one (recorded in the exported evidence)", key="hand_reason")
    return report.configs[names.index(name)], "hand", reason.strip() or None


def decision_sentence(slot, report, choice) -> None:
    """The page's first sentence: whether the gold decides the choice, with the numbers."""
    decided = decision(report, choice)
    if decided.undecided:
        slot.warning(literal(decided.sentence), icon=":material/help:")
    else:
        slot.success(literal(decided.sentence), icon=":material/check_circle:")


def chosen_summary(report, choice, rule: str) -> None:
    if choice is None:
        st.warning("No configuration has a defined correlation with gold: nothing to choose.")
        return
    decided = decision(report, choice)
    text = (
        f"{'Chosen (the gold cannot decide)' if decided.undecided else 'Chosen'}: **{literal(choice.name)}** — "
        f"r {number(choice.pearson)} {interval(*choice.pearson_ci)}, n {choice.n}, bootstrap win share "
        f"{share(choice.p_best)}"
    )
    if decided.undecided:
        st.warning(text, icon=":material/help:")
    else:
        st.success(text, icon=":material/star:")
    if rule == "hand":
        st.caption("Chosen by hand; the reason is recorded in the exported evidence.")
    elif choice is not report.best and report.best is not None:
        st.caption(
            f"The highest r is {literal(report.best.name)}'s; the chosen one is in the 95 % "
            "confidence set of the best."
        )
    st.markdown(
        f"**95 % confidence set of the best** ({len(report.best_set)} of {len(report.configs)}; "
        "Hansen–Lunde–Nason model confidence set): "
        + (", ".join(literal(f"{m['source']} [{m['precision_mode']}]") for m in report.best_set) or "none")
    )
    s = report.selection
    pick = s.get("pick") or "—"
    st.caption(
        f"Expected r of choosing the highest r, on responses it was not chosen on: "
        f"{number(s.get('expected_r'))} ± {number(s.get('expected_r_se'))} (bootstrap SE; "
        f"{s.get('folds')}-fold nested cross-validation × {s.get('repeats')}, held-out deviations pooled "
        f"into one r). That rule picks {literal(pick)} on all the gold, with in-sample r "
        f"{number(s.get('in_sample_r'))} (optimism {number(s.get('optimism'))}). Human parity of "
        f"{literal(choice.name)}: {charts.parity_text(choice.parity)} (the judge may replace the "
        "annotators when the winning rate is at least 0.5). Bootstrap win share: how often a "
        "configuration has the highest r when the responses are redrawn — not the probability that it is "
        "the best (among equal configurations the winner's share is far above 1/k)."
    )


def figures(report, choice, gold, judges, cached: dict, shown_ids: set[str]):
    """The figures; returns (the configuration inspected, the response id picked on the scatter or
    None). The scatter draws the responses in `shown_ids` (the models chosen)."""
    names = [c.name for c in report.configs]
    default = names.index(choice.name) if choice is not None else 0
    if st.session_state.get("inspect_config") not in names:  # a new sweep without the old choice
        st.session_state.pop("inspect_config", None)
    inspected = report.configs[
        names.index(st.selectbox("Configuration to inspect", names, index=default, key="inspect_config"))
    ]
    scatter_tab, heatmap_tab, forest_tab, parity_tab = st.tabs(
        ["Judge vs gold", "Verifier × entailment judge", "Forest plot", "Human parity"]
    )
    with scatter_tab:
        mode = inspected.precision_mode
        gold_scores = response_scores(cached, "gold", mode)
        judge_scores = response_scores(cached, inspected.source, mode)
        points = [
            (rid, gold_scores[rid], judge_scores[rid])
            for rid in gold_scores
            if rid in shown_ids
            and rid in judge_scores
            and charts.known(gold_scores[rid])
            and charts.known(judge_scores[rid])
        ]
        title = f"{inspected.name}: r {number(inspected.pearson)} over {len(points)} responses"
        event = st.plotly_chart(
            charts.scatter_figure(points, title, inspected.parity, mode),
            key=SCATTER_KEY,
            on_select="rerun",
            selection_mode="points",
            config={"displayModeBar": False},
        )
        st.caption("Click a response to open it below.")
    with heatmap_tab:
        figure = charts.heatmap_figure(report.configs, report.settings["modes"], choice)
        if figure is not None:
            st.plotly_chart(figure, key="calibrate_heatmap", config={"displayModeBar": False})
        other = sorted({c.source for c in report.configs if configuration_of(c.source) is None})
        if other:
            st.caption(
                "Not of the form judge:VERIFIER+DECOMPOSER+ENTAILER (so not in the heatmap): "
                + ", ".join(literal(s) for s in other)
            )
    with forest_tab:
        st.plotly_chart(
            charts.forest_figure(report.configs, choice),
            key="calibrate_forest",
            config={"displayModeBar": False},
        )
    with parity_tab:
        parity_section(report, choice)
    return inspected, charts.selected_response(event)


def parity_section(report, choice) -> None:
    """The human-parity plot, or why there is none, and what it shows."""
    figure = charts.parity_figure(report.configs, report.settings["parity_epsilon"], choice)
    if figure is None:
        reason = report.configs[0].parity.get("reason") if report.configs else None
        st.info(f"No human parity: {literal(reason or 'no annotator has finished work')}.")
        return
    st.plotly_chart(figure, key="calibrate_parity", config={"displayModeBar": False})
    st.caption(
        "For each annotator, the target is the mean MURGAT-S of the other annotators (their finished "
        "work only); the advantage is r(judge, that target) − r(annotator, that target) on the responses "
        "both scored, averaged over the annotators (95 % CI: jackknife over responses). "
        "Winning rate: the share of annotators for whom the judge is not more than ε worse, by a "
        "one-sided test (Benjamini–Yekutieli over annotators)."
    )


def export_section(store, report, choice, rule: str, gold, reason: str | None, settings: dict) -> None:
    """The calibrated configuration of `choice` as a JSON download, or why there is none (first: a
    configuration of simulated judges, or none the judges file describes). The export chooses by the
    page's rule among the configurations the judges file describes, as `calibration export` does: when
    the sweep holds others, among a sweep of those alone (`export_pool`). A choice the gold cannot
    decide needs the acknowledgement checkbox; one by hand needs its reason."""
    if choice is None:
        return
    # what cannot be exported at all is said before anything is asked of the person
    path, judges, problem = load_project_judges(store)
    exportable, left_out = exportable_sources(inputs_from_state(current_state(store)).judge_sources(), judges)
    if not exportable:
        stages = configuration_of(choice.source) or ()
        simulated = [name for name in stages if name.startswith("sim-") and name not in judges]
        if simulated:
            st.info(
                f"{literal(choice.source)} is made of simulated judges "
                f"({literal(', '.join(sorted(set(simulated))))}), as in "
                "the demo: they have no endpoint configuration (adapter, model, prompts), so there is "
                "nothing to export. Run real judges from the Judges page, sweep again, then export.",
                icon=":material/info:",
            )
        elif problem is not None:
            show_problems(problem, "The judges file has problems, so nothing can be exported:")
        else:
            st.info(
                f"Nothing to export: {literal(left_out.get(choice.source, 'no exportable configuration'))}."
            )
        return
    if left_out:
        found = export_pool(store, report, choice, rule, judges, exportable, left_out, settings)
        if found is None:
            return
        report, choice = found
    decided = decision(report, choice)
    acknowledged = False
    if decided.undecided:
        acknowledged = st.checkbox(
            "Export this choice although the gold cannot separate the configurations",
            key="export_undecided",
            help="Recorded in the exported evidence, with the sentence that says why the gold cannot decide.",
        )
        if export_refusal(decided, acknowledged) is not None:
            st.info("Tick the box above to export a choice the gold cannot decide.", icon=":material/info:")
            return
    if rule == "hand" and reason is None:
        st.info("Say why this configuration is chosen by hand to export it.", icon=":material/info:")
        return
    try:
        recorded = {**decided.to_dict(), "acknowledged": acknowledged}
        if rule == "hand":
            recorded["reason"] = reason
        cfg = build_calibrated_config(report, choice, judges, gold, chosen_by=rule, decision=recorded)
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "calibrated.json"
            write_calibrated_config(cfg, out)  # the file the CLI writes, validated the same way
            data = out.read_bytes()
    except ValueError as error:
        st.warning(f"The configuration could not be exported: {error}")
        return
    st.caption(f"{cfg.configuration} in {cfg.precision_mode} mode, judges from `{path}`.")
    st.download_button(
        "Download the calibrated configuration (JSON)",
        data,
        file_name=f"calibrated-{'_'.join(configuration_parts(cfg.configuration))}-{cfg.precision_mode}.json",
        mime="application/json",
        key="export_config",
        icon=":material/download:",
    )


def sweep_section(report, settings: dict) -> None:
    """What the sweep ran on, its notes, and the table of configurations."""
    st.caption(
        f"{report.gold['n_responses']} gold responses · {len(report.sources)} judge source(s) · "
        f"{len({row['source'] for row in report.annotators if row['n_finished']})} annotator(s) who "
        "finished a gold response · "
        f"{settings['n_boot']} bootstrap resamples"
    )
    for note in report.notes:
        st.caption(f"Note: {literal(note)}")
    st.subheader("Sweep")
    st.dataframe(
        sweep_rows(report),
        hide_index=True,
        width="stretch",
        key="sweep_table",
        column_config=dataframe_numbers(),
    )
    st.caption(
        "Sorted by r (full-sample Pearson r with gold over the n responses where both scores are "
        "determined; 'undetermined' responses are left out, never scored 0); click a column header to "
        "sort. r 95% CI: Fisher z with a jackknife standard error. Win share: the share of bootstrap "
        "resamples in which the configuration has the highest r (how often it wins when the responses "
        "are redrawn, not the probability that it is the best). In best set: 'yes' when in the 95 % "
        "confidence set of the best configurations. Parity: see the Human parity tab."
    )


def opened_section(store, opened: str, inspected, gold, judges, cached: dict) -> None:
    """The response picked on the scatter (or in the chooser), in the inspected configuration's mode."""
    mode = inspected.precision_mode
    scores = (
        response_scores(cached, "gold", mode).get(opened),
        response_scores(cached, inspected.source, mode).get(opened),
    )
    judged = next((r for r in judges if r.source == inspected.source and r.response_id == opened), None)
    open_response(store, opened, inspected, scores, next(r for r in gold if r.response_id == opened), judged)


def calibrate(me: Person, store) -> None:
    st.title("Calibrate")
    first_sentence = st.container()  # filled once the choice is known: it says whether the gold decides
    inputs = inputs_from_state(current_state(store))
    gold, judges = inputs.gold, inputs.judges  # judges: the gold responses' records
    if not gold or not inputs.judged:
        st.info(
            (
                "No gold records yet: gold is derived from the annotators' labels and rulings (Disputes page). "
                if not gold
                else ""
            )
            + (
                "No judge records yet: run judges on the Judges page or import judge records."
                if not inputs.judged
                else ""
            )
        )
        return
    settings = settings_form()
    try:
        cached = cached_sweep(store, settings)
    except InputError as error:
        show_problems(error, "The sweep cannot run on these records:")
        return
    st.session_state[DRAWING] = True
    try:
        calibrate_figures(store, cached, settings, gold, judges, first_sentence)
    finally:  # the latest labels' sweep, once this run has drawn the last one (not competing with it)
        st.session_state[DRAWING] = False
        start_background_sweep(store, settings)


def calibrate_figures(store, cached: dict, settings: dict, gold, judges, first_sentence) -> None:
    """Everything drawn from the sweep's report: the table, the choice, the figures, the export."""
    report = cached["report"]
    as_of_caption(store, cached, settings)
    sweep_section(report, settings)
    st.subheader("Choice")
    choice, rule, reason = choose(store, report, cached)
    decision_sentence(first_sentence, report, choice)
    chosen_summary(report, choice, rule)
    st.subheader("Figures")
    model_of = response_models(store)
    models = choose_models(
        list(dict.fromkeys(model_of.get(r.response_id) for r in gold)),
        key="calibrate_models",
        label="Models whose responses the scatter and the chooser show",
    )
    shown_ids = [r.response_id for r in gold if model_of.get(r.response_id) in models]
    inspected, picked = figures(report, choice, gold, judges, cached, set(shown_ids))
    opened = picked_from_scatter(picked, shown_ids)
    if opened is not None:
        opened_section(store, opened, inspected, gold, judges, cached)
    with st.expander("Where the loss is, stage by stage"):
        st.dataframe(stage_rows(report), hide_index=True, width="stretch", column_config=dataframe_numbers())
    if report.annotators:
        with st.expander("Annotators against the other annotators' mean score"):
            st.dataframe(
                annotator_rows(report), hide_index=True, width="stretch", column_config=dataframe_numbers()
            )
    st.subheader("Export")
    if not cached["fresh"]:  # the evidence exported must be the current gold's
        st.info(
            "The export waits for the sweep of the latest labels (updating above).", icon=":material/info:"
        )
        return
    export_section(store, report, choice, rule, gold, reason, settings)


def export_pool(store, report, choice, rule: str, judges: dict, exportable, left_out: dict, settings: dict):
    """(the sweep of the exportable sources alone, the choice by `rule` within it), or None with
    what stands in the way shown: the sweep's confidence set, its test and the choice depend on
    the configurations compared, and the exported evidence must describe the choice it records."""
    listed = ", ".join(sorted(left_out))
    st.caption(
        literal(
            f"The export chooses among the {len(exportable)} judge source(s) the judges file describes, "
            f"as `python -m calibration export` does; left out: {listed}."
        )
    )
    try:
        with st.spinner("Sweeping the exportable configurations…"):
            pool = project_sweep(store, settings, frozenset(exportable))
    except (InputError, ValueError) as error:
        st.warning(f"The exportable configurations cannot be swept: {literal(error)}")
        return None
    if rule == "hand":
        chosen = next(
            (
                c
                for c in pool.configs
                if (c.source, c.precision_mode) == (choice.source, choice.precision_mode)
            ),
            None,
        )
        if chosen is None:
            st.info(f"{literal(choice.name)} cannot be exported: {literal(left_out.get(choice.source, ''))}.")
            return None
    elif rule == "cheapest":
        try:
            chosen = cheapest_choice(pool, judges, store)
        except ValueError as error:
            st.info(f"No price for the cheapest rule among the exportable ones: {literal(error)}.")
            return None
    else:
        chosen = pool.best
    if chosen is None:
        st.info("No exportable configuration has a defined correlation with gold: nothing to export.")
        return None
    decided = decision(pool, chosen)
    st.caption(literal(f"Among them: {chosen.name} — {decided.sentence}"))
    return pool, chosen


run_page(calibrate, "admin", title="the calibration page")
