"""Model scores (admin): every model's mean MURGAT-S (or a part) with a confidence interval —
judge-only (biased, shown for reference), human-only over the gold subset, and prediction-powered
(PPI++: the judge's mean corrected by the people's) — side by side in a forest plot, the pairwise
differences, the planner of more gold with its annotation queue, and downloads.

The numbers are `calibration.estimates`'s, read fresh from the project on every run (gold is
derived from the current labels); the planner runs in a fragment so its inputs do not recompute them.
"""

from __future__ import annotations

import json

import streamlit as st

from annotation.formats.spreadsheet_csv import csv_text
from annotation.store.rows import Person
from annotation.work.sample_queues import (
    annotation_scope,
    queue_summaries,
    queued_response_ids,
    set_annotation_scope,
)
from calibration.estimates.inputs import (
    METRIC_NAMES,
    METRICS,
    calibrated_mode,
    judge_sources,
    scored_responses,
)
from calibration.estimates.models import estimate_models, model_samples
from calibration.estimates.planning import ASSURANCE, create_plan_queue, plan_more_gold, queue_counts
from calibration.estimates.ppi import MIN_LABELLED
from calibration.scoring.murgat_s import PRECISION_MODES
from calibration.stats.numbers import number, share
from pages.widgets import model_charts, model_tables
from pages.widgets.context import current_state, literal, remembered, show_text
from pages.widgets.frame import run_page
from pages.widgets.model_filter import choose_models, model_label

LEVELS = {"90 %": 0.10, "95 %": 0.05, "99 %": 0.01}


def settings(store, sources: list[tuple[str, int]]) -> dict:
    """The judge, precision mode, metric and confidence level chosen (judge with most responses
    first; the mode opens on the one the judge is calibrated in: its highest r against gold)."""
    judge, mode, metric, level = st.columns([3, 1, 1, 1])
    source = judge.selectbox(
        "Judge whose scores are corrected",
        [s for s, _ in sources],
        format_func=lambda s: f"{s} ({dict(sources)[s]} responses)",
        key=remembered("scores_source"),
    )
    calibrated, r = calibrated_mode(store, source)
    remembered("scores_mode")
    if st.session_state.get("scores_mode_for") != source:  # a new judge opens on its calibrated mode
        st.session_state["scores_mode"] = calibrated
        st.session_state["scores_mode_for"] = source
    return {
        "source": source,
        "calibrated": (calibrated, r),
        "mode": mode.selectbox("Precision mode", PRECISION_MODES, key="scores_mode"),
        "metric": metric.selectbox(
            "Score", METRICS, format_func=METRIC_NAMES.get, key=remembered("scores_metric")
        ),
        "alpha": LEVELS[level.selectbox("Confidence", list(LEVELS), key=remembered("scores_level", "95 %"))],
    }


def estimates_section(report, metric_name: str, chosen: dict) -> None:
    mode, r = chosen["calibrated"]
    st.caption(
        f"{literal(chosen['source'])} in {chosen['mode']} mode. It is calibrated in {mode} mode "
        f"(its highest r against gold, {number(r)})"
        + ("." if chosen["mode"] == mode else f"; {chosen['mode']} was chosen here instead.")
        + " Gold used twice: these intervals correct with the same gold the configuration was chosen "
        "on; `calibration estimate --calibrated FILE` cross-fits them instead (chosen on 4 of 5 folds, "
        "corrected on the fifth)."
    )
    st.plotly_chart(model_charts.forest_figure(report, metric_name), key="scores_forest", width="stretch")
    st.caption(
        "Judge-only means inherit the judge's systematic error: shown for reference, no interval is "
        "claimed. Human-only: the gold responses alone. PPI++: the judge's mean over every response, "
        "corrected by the mean gold − λ·judge difference on the gold responses (λ tuned for power); "
        "correction: PPI++ − judge-only, what the gold changes. ESS gain: the judge makes the n gold "
        "responses worth ESS gain × n gold responses without it (the ratio of the two variances). "
        f"Intervals are t intervals that held their level from {MIN_LABELLED} gold responses a model "
        "on in simulation; with fewer, a model has its means and no interval."
    )
    for m in report.models:
        if m.no_ci_reason:
            st.caption(f"{literal(model_label(m.model))}: no interval — {m.no_ci_reason}.")
    corrections = [
        f"{model_label(m.model)} {number(m.correction)}" for m in report.models if m.correction is not None
    ]
    if corrections:
        st.markdown("**Correction (PPI++ − judge-only):** " + literal(", ".join(corrections)))
    st.dataframe(model_tables.model_rows(report), hide_index=True, width="stretch", key="scores_table")


def differences_section(report) -> None:
    st.subheader("Differences between models")
    if not report.differences:
        st.info("Differences need two models with a PPI estimate (two gold responses each at least).")
        return
    st.plotly_chart(model_charts.differences_figure(report), key="scores_differences", width="stretch")
    st.caption(
        "Paired when the two models answered the same questions and at least two of them have gold "
        "for both (PPI on the per-question differences); otherwise independent."
    )
    st.dataframe(
        model_tables.difference_rows(report), hide_index=True, width="stretch", key="scores_diff_table"
    )


def scope_toggle(store) -> None:
    queued_only = st.toggle(
        "Ask annotators only the responses of named queues",
        value=annotation_scope(store) == "queues",
        key="scores_scope",
        help="Off: every response of the project is asked, queued ones first.",
    )
    wanted = "queues" if queued_only else "all"
    if wanted != annotation_scope(store):
        set_annotation_scope(store, wanted)


def planner(store, samples, alpha: float) -> None:
    """More gold per model for a target half-width, and the queue that asks for it."""
    st.subheader("Plan more gold")
    target = st.number_input(
        "Target CI half-width (PPI++)",
        min_value=0.001,
        max_value=1.0,
        value=0.05,
        step=0.01,
        format="%.3f",
        key="scores_target",
    )
    plan = planned(samples, target, alpha)
    queued = set(queued_response_ids(store))
    waiting = {s.model: sum(1 for rid in s.unlabelled_ids if rid in queued) for s in samples}
    st.dataframe(model_tables.plan_rows(plan, waiting), hide_index=True, width="stretch", key="scores_plan")
    st.caption(
        f"More gold needed: the fewest that reach ±{target:g} with probability ≥ {share(ASSURANCE)} "
        "(the half-width the new labels give is random: planning for the projected half-width reaches "
        "it about half the time). P(reaching the target): that probability at the planned count, or "
        "with every unlabelled response labelled when the target is out of reach."
    )
    with st.form("scores_queue_form"):
        name_column, seed_column = st.columns([3, 1])
        name = name_column.text_input("Queue name", value=f"gold for ±{target:g}", key="scores_queue_name")
        seed = seed_column.number_input("Seed", min_value=0, value=0, step=1, key="scores_queue_seed")
        if st.form_submit_button("Create the annotation queue", icon=":material/playlist_add:"):
            try:
                summary = create_plan_queue(store, name, samples, plan, int(seed))
            except ValueError as error:
                st.error("The queue was not created:")
                show_text(str(error))
            else:
                already = sum(waiting for _, waiting in queue_counts(samples, plan, queued).values())
                st.success(
                    f"Queue created with {summary.size} response(s) to label."
                    + (f" The plan's other {already} wait in earlier queues." if already else "")
                )
                show_text(", ".join(f"{model_label(m)}: {n}" for m, n in summary.strata.items()))
    scope_toggle(store)
    queues = queue_summaries(store)
    if queues:
        st.dataframe(
            [
                {
                    "queue": q.name,
                    "responses": q.size,
                    "per model": ", ".join(f"{model_label(m)}: {n}" for m, n in q.strata.items()),
                    "created": q.created_at,
                }
                for q in queues
            ],
            hide_index=True,
            width="stretch",
            key="scores_queues",
        )


def planned(samples, target: float, alpha: float):
    """`plan_more_gold`, computed once per (samples, target, level) in this session: the samples
    are the same objects while the estimates are (`estimates`), so a rerun after a label that left
    every gold score as it was does not plan again."""
    key = (target, alpha)
    found = st.session_state.get("scores_plan_of")
    if found is not None and found[1] == key and len(found[0]) == len(samples):
        if all(a is b for a, b in zip(found[0], samples, strict=True)):
            return found[2]
    plan = plan_more_gold(samples, target, alpha)
    st.session_state["scores_plan_of"] = (list(samples), key, plan)
    return plan


def downloads(report, metric: str) -> None:
    left, middle, right = st.columns(3)
    for column, rows, name, label in (
        (left, model_tables.model_rows(report), "models", "Models (CSV)"),
        (middle, model_tables.difference_rows(report), "differences", "Differences (CSV)"),
    ):
        column.download_button(
            label,
            csv_text(rows),
            file_name=f"model-scores-{metric}-{name}.csv",
            mime="text/csv",
            key=f"scores_download_{name}",
            icon=":material/table:",
            on_click="ignore",
            width="stretch",
        )
    right.download_button(
        "Estimates (JSON)",
        json.dumps(report.to_dict(), indent=2),
        file_name=f"model-scores-{metric}.json",
        mime="application/json",
        key="scores_download_json",
        icon=":material/download:",
        on_click="ignore",
        width="stretch",
    )


def estimates(rows: list, models: list, metric: str, alpha: float, scored_by: tuple[str, str]):
    """(the estimate report, each model's sample) of the chosen models' rows (the scores of
    `scored_by`: judge, precision mode), computed once per (rows, models, metric, level) in this session: `scored_responses` hands every rerun of one
    revision the same rows, so a click elsewhere on the page (the planner, a download) does not
    estimate 50,000 responses again."""
    key = (tuple(models), metric, alpha, scored_by)
    found = st.session_state.get("scores_estimates")
    if found is not None and found[0] is rows and found[1] == key:
        return found[2], found[3]
    chosen = [r for r in rows if r.model in models]
    judge, precision = scored_by
    report = estimate_models(chosen, metric, alpha, judge=judge, precision=precision)
    by_model = model_samples(chosen, metric)
    st.session_state["scores_estimates"] = (rows, key, report, by_model)
    return report, by_model


def model_scores_page(me: Person, store) -> None:
    st.title("Model scores")
    sources = judge_sources(store)
    if not sources:
        st.info(
            "No judge records yet: run a judge on the responses (Judges page, or `calibration score --config`)."
        )
        return
    chosen = settings(store, sources)
    with st.spinner("Scoring the responses…"):
        rows = scored_responses(store, chosen["source"], chosen["mode"])
    models = choose_models(list(dict.fromkeys(r.model for r in rows)), key="scores_models")
    report, by_model = estimates(
        rows, models, chosen["metric"], chosen["alpha"], (chosen["source"], chosen["mode"])
    )
    estimates_section(report, METRIC_NAMES[chosen["metric"]], chosen)
    waiting = current_state(store).gold.awaiting_note()
    if waiting:
        st.caption(f"Gold: {waiting} (here they count as not labelled).")
    differences_section(report)
    st.fragment(planner)(store, [by_model[m.model] for m in report.models], chosen["alpha"])
    st.subheader("Downloads")
    downloads(report, chosen["metric"])


run_page(model_scores_page, "admin", title="the model scores page")
