"""The calibration page's tables as rows for st.dataframe: the sweep, the per-stage losses and
the annotators. Undefined numbers (NaN) become empty cells, never 'nan'."""

from __future__ import annotations

import math

import streamlit as st


def _cell(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def verdict(config, best) -> str:
    """'best', 'yes' (not significantly worse than the best), 'no', or '?' (untestable)."""
    if config is best:
        return "best"
    return {True: "yes", False: "no", None: "?"}[config.indistinguishable_from_best]


def sweep_rows(report) -> list[dict]:
    """One row per (judge source, precision mode), by held-out r (undefined last)."""

    def order(c):
        h = c.heldout_pearson
        return (not math.isfinite(h), -h if math.isfinite(h) else 0.0)

    return [
        {
            "source": c.source,
            "mode": c.precision_mode,
            "n": c.n,
            "r": _cell(c.pearson),
            "r 95% low": _cell(c.pearson_ci[0]),
            "r 95% high": _cell(c.pearson_ci[1]),
            "held-out r": _cell(c.heldout_pearson),
            "~ best": verdict(c, report.best),
            "p vs best": _cell(c.p_vs_best),
            "test": c.p_vs_best_test or "",
            "Spearman ρ": _cell(c.spearman),
            "Kendall τ": _cell(c.kendall),
            "MAE": _cell(c.mae),
            "judge score": _cell(c.system_score),
            "gold score": _cell(c.gold_system_score),
            "missing": len(c.missing_ids),
            "why undefined": c.undefined_reason or "",
        }
        for c in sorted(report.configs, key=order)
    ]


def stage_rows(report) -> list[dict]:
    """One row per judge source: verifier, decomposer and entailment judge against gold."""
    rows = []
    for loss in report.stages:
        data = loss.to_dict()
        verifier, decomposer, entailment = data["verifier"], data["decomposer"], data["entailment"]
        row = {
            "source": data["source"],
            "verifier accuracy": verifier["accuracy"],
            "verifier κ": verifier["kappa"],
            "verifiable F1": verifier["f1"],
            "fact-set F1": decomposer["f1"],
            "sentences decomposed": decomposer["n_sentences"],
        }
        for name in ("all", "alone", "without"):
            row[f"{name} accuracy"] = entailment[name]["accuracy"]
            row[f"{name} κ"] = entailment[name]["kappa"]
            row[f"{name} n"] = entailment[name]["n"]
        rows.append({k: _cell(v) for k, v in row.items()})
    return rows


def annotator_rows(report) -> list[dict]:
    return [
        {
            "annotator": row["source"],
            "mode": row["precision_mode"],
            "n": row["n"],
            "r vs gold": _cell(row["pearson_vs_gold"]),
            "r vs the others": _cell(row["pearson_vs_others"]),
            "note": row.get("reason") or "",
        }
        for row in report.annotators
    ]


def dataframe_numbers() -> dict:
    """Column formats shared by the tables: three decimals for r-like numbers."""
    three = st.column_config.NumberColumn(format="%.3f")
    names = (
        "r",
        "r 95% low",
        "r 95% high",
        "held-out r",
        "Spearman ρ",
        "Kendall τ",
        "MAE",
        "judge score",
        "gold score",
        "verifier accuracy",
        "verifier κ",
        "verifiable F1",
        "fact-set F1",
        "all accuracy",
        "all κ",
        "alone accuracy",
        "alone κ",
        "without accuracy",
        "without κ",
        "r vs gold",
        "r vs the others",
    )
    config = {name: three for name in names}
    config["p vs best"] = st.column_config.NumberColumn(format="%.4f")
    return config
