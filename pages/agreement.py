"""Agreement: how far the annotators agree, stage by stage (Krippendorff's α with bootstrap
CIs), where they disagree (confusion matrices per annotator pair; for the atomic facts, the facts
each pair shares), how each annotator compares with gold, how fast they decide and how often their
stage-3 answers on a fact contradict each other, and how well
each annotator's MURGAT-S tracks the other annotators' (the target human parity holds judges to). The atomic facts are compared as fact clusters, as gold
compares them: a rewording is the same fact. Every figure links to its disputes.
"""

from __future__ import annotations

import math
from collections import Counter

import streamlit as st

from annotation.agreement.reliability import LEVELS, pair_fact_sets, prf
from annotation.protocol.ids import annotator_name
from annotation.store.rows import Person
from calibration.scoring.murgat_s import PRECISION_MODES
from pages.widgets import agreement_charts, ruling
from pages.widgets.agreement_measure import latest_agreement
from pages.widgets.agreement_tables import latest_tables
from pages.widgets.context import current_state
from pages.widgets.frame import run_page
from pages.widgets.ruling import ALL, STAGE_REQUEST

DISPUTES_PAGE = "pages/disputes.py"
SHOWN_ORDER = tuple(ruling.STAGE_IDS.values())  # protocol order
SHORT_NAMES = {
    "verifiable": "Verifiable",
    "decomposition": "Atomic facts",
    "entailment_all": "All",
    "entailment_alone": "Alone",
    "entailment_without": "Without",
}
PAIRS_PER_ROW = 3


def _number(value, pattern: str = "{:.3f}") -> str:
    """`value` in `pattern`, or '—' when it is None or not finite (an undefined r is NaN)."""
    return "—" if value is None or not math.isfinite(value) else pattern.format(value)


def disputes_button(label: str, key: str, stage: str | None = None) -> None:
    """A button to the disputes page, filtered to `stage` when given."""
    if st.button(label, key=key, icon=":material/gavel:"):
        st.session_state[STAGE_REQUEST] = ruling.stage_id(stage) if stage else ALL
        st.switch_page(DISPUTES_PAGE)


def alpha_table(results: dict) -> list[dict]:
    rows = []
    for stage, result in results.items():
        ci = f"[{result.ci_low:.3f}, {result.ci_high:.3f}]" if result.ci_low is not None else "—"
        note = f"undefined: {result.reason}" if result.alpha is None else ""
        if stage == "decomposition" and result.n_pairs:
            note = (note + "; " if note else "") + (
                f"fact sets pooled over {result.n_pairs} pair(s): P {_number(result.precision)}, "
                f"R {_number(result.recall)}, F1 {_number(result.f1)}"
            )
        rows.append(
            {
                "stage": ruling.STAGE_NAMES[stage],
                "alpha": _number(result.alpha),
                "95% CI": ci,
                "units": result.n_units,
                "annotators": result.n_annotators,
                "note": note,
            }
        )
    return rows


def alpha_section(results: dict) -> None:
    results = {stage: results[stage] for stage in SHOWN_ORDER}
    st.plotly_chart(agreement_charts.alpha_bars(results, ruling.STAGE_NAMES), key="alpha_chart")
    st.dataframe(alpha_table(results), hide_index=True, width="stretch")
    st.caption(
        "Nominal α for verifiability (units: sentences) and entailment (units: the questions two or "
        "more annotators answered about one fact, however each worded it); for the atomic facts, α "
        "with the Jaccard distance between the sets of facts (clusters and citations) each annotator "
        "stated per sentence — the same clusters gold and the disputes use."
    )


def stage_buttons(open_by_stage: Counter) -> None:
    """A button per stage to its open disputes (they need no α: shown while it is measured too)."""
    st.caption("Open disputes of a stage:")
    for column, stage in zip(st.columns(len(SHOWN_ORDER)), SHOWN_ORDER, strict=True):
        with column:
            disputes_button(
                f"{SHORT_NAMES[stage]} ({open_by_stage.get(stage, 0)})", f"to_disputes:{stage}", stage
            )


def confusion_section(tables, open_by_stage: Counter) -> None:
    st.subheader("Confusion matrices per annotator pair")
    stage = st.selectbox("Stage", SHOWN_ORDER, key="confusion_stage", format_func=ruling.STAGE_NAMES.get)
    if stage == "decomposition":
        fact_set_pairs(tables.units[stage])
    else:
        confusion_matrices(tables.confusions[stage], stage)
    disputes_button(
        f"Open the disputes of {ruling.STAGE_NAMES[stage]} ({open_by_stage.get(stage, 0)} open)",
        "to_disputes:confusion",
        stage,
    )


def confusion_matrices(confusions: dict, stage: str) -> None:
    """One heatmap per annotator pair (`agreement_tables.pair_confusions`), three to a row."""
    pairs = list(confusions)
    if not pairs:
        st.info("No two annotators labelled the same unit of this stage yet.")
    for start in range(0, len(pairs), PAIRS_PER_ROW):
        row = pairs[start : start + PAIRS_PER_ROW]
        for column, (a, b) in zip(st.columns(PAIRS_PER_ROW), row, strict=False):
            column.plotly_chart(
                agreement_charts.confusion_heatmap(confusions[a, b], a, b, LEVELS[stage]),
                key=f"confusion:{stage}:{a}:{b}",
            )


def fact_set_pairs(units) -> None:
    """Per annotator pair, the facts both stated (same cluster, same citations) over the sentences
    both decomposed."""
    rows = [
        {
            "pair": f"{a} × {b}",
            "facts both stated": matched,
            "facts of the first": n_a,
            "facts of the second": n_b,
            "F1": _number(prf(matched, n_a, n_b)[2]),
        }
        for (a, b), (matched, n_a, n_b) in pair_fact_sets(units).items()
    ]
    if not rows:
        st.info("No two annotators decomposed the same sentence yet.")
        return
    st.dataframe(rows, hide_index=True, width="stretch")


def _share(rate: tuple[int, int] | None) -> str:
    """'3 of 40 (8%)' of a (count, out of) pair; '–' when there is nothing to count."""
    if not rate or not rate[1]:
        return "–"
    return f"{rate[0]} of {rate[1]} ({rate[0] / rate[1]:.0%})"


def annotators_section(tables) -> None:
    st.subheader("Annotators: agreement with gold and speed")
    rows, cant_tell = tables.annotators, tables.cant_tell
    if not rows:
        st.info("No annotator values yet.")
        return
    st.plotly_chart(agreement_charts.gold_agreement_bars(rows), key="gold_chart")
    st.dataframe(
        [
            {
                "annotator": r["annotator"],
                "agrees with gold": _number(r["agrees_with_gold"], "{:.1%}"),
                "values compared": r["compared"],
                "agrees on adjudicated": f"{r['adjudicated_agree']} of {r['adjudicated']}",
                "median time per decision": _number(r["median_s"], "{:.1f} s"),
                "decisions under 2 s": _number(r["fast_share"], "{:.0%}"),
                "can't tell": _share(cant_tell.get(r["annotator"])),
                "facts answered in contradiction": _share(tables.impossible.get(r["annotator"], (0, 0))),
            }
            for r in rows
        ],
        hide_index=True,
        width="stretch",
    )
    st.caption(
        "Gold from a majority includes the annotator's own vote; the adjudicated column counts "
        "only values an adjudicator ruled. A fact answered in contradiction: the cited segments "
        "together do not support it, yet one of them alone does, or the others without one do (a set "
        "of segments supports whatever a part of it does); counted among the facts the annotator "
        "answered about all its segments."
    )
    disputes_button("Open all disputes", "to_disputes:annotators")


def others_section(rows: list[dict]) -> None:
    st.subheader("Each annotator against the others")
    st.plotly_chart(agreement_charts.others_bars(rows), key="others_chart")
    names = sorted({row["source"] for row in rows})
    table = []
    for mode in PRECISION_MODES:
        mine = {row["source"]: row for row in rows if row["precision_mode"] == mode}
        line = {"precision mode": mode}
        line.update({annotator_name(n): _number(mine[n]["r_vs_gold_without"]) for n in names})
        line["responses (r's n)"] = ", ".join(str(mine[n]["n"]) for n in names)
        line["note"] = "; ".join(
            f"{annotator_name(n)}: {mine[n]['reason']}" for n in names if mine[n]["reason"]
        )
        table.append(line)
    st.dataframe(table, hide_index=True, width="stretch")
    st.caption(
        "Pearson r between each annotator's MURGAT-S per response and the mean of the other annotators' "
        "on the responses each of them finished (pairwise complete: partial work shrinks nobody else's). "
        "It is the target human parity measures judges against (Calibrate page); it bounds nothing."
    )
    disputes_button("Open all disputes", "to_disputes:others")


def agreement(me: Person, store) -> None:
    st.title("Agreement")
    state = current_state(store)
    if not state.gold.values:
        st.info(
            "No annotator labels yet: agreement is measured once two annotators label the same responses."
        )
    results, fresh, error = latest_agreement(store, state)
    tables, tables_fresh = latest_tables(store, state)
    # while the bootstrap or the tables run, the last numbers show and this part looks again every 2 s
    done = (fresh or error is not None) and tables_fresh
    if done:  # this whole run draws the new numbers: the fragment must not rerun the page again
        st.session_state.pop("agreement_was_stale", None)  # (that rerun dropped a click made meanwhile)
    st.fragment(alpha_part, run_every=None if done else 2.0)(store)
    # the open disputes as the Disputes page lists them (kept per response: no wait after a label)
    open_by_stage = Counter(row.stage for row in ruling.dispute_view(store, state).rows if not row.ruled)
    stage_buttons(open_by_stage)  # outside the fragment: a click never waits on its timed reruns
    if tables is None:
        st.info("Working out the tables (confusion matrices, annotators): they show here when ready.")
        return
    confusion_section(tables, open_by_stage)
    annotators_section(tables)
    others_section(tables.others)


def alpha_part(store) -> None:
    """α per stage: the measurement of the current labels, or the last one while it runs
    ('updating…'); the tables below look again with it."""
    state = current_state(store)
    results, fresh, error = latest_agreement(store, state)
    tables_fresh = latest_tables(store, state)[1]
    if (fresh or error is not None) and tables_fresh and st.session_state.pop("agreement_was_stale", False):
        st.rerun()  # a timed rerun found the new numbers: one whole run, so the page stops looking
    st.subheader("Krippendorff's α per stage")
    if error is not None:
        st.error(f"Agreement could not be measured ({type(error).__name__}); the details are in the log.")
    if not fresh and error is None:
        st.session_state["agreement_was_stale"] = True
        st.caption(
            "⟳ updating… measuring agreement on the latest labels (bootstrap); "
            + ("the numbers below are the last measured ones." if results else "the first measurement.")
        )
    if not tables_fresh:
        st.session_state["agreement_was_stale"] = True
        st.caption("⟳ updating the tables below on the latest labels; they show the last ones meanwhile.")
    if results is not None:
        alpha_section(results)


run_page(agreement, "adjudicator", "admin", title="the agreement page")
