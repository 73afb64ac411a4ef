"""The agreement page's figures, as plain plotly figures built from the packages' results
(no Streamlit here, so each figure can be checked on its own)."""

from __future__ import annotations

import plotly.graph_objects as go

from annotation.agreement.reliability import Agreement
from annotation.protocol.ids import annotator_name

# Krippendorff's guide: α ≥ 0.8 reliable, 0.667 ≤ α < 0.8 for tentative conclusions only
ALPHA_THRESHOLDS = ((0.8, "0.8 reliable"), (0.667, "0.667 tentative"))
UNDEFINED = "undefined"


def _layout(figure: go.Figure, title: str, height: int = 360) -> go.Figure:
    figure.update_layout(title=title, height=height, margin={"l": 40, "r": 20, "t": 50, "b": 40})
    return figure


def alpha_bars(results: dict[str, Agreement], names: dict[str, str]) -> go.Figure:
    """α per stage with its bootstrap CI as error bars; an undefined stage gets no bar, only
    the word 'undefined' (the page says why)."""
    stages = list(results)
    labels = [names.get(s, s) for s in stages]
    alphas = [results[s].alpha for s in stages]
    upper = [
        (r.ci_high - r.alpha) if r.alpha is not None and r.ci_high is not None else 0
        for r in results.values()
    ]
    lower = [
        (r.alpha - r.ci_low) if r.alpha is not None and r.ci_low is not None else 0 for r in results.values()
    ]
    figure = go.Figure(
        go.Bar(
            x=labels,
            y=alphas,
            error_y={"type": "data", "symmetric": False, "array": upper, "arrayminus": lower},
            text=["" if a is None else f"{a:.2f}" for a in alphas],
            # a bar too short to hold its label (α near 0) shows it beside the bar, not nowhere
            textposition=["inside" if a is not None and abs(a) >= 0.15 else "outside" for a in alphas],
            insidetextanchor="start",
            customdata=[[r.n_units, r.n_annotators] for r in results.values()],
            hovertemplate="%{x}: α = %{y:.3f}<br>%{customdata[0]} units, %{customdata[1]} annotators<extra></extra>",
        )
    )
    for label, stage in zip(labels, stages, strict=True):
        if results[stage].alpha is None:
            figure.add_annotation(x=label, y=0, text=UNDEFINED, showarrow=False, yshift=12)
    for level, words in ALPHA_THRESHOLDS:
        figure.add_hline(
            y=level, line_dash="dot", line_color="grey", annotation_text=words, annotation_position="right"
        )
    lows = [r.ci_low for r in results.values() if r.ci_low is not None] + [a for a in alphas if a is not None]
    figure.update_yaxes(title="Krippendorff's α", range=[min([0.0, *lows]) - 0.05, 1.08])
    _layout(figure, "Agreement per stage (95% bootstrap CI)")
    figure.update_layout(margin={"r": 110})  # room for the threshold labels
    return figure


def value_label(value: float, level: str) -> str:
    return ("true" if value else "false") if level == "nominal" else f"{value:g} facts"


def confusion_heatmap(counts: dict[tuple[float, float], int], a: str, b: str, level: str) -> go.Figure:
    """Units per (a's value, b's value): a's values across, b's down, counts in the cells."""
    values = sorted({x for x, _ in counts} | {y for _, y in counts})
    labels = [value_label(v, level) for v in values]
    z = [[counts.get((x, y), 0) for x in values] for y in values]
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=labels,
            y=labels,
            text=z,
            texttemplate="%{text}",
            colorscale="Blues",
            showscale=False,
            hovertemplate=f"{a}: %{{x}}<br>{b}: %{{y}}<br>%{{z}} units<extra></extra>",
        )
    )
    figure.update_xaxes(title=a, type="category")
    figure.update_yaxes(title=b, type="category", autorange="reversed")
    return _layout(figure, f"{a} × {b} ({sum(counts.values())} units)", height=320)


def gold_agreement_bars(rows: list[dict]) -> go.Figure:
    """Per annotator: share of values equal to gold; hover gives counts and median time."""
    figure = go.Figure(
        go.Bar(
            x=[r["annotator"] for r in rows],
            y=[r["agrees_with_gold"] for r in rows],
            text=[f"{r['agrees_with_gold']:.0%}" if r["agrees_with_gold"] is not None else "—" for r in rows],
            textposition="outside",
            customdata=[
                [r["compared"], r["median_s"] if r["median_s"] is not None else float("nan")] for r in rows
            ],
            hovertemplate="%{x}: %{y:.1%} of %{customdata[0]} values<br>median %{customdata[1]:.1f} s"
            "<extra></extra>",
        )
    )
    figure.update_yaxes(title="agrees with gold", range=[0, 1.1], tickformat=".0%")
    return _layout(figure, "Agreement with gold per annotator")


def others_bars(rows: list[dict]) -> go.Figure:
    """Each annotator's r with the others' mean score (calibration.sweep.parity's annotator rows),
    one group of bars per precision mode."""
    figure = go.Figure()
    for mode in dict.fromkeys(row["precision_mode"] for row in rows):
        mine = [row for row in rows if row["precision_mode"] == mode]
        figure.add_trace(
            go.Bar(
                name=mode,
                x=[annotator_name(row["source"]) for row in mine],
                y=[row["r_vs_gold_without"] for row in mine],
                hovertemplate="%{x}: r = %{y:.3f}<extra>" + mode + "</extra>",
            )
        )
    values = [row["r_vs_gold_without"] for row in rows]
    negative = any(v is not None and v == v and v < 0 for v in values)
    figure.update_layout(barmode="group", legend_title="precision mode")
    figure.update_yaxes(title="Pearson r with the others' mean", range=[-1 if negative else 0, 1.05])
    return _layout(figure, "Each annotator's MURGAT-S against the mean of the others")
