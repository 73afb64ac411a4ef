"""The calibration page's figures (plotly), built from a SweepReport and per-response scores:
the judge-vs-gold scatter with its regression line and 95 % band, the verifier × entailment
judge heatmap faceted by decomposer and precision mode, and the forest plot of r with CIs.
Every figure carries the human ceiling (leave-one-annotator-out r) when it is known."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from annotation.protocol.ids import configuration_of
from calibration.stats.regression import regression_band

MODE_COLOURS = {"individual": "#1f77b4", "necessity": "#ff7f0e", "alce": "#2ca02c"}
CEILING_COLOUR = "#7f7f7f"


def known(value) -> bool:
    return value is not None and isinstance(value, int | float) and math.isfinite(value)


def ceiling_text(ceiling: dict, mode: str) -> str:
    value = ceiling.get(mode)
    return f"human ceiling r = {value:.3f}" if known(value) else "no human ceiling (needs ≥ 2 annotators)"


def scatter_figure(points: list[tuple[str, float, float]], title: str, ceiling: dict, mode: str) -> go.Figure:
    """One marker per response (x gold MURGAT-S, y the judge's; customdata = response id, for
    selection), the regression line with its 95 % band, and the y = x diagonal."""
    figure = go.Figure()
    ids = [p[0] for p in points]
    x = np.array([p[1] for p in points], dtype=float)
    y = np.array([p[2] for p in points], dtype=float)
    figure.add_scatter(
        x=[0, 1],
        y=[0, 1],
        mode="lines",
        name="judge = gold",
        line={"dash": "dot", "color": CEILING_COLOUR, "width": 1},
        hoverinfo="skip",
    )
    grid = np.linspace(0, 1, 51)
    band = regression_band(x, y, grid)
    if band is not None:
        fit, low, high = band
        figure.add_scatter(
            x=np.concatenate([grid, grid[::-1]]),
            y=np.concatenate([high, low[::-1]]),
            fill="toself",
            fillcolor="rgba(31, 119, 180, 0.15)",
            line={"width": 0},
            name="95 % CI of the line",
            hoverinfo="skip",
        )
        figure.add_scatter(
            x=grid,
            y=fit,
            mode="lines",
            name="regression line",
            line={"color": MODE_COLOURS.get(mode, "#1f77b4")},
            hoverinfo="skip",
        )
    figure.add_scatter(
        x=x.tolist(),
        y=y.tolist(),
        mode="markers",
        name="responses",
        customdata=[[rid] for rid in ids],
        marker={
            "size": 9,
            "color": MODE_COLOURS.get(mode, "#1f77b4"),
            "line": {"width": 1, "color": "white"},
        },
        hovertemplate="%{customdata[0]}<br>gold %{x:.3f}<br>judge %{y:.3f}<extra></extra>",
    )
    figure.add_annotation(
        text=ceiling_text(ceiling, mode),
        xref="paper",
        yref="paper",
        x=0.01,
        y=0.99,
        showarrow=False,
        xanchor="left",
        yanchor="top",
        font={"color": CEILING_COLOUR},
    )
    figure.update_layout(
        title=title,
        height=460,
        margin={"l": 10, "r": 10, "t": 50, "b": 40},
        xaxis={"title": "gold MURGAT-S", "range": [-0.03, 1.03]},
        yaxis={"title": "judge MURGAT-S", "range": [-0.03, 1.03]},
        clickmode="event+select",
        legend={"orientation": "h", "y": -0.15},
    )
    return figure


def ceilings_line(ceiling: dict, modes) -> str:
    return " · ".join(f"{mode}: {ceiling_text(ceiling, mode)}" for mode in modes)


def heatmap_figure(configs, modes: list[str], ceiling: dict, best=None) -> go.Figure | None:
    """Pearson r per verifier (rows) × entailment judge (columns), one panel per decomposer
    (columns of panels) and precision mode (rows of panels), the best starred. Only
    `judge:V+D+E` sources take part; None when there is none."""
    parsed = [(c, configuration_of(c.source)) for c in configs]
    parsed = [(c, p) for c, p in parsed if p is not None and c.precision_mode in modes]
    if not parsed:
        return None
    verifiers = sorted({p[0] for _, p in parsed})
    decomposers = sorted({p[1] for _, p in parsed})
    entailers = sorted({p[2] for _, p in parsed})
    titles = [f"{mode} · decomposer {d}" for mode in modes for d in decomposers]
    figure = make_subplots(
        rows=len(modes),
        cols=len(decomposers),
        subplot_titles=titles,
        shared_xaxes=True,
        shared_yaxes=True,
        horizontal_spacing=0.04,
        vertical_spacing=0.12 if len(modes) > 1 else 0.1,
    )
    for row, mode in enumerate(modes, start=1):
        for col, decomposer in enumerate(decomposers, start=1):
            z = [[math.nan] * len(entailers) for _ in verifiers]
            text = [[""] * len(entailers) for _ in verifiers]
            for c, (v, d, e) in parsed:
                if d == decomposer and c.precision_mode == mode:
                    i, j = verifiers.index(v), entailers.index(e)
                    z[i][j] = c.pearson if known(c.pearson) else math.nan
                    text[i][j] = (f"{c.pearson:.2f}" if known(c.pearson) else "—") + (
                        " ★" if c is best else ""
                    )
            figure.add_heatmap(
                z=z,
                x=entailers,
                y=verifiers,
                text=text,
                texttemplate="%{text}",
                coloraxis="coloraxis",
                row=row,
                col=col,
                hovertemplate="verifier %{y}<br>entailment %{x}<br>r %{z:.3f}<extra></extra>",
            )
        figure.update_yaxes(title_text="verifier", row=row, col=1)
    for col in range(1, len(decomposers) + 1):
        figure.update_xaxes(title_text="entailment judge", row=len(modes), col=col)
    figure.update_layout(
        title={"text": ceilings_line(ceiling, modes), "font": {"size": 13, "color": CEILING_COLOUR}},
        coloraxis={"colorscale": "RdBu", "cmin": -1, "cmax": 1, "colorbar": {"title": "r"}},
        height=max(280, 90 + 200 * len(modes)),
        margin={"l": 10, "r": 10, "t": 80, "b": 40},
    )
    return figure


def forest_figure(configs, ceiling: dict, best=None) -> go.Figure:
    """Each configuration's r with its 95 % CI, highest first, coloured by precision mode, the
    best starred, and one dashed vertical line per mode at the human ceiling."""
    ordered = sorted(configs, key=lambda c: c.pearson if known(c.pearson) else -math.inf)
    figure = go.Figure()
    for mode in dict.fromkeys(c.precision_mode for c in ordered):
        rows = [c for c in ordered if c.precision_mode == mode and known(c.pearson)]
        if not rows:
            continue
        low = [c.pearson - c.pearson_ci[0] if known(c.pearson_ci[0]) else 0 for c in rows]
        high = [c.pearson_ci[1] - c.pearson if known(c.pearson_ci[1]) else 0 for c in rows]
        figure.add_scatter(
            x=[c.pearson for c in rows],
            y=[c.name for c in rows],
            mode="markers",
            name=mode,
            marker={"color": MODE_COLOURS.get(mode), "size": 9},
            error_x={"type": "data", "symmetric": False, "array": high, "arrayminus": low},
            hovertemplate="%{y}<br>r %{x:.3f}<extra></extra>",
        )
    if best is not None and known(best.pearson):
        figure.add_scatter(
            x=[best.pearson],
            y=[best.name],
            mode="markers",
            name="chosen",
            marker={"symbol": "star", "size": 16, "color": "gold", "line": {"width": 1}},
            hoverinfo="skip",
        )
    span = [ordered[0].name, ordered[-1].name] if ordered else []
    for mode, value in ceiling.items():
        if known(value) and span:  # a line across every row, in its mode's colour (the title names it)
            figure.add_scatter(
                x=[value, value],
                y=span,
                mode="lines",
                name=f"human ceiling {mode} ({value:.2f})",
                line={"dash": "dash", "color": MODE_COLOURS.get(mode, CEILING_COLOUR), "width": 1.5},
                hoverinfo="name",
                showlegend=False,
            )
    modes = list(dict.fromkeys(c.precision_mode for c in ordered))
    figure.update_layout(
        title={
            "text": "dashed: " + ceilings_line(ceiling, modes),
            "font": {"size": 13, "color": CEILING_COLOUR},
        },
        height=160 + 24 * len(ordered),
        margin={"l": 10, "r": 10, "t": 80, "b": 40},
        xaxis={"title": "Pearson r with gold (95 % CI)", "range": [-1.02, 1.02]},
        yaxis={"categoryorder": "array", "categoryarray": [c.name for c in ordered]},
    )
    return figure


def selected_response(state) -> str | None:
    """The response id of the first point chosen on the scatter (its plotly selection state)."""
    points = (state or {}).get("selection", {}).get("points", []) if isinstance(state, dict) else []
    for point in points:
        data = point.get("customdata")
        if data:
            return str(data[0])
    return None
