"""The model-score page's tables as rows for st.dataframe and CSV: the models' three estimates,
the pairwise differences and the plan. Undefined numbers become empty cells."""

from __future__ import annotations

from pages.widgets.model_filter import model_label


def _mean_and_ci(prefix: str, estimate) -> dict:
    if estimate is None:
        return {prefix: None, f"{prefix} low": None, f"{prefix} high": None}
    low, high = estimate.ci if estimate.ci is not None else (None, None)
    return {prefix: estimate.mean, f"{prefix} low": low, f"{prefix} high": high}


def model_rows(report) -> list[dict]:
    """One row per model, best PPI mean first."""
    return [
        {
            "model": model_label(m.model),
            "judged": m.n_judged,
            "gold": m.n_human,
            "judge-only (biased)": m.judge_mean,
            **_mean_and_ci("human-only", m.human),
            **_mean_and_ci("PPI++", m.ppi),
            "correction (PPI++ − judge-only)": m.correction,
            "lambda": None if m.ppi is None else m.ppi.lam,
            "ESS gain": m.ess_gain,
            "left out": m.n_left_out,
            "no CI because": m.no_ci_reason or "",
        }
        for m in report.models
    ]


def difference_rows(report) -> list[dict]:
    return [
        {
            "a": model_label(d.a),
            "b": model_label(d.b),
            "design": "paired" if d.paired else "independent",
            **_mean_and_ci("a − b (PPI)", d.estimate),
            "excludes 0": None if d.estimate.ci is None else not d.estimate.ci[0] <= 0 <= d.estimate.ci[1],
        }
        for d in report.differences
    ]


def plan_rows(plan, waiting: dict) -> list[dict]:
    """The plan with, per model, the unlabelled responses left and those already waiting in queues."""
    return [
        {
            "model": model_label(row.model),
            "more gold needed": row.more_gold_needed,
            "reachable": row.more_gold_needed is not None,
            "P(reaching the target)": row.assurance,
            "unlabelled": row.unlabelled,
            "waiting in queues": waiting.get(row.model, 0),
        }
        for row in plan
    ]
