"""The model-score page's figures (plotly): a forest plot of the models — human-only and PPI++
intervals side by side, the judge-only mean marked as biased — and a forest plot of the pairwise
differences around zero. Model names come from files: they are escaped before plotly sees them."""

from __future__ import annotations

import html

import plotly.graph_objects as go

from pages.widgets.model_filter import model_label

HUMAN_COLOUR = "#7f7f7f"
PPI_COLOUR = "#1f77b4"
JUDGE_COLOUR = "#ff7f0e"
OFFSET = 0.18  # the two intervals of a model sit just above and below its line


def _label(model: str | None) -> str:
    return html.escape(model_label(model))


def _interval_trace(estimates, positions, name: str, colour: str, symbol: str) -> go.Scatter:
    shown = [(e, y) for e, y in zip(estimates, positions, strict=True) if e is not None]
    return go.Scatter(
        x=[e.mean for e, _ in shown],
        y=[y for _, y in shown],
        mode="markers",
        name=name,
        marker={"color": colour, "size": 10, "symbol": symbol},
        error_x={
            "type": "data",
            "symmetric": False,
            "array": [0.0 if e.ci is None else e.ci[1] - e.mean for e, _ in shown],  # no CI: no bar
            "arrayminus": [0.0 if e.ci is None else e.mean - e.ci[0] for e, _ in shown],
            "color": colour,
            "thickness": 2,
        },
        hovertemplate="%{x:.3f}<extra>" + name + "</extra>",
    )


def forest_figure(report, metric_name: str) -> go.Figure:
    """One line per model (best PPI mean at the top): human-only CI, PPI++ CI, judge-only mean."""
    models = report.models
    level = f"{100 * (1 - report.alpha):g} %"
    lines = list(range(len(models)))[::-1]
    figure = go.Figure()
    figure.add_trace(
        _interval_trace(
            [m.human for m in models],
            [y + OFFSET for y in lines],
            f"human-only ({level} CI)",
            HUMAN_COLOUR,
            "circle",
        )
    )
    figure.add_trace(
        _interval_trace(
            [m.ppi for m in models], [y - OFFSET for y in lines], f"PPI++ ({level} CI)", PPI_COLOUR, "diamond"
        )
    )
    judged = [(m.judge_mean, y) for m, y in zip(models, lines, strict=True) if m.judge_mean is not None]
    figure.add_scatter(
        x=[x for x, _ in judged],
        y=[y for _, y in judged],
        mode="markers",
        name="judge-only (biased, no CI)",
        marker={"color": JUDGE_COLOUR, "size": 11, "symbol": "x-thin-open", "line": {"width": 2}},
        hovertemplate="%{x:.3f}<extra>judge-only</extra>",
    )
    figure.update_layout(
        height=max(240, 90 + 70 * len(models)),
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        xaxis={"title": f"mean {metric_name}"},
        yaxis={
            "tickvals": lines,
            "ticktext": [_label(m.model) for m in models],
            "range": [-0.6, len(models) - 0.4],
        },
        legend={"orientation": "h", "y": -0.25},
    )
    return figure


def differences_figure(report) -> go.Figure:
    """One line per pair (a − b, PPI CI), paired and independent designs told apart, a line at 0."""
    differences = report.differences
    lines = list(range(len(differences)))[::-1]
    figure = go.Figure()
    for paired, colour, name in ((True, PPI_COLOUR, "paired"), (False, HUMAN_COLOUR, "independent")):
        chosen = [(d, y) for d, y in zip(differences, lines, strict=True) if d.paired == paired]
        if chosen:
            figure.add_trace(
                _interval_trace(
                    [d.estimate for d, _ in chosen], [y for _, y in chosen], name, colour, "square"
                )
            )
    figure.add_vline(x=0, line={"dash": "dot", "color": "#444", "width": 1})
    figure.update_layout(
        height=max(220, 90 + 55 * len(differences)),
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        xaxis={"title": "difference a − b (PPI)"},
        yaxis={
            "tickvals": lines,
            "ticktext": [f"{_label(d.a)} − {_label(d.b)}" for d in differences],
            "range": [-0.6, len(differences) - 0.4],
        },
        legend={"orientation": "h", "y": -0.3},
    )
    return figure
