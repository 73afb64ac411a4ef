"""Judges (admin): the judges file, a dry-run plan, a judge run in the background with its
progress, and the judge records the project holds.

The run itself is `calibration.judges.runner.run_configurations` on a background thread
(`pages.widgets.judge_run`); this page only reads its latest progress, once a second while
it runs. API keys are never shown: only the variable's name and whether it is set.
"""

from __future__ import annotations

import io
import itertools
from collections import Counter
from pathlib import Path

import streamlit as st

from annotation.formats.readers import write_records_jsonl
from annotation.project_settings import ProjectSettings, SettingError, write_settings
from annotation.protocol.errors import InputError
from annotation.protocol.ids import configuration_name
from calibration.judges.judges_file import GOLD, parse_configuration
from calibration.judges.pipeline import select_responses, undetermined_reasons
from calibration.judges.plan import plan_run
from pages.widgets import judge_run
from pages.widgets.context import literal, remembered, show_text
from pages.widgets.frame import run_page
from pages.widgets.judges_file import (
    JUDGES_SETTING,
    judge_rows,
    judges_file_text,
    load_project_judges,
    missing_keys,
    save_judges_text,
)
from pages.widgets.model_filter import choose_models, model_label, project_models
from pages.widgets.problem_box import show_problems

ALL_SOURCES = "all judge sources"
SAVED_KEY = "judges_file_saved"  # the notice of a judges file just saved, shown after the rerun
EXAMPLE = """[judges.qwen-omni]
adapter = "openai"
model = "Qwen/Qwen3-Omni-30B-A3B-Instruct"
base_urls = ["http://127.0.0.1:8000/v1"]
api_key_env = "VLLM_API_KEY"   # the variable's NAME; the key stays in the environment
max_concurrency = 16
price_in_per_1k = 0.0
price_out_per_1k = 0.0"""


def judges_file_section(store):
    """The path setting and the judges it names; returns the judges ({} when none)."""
    path, judges, problem = load_project_judges(store)
    with st.form("judges_file"):
        shown = ProjectSettings.of(store).judges_toml or (str(path) if path else "")
        chosen = st.text_input(
            "Judges file (TOML; a relative path is read from the project directory)",
            value=shown,
            key="judges_toml_input",
            placeholder=str(Path(store.directory) / "judges.toml"),
        )
        if st.form_submit_button("Save path"):
            try:
                write_settings(store, {JUDGES_SETTING: chosen.strip()})
            except SettingError as error:
                st.error(literal(f"Nothing was saved: {error}"))
            else:
                st.rerun()
    write_judges_file(store, path)
    if path is None:
        st.info("No judges file yet: write one below (an example is filled in), or give its path above.")
    elif problem is not None:
        show_problems(problem, f"The judges file {path.name} cannot be used:")
    else:
        st.caption(f"{len(judges)} judge(s) from `{path}`")
        st.dataframe(judge_rows(judges), hide_index=True, width="stretch")
    return judges


def write_judges_file(store, path: Path | None) -> None:
    """The judges file as text an admin edits here; saved only when the judges-file reader accepts
    all of it, atomically. An API key is never written: only the name of its variable."""
    saved_notice = st.session_state.pop(SAVED_KEY, None)
    if saved_notice:
        st.success(saved_notice, icon=":material/check_circle:")
    with st.expander("Write the judges file", expanded=path is None, icon=":material/edit:"):
        current = judges_file_text(path)
        if current is None:
            current = EXAMPLE + "\n"
        with st.form("judges_file_text"):
            text = st.text_area(
                "Judges (TOML)",
                value=current,
                height=260,
                key="judges_file_text_input",
                help="api_key_env names the environment variable that holds a judge's key; the key "
                "itself is never written here (the file refuses an api_key field).",
            )
            saved = st.form_submit_button("Check and save", icon=":material/save:")
        if not saved:
            return
        try:
            written, judges = save_judges_text(store, text)
        except InputError as error:
            show_problems(error, "Not saved: the judges file has problems (nothing was written).")
            return
        except (OSError, ValueError) as error:
            st.error("Not saved: the file could not be written.")
            show_text(str(error))
            return
        st.session_state[SAVED_KEY] = f"Saved {len(judges)} judge(s) to {literal(str(written))}."
        st.rerun()  # the judges above and the run below read the new file


def chosen_configurations(judges, verifiers, decomposers, entailers) -> tuple[list, list[str]]:
    """Every V+D+E of the chosen names that makes sense, and why the others were left out."""
    configurations, refused = [], []
    for parts in itertools.product(verifiers, decomposers, entailers):
        try:
            configurations.append(parse_configuration(configuration_name(*parts), judges))
        except InputError as error:
            refused.append(error.problems[0].message)
    return configurations, refused


def show_plan(plan) -> None:
    needed, cached, estimated, cost = st.columns(4)
    needed.metric("Calls needed", plan.needed, help="known now and not in the cache")
    cached.metric("Already cached", plan.cached)
    estimated.metric(
        "Estimated more",
        f"~{plan.estimated:.0f}",
        help="calls that depend on answers not known yet (facts not yet decomposed)",
    )
    cost.metric("Estimated cost", f"${plan.estimated_cost:.4f}")
    st.caption(
        f"A run makes about {plan.needed + plan.estimated:.0f} calls: the {plan.needed} known now, and "
        f"~{plan.estimated:.0f} more that only the earlier stages' answers will ask for (facts to judge "
        "once the decomposer has split the sentences)."
    )
    if plan.assumptions:  # what the estimate takes for granted: when these hold, a run makes these calls
        st.caption("The estimate assumes: " + "; ".join(plan.assumptions) + ".")
    st.dataframe(
        [
            {
                "judge": name,
                "needed": c["needed"],
                "cached": c["cached"],
                "estimated more": round(c["estimated"]),
                "estimated cost ($)": round(c["cost"], 4),
            }
            for name, c in plan.by_judge.items()
        ],
        hide_index=True,
        width="stretch",
    )
    if plan.skipped:
        with st.expander(f"{len(plan.skipped)} response run(s) skipped"):
            st.dataframe(
                [{"configuration": c, "response": r, "why": why} for c, r, why in plan.skipped],
                hide_index=True,
                width="stretch",
            )


def of_chosen_models(store, responses: str) -> str | tuple[str, ...]:
    """`responses` ('gold' or 'all'), narrowed to the ids of the models chosen when the project
    has several and someone narrowed the choice."""
    models = project_models(store)
    chosen = choose_models(models, key="run_models", label="Of the models")
    if len(chosen) == len(models):
        return responses
    wanted = {rid for rid, model in store.response_models() if model in chosen}
    return tuple(rid for rid in select_responses(store, responses)[0] if rid in wanted)


def run_section(store, judges) -> None:
    """Choose configurations, responses and budget; plan; start."""
    names = [*judges, GOLD]
    first = [next(iter(judges))]
    for key in ("run_verifiers", "run_decomposers", "run_entailers"):
        remembered(key, first)  # kept across pages; the fields take no default of their own
        # a judge removed from the file since the last choice
        st.session_state[key] = [n for n in st.session_state[key] if n in names]
    left, middle, right = st.columns(3)
    verifiers = left.multiselect("Verifiers", names, key="run_verifiers")
    decomposers = middle.multiselect("Decomposers", names, key="run_decomposers")
    entailers = right.multiselect("Entailment judges", names, key="run_entailers")
    configurations, refused = chosen_configurations(judges, verifiers, decomposers, entailers)
    if configurations:
        st.caption("Configurations: " + ", ".join(f"`{c.id}`" for c in configurations))
    for reason in refused:
        st.caption(f"Left out: {literal(reason)}")
    responses = st.radio(
        "Responses",
        ("gold", "all"),
        horizontal=True,
        key="run_responses",
        format_func={"gold": "those with a gold record", "all": "all responses"}.get,
    )
    responses = of_chosen_models(store, responses)
    left, middle, right = st.columns(3)
    concurrency = left.number_input(
        "Calls in flight at most", min_value=1, max_value=256, value=8, key="run_concurrency"
    )
    max_calls = middle.number_input(
        "Budget: new calls at most",
        min_value=1,
        value=None,
        step=1,
        key="run_max_calls",
        placeholder="no limit",
    )
    max_cost = right.number_input(
        "Budget: cost at most ($)",
        min_value=0.0,
        value=None,
        step=0.5,
        key="run_max_cost",
        placeholder="no limit",
    )
    if not configurations:
        st.info("Choose at least one verifier, decomposer and entailment judge.")
        return
    signature = (tuple(c.id for c in configurations), responses)
    if st.button("Plan (dry run: counts calls, makes none)", key="plan_run"):
        with st.spinner("Counting the calls still needed…"):
            st.session_state["judge_plan"] = (signature, plan_run(store, judges, configurations, responses))
    planned = st.session_state.get("judge_plan")
    plan = planned[1] if planned and planned[0] == signature else None
    if plan is None:
        st.caption("Plan the run to see the calls it needs and its cost before starting it.")
        return
    show_plan(plan)
    used = sorted({name for c in configurations for name in c.judge_names})
    unset = missing_keys(judges, used)
    if unset:
        st.warning(
            "Set these environment variables for the server before running: "
            + ", ".join(f"${name}" for name in unset)
        )
    current = judge_run.latest_run(store)
    busy = current is not None and current.running
    if st.button(
        "Start run",
        key="start_run",
        type="primary",
        disabled=bool(unset) or busy,
        icon=":material/play_arrow:",
    ):
        try:
            judge_run.start_run(
                store,
                judges,
                configurations,
                responses=responses,
                concurrency=int(concurrency),
                max_calls=None if max_calls is None else int(max_calls),
                max_cost=max_cost,
                plan=plan,
            )
        except RuntimeError as error:
            st.error(str(error))


def _seconds(value: float | None) -> str:
    if value is None:
        return "—"
    minutes, seconds = divmod(int(round(value)), 60)
    return f"{minutes} min {seconds:02d} s" if minutes else f"{seconds} s"


def progress_panel(store, watching: bool) -> None:
    """The latest run's state. Polled every second while a run goes (`watching`); when the
    run ends, the whole page reruns once so the records below are fresh."""
    run = judge_run.latest_run(store)
    if run is None:
        return
    snap = run.snapshot()
    if watching and not snap.running:
        st.rerun()  # the run ended: refresh everything once
    st.subheader("Run " + ("in progress" if snap.running else "finished"))
    st.caption("Configurations: " + ", ".join(snap.configurations))
    p = snap.progress
    if p is not None:
        # `calls_left` rests on the plan's estimate; a run that ended without stopping has none left
        complete = not snap.running and snap.report is not None and not snap.report.stopped
        left = 0 if complete else p.calls_left
        total = p.calls_done + left
        st.progress(
            min(1.0, p.calls_done / total) if total else 1.0,
            text=f"{p.calls_done} call(s) done, about {left} left · "
            f"responses {p.pipelines_done} of {p.pipelines_total}",
        )
        done, hits, failed, cost, eta = st.columns(5)
        done.metric("Calls made", p.calls_done)
        hits.metric("Cache hits", p.cache_hits)
        failed.metric("Failed", p.failed, help=f"{p.retries} retries")
        cost.metric("Cost", f"${p.cost:.4f}")
        eta.metric(
            "Time left", _seconds(p.eta_s) if snap.running else "—", help=f"elapsed {_seconds(p.elapsed_s)}"
        )
    elif snap.running:
        st.progress(0.0, text="Starting: preparing the calls…")
    if snap.running:
        st.button(
            "Stop the run",
            key="stop_run",
            icon=":material/stop:",
            on_click=run.stop,
            disabled=snap.stopping,
            help="No new call starts; calls in flight finish and are kept.",
        )
        if snap.stopping:
            st.caption("Stopping: waiting for the calls in flight.")
    else:
        show_outcome(snap)


def show_outcome(snap) -> None:
    if snap.error:
        st.error("The run could not finish.")
        show_text(snap.error)
        return
    report = snap.report
    if report is None:
        return
    st.success(
        f"{len(report.records)} response record(s) complete, {report.records_written} new or "
        f"changed stored · {report.calls_made} call(s) made, {report.cache_hits} from the cache, "
        f"{report.failed} failed · ${report.cost:.4f} · {_seconds(report.elapsed_s)}"
    )
    if report.stopped:
        st.warning(
            f"Stopped early: {report.stopped}. Start again to continue; nothing answered is asked again."
        )
    if report.call_errors:  # why calls failed, whatever else stopped the run
        st.error(f"{report.failed} call(s) failed after their retries:")
        st.dataframe(
            [
                {"calls": n, "error": error}
                for error, n in sorted(report.call_errors.items(), key=lambda i: -i[1])
            ],
            hide_index=True,
            width="stretch",
        )
    unread = undetermined_reasons(report.records)
    if unread:  # the run went through, but these values are null
        st.warning(
            f"{sum(unread.values())} value(s) the judges' answers did not give are null in the records: a "
            "null 'verifiable' scores as not verifiable, another null leaves its fact undetermined."
        )
        st.dataframe(
            [{"values": n, "why": why} for why, n in unread.most_common()], hide_index=True, width="stretch"
        )
    if report.incomplete:
        with st.expander(f"{len(report.incomplete)} response(s) left without a record"):
            st.dataframe(
                [{"configuration": c, "response": r, "why": why} for c, r, why in report.incomplete],
                hide_index=True,
                width="stretch",
            )


def records_section(store) -> None:
    records = store.list_records("judge")
    counts = Counter(r.source for r in records)
    if not counts:
        st.info("No judge records yet.")
        return
    model_of = dict(store.response_models())
    by_model = any(model is not None for model in model_of.values())  # a column only when there are models
    per = Counter((r.source, model_of.get(r.response_id)) for r in records)
    st.dataframe(
        [
            {"source": source, **({"model": model_label(model)} if by_model else {}), "records": n}
            for (source, model), n in sorted(
                per.items(), key=lambda item: (item[0][0], model_label(item[0][1]))
            )
        ],
        hide_index=True,
        width="stretch",
    )
    choice = st.selectbox("Records to download", [ALL_SOURCES, *sorted(counts)], key="records_choice")
    chosen = records if choice == ALL_SOURCES else [r for r in records if r.source == choice]
    models = choose_models(project_models(store), key="records_models", label="Of the models")
    chosen = [r for r in chosen if model_of.get(r.response_id) in models]
    out = io.StringIO()
    write_records_jsonl(chosen, out)
    name = "judge-records" if choice == ALL_SOURCES else choice.replace(":", "-").replace("+", "_")
    st.download_button(
        f"Download {len(chosen)} record(s) as JSONL",
        out.getvalue(),
        file_name=f"{name}.jsonl",
        mime="application/x-ndjson",
        key="download_records",
        icon=":material/download:",
    )


def judges_page(me: dict, store) -> None:
    st.title("Judges")
    judges = judges_file_section(store)
    if judges:
        st.header("Run judge configurations")
        run_section(store, judges)
    current = judge_run.latest_run(store)
    watching = current is not None and current.running
    st.fragment(progress_panel, run_every=1.0 if watching else None)(store, watching)
    st.header("Judge records")
    records_section(store)


run_page(judges_page, "admin", title="the judges page")
