"""The calibration page's tables as rows for st.dataframe: the sweep, the per-stage losses and
the annotators against the other annotators' mean score. Undefined numbers (NaN) become empty
cells, never 'nan'."""

from __future__ import annotations

import math

import streamlit as st


def _cell(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def verdict(config, best) -> str:
    """'best' (highest r), 'yes' (in the 95 % confidence set of the best: the gold cannot rule it out,
    however low its r — with few gold responses a random judge's can be) or 'no'."""
    if config is best:
        return "best"
    return "yes" if config.in_best_set else "no"


def sweep_rows(report) -> list[dict]:
    """One row per (judge source, precision mode), by r (undefined last)."""

    def order(c):
        return (not math.isfinite(c.pearson), -c.pearson if math.isfinite(c.pearson) else 0.0)

    return [
        {
            "source": c.source,
            "mode": c.precision_mode,
            "n": c.n,
            "undetermined": c.n_undetermined,
            "r": _cell(c.pearson),
            "r 95% low": _cell(c.pearson_ci[0]),
            "r 95% high": _cell(c.pearson_ci[1]),
            "win share": _cell(c.p_best),
            "may be the best (95 % set)": verdict(c, report.best),
            "parity advantage": _cell(c.parity["advantage"]),
            "advantage 95% low": _cell(c.parity["advantage_ci"][0]),
            "advantage 95% high": _cell(c.parity["advantage_ci"][1]),
            "winning rate": _cell(c.parity["winning_rate"]),
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
    """One row per judge source: verifier, decomposer and entailment judge against gold (read from
    the losses' fields: `to_dict` would copy each source's list of responses without gold)."""
    rows = []
    for loss in report.stages:
        verifier, decomposer, entailment = loss.verifier, loss.decomposer, loss.entailment
        row = {
            "source": loss.source,
            "verifier accuracy": verifier.accuracy,
            "verifier κ": verifier.kappa,
            "verifiable F1": verifier.f1,
            "fact-set F1": decomposer.f1,
            "sentences decomposed": decomposer.n_sentences,
        }
        for name in ("all", "alone", "without"):
            row[f"{name} accuracy"] = entailment[name].accuracy
            row[f"{name} κ"] = entailment[name].kappa
            row[f"{name} n"] = entailment[name].n
        rows.append({k: _cell(v) for k, v in row.items()})
    return rows


def annotator_rows(report) -> list[dict]:
    """Each annotator against the other annotators' mean score, per precision mode."""
    return [
        {
            "annotator": row["source"],
            "mode": row["precision_mode"],
            "r vs the others' mean": _cell(row["r_vs_gold_without"]),
            "n": row["n"],
            "finished": row["n_finished"],
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
        "win share",
        "parity advantage",
        "advantage 95% low",
        "advantage 95% high",
        "winning rate",
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
        "r vs the others' mean",
    )
    return {name: three for name in names}
