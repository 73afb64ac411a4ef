"""The calibration page's figures (plotly), built from a SweepReport and per-response scores:
the judge-vs-gold scatter with its regression line and 95 % band, the verifier × entailment
judge heatmap faceted by decomposer and precision mode, the forest plot of r with its 95 % CI
(members of the confidence set of the best marked), and the human-parity plot (each
configuration's mean advantage over the annotators with its CI, against 0 and −ε). The scatter
names the inspected configuration's human parity."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from annotation.protocol.ids import configuration_of
from calibration.stats.numbers import interval, number, share
from calibration.stats.regression import regression_band

MODE_COLOURS = {"individual": "#1f77b4", "necessity": "#ff7f0e", "alce": "#2ca02c"}
NOTE_COLOUR = "#7f7f7f"


def known(value) -> bool:
    return value is not None and isinstance(value, int | float) and math.isfinite(value)


def parity_text(parity: dict) -> str:
    """One line of human parity: the mean advantage with its CI and the winning rate, or why none."""
    if parity.get("reason"):
        return f"no human parity: {parity['reason']}"
    low, high = parity["advantage_ci"]
    text = (
        f"human parity: r(judge) − r(annotator) = {number(parity['advantage'])} {interval(low, high)}, "
        f"winning rate {share(parity['winning_rate'])} at ε = {parity['epsilon']} (in r)"
    )
    return text + (f"; {parity['warning']}" if parity.get("warning") else "")


def _add_regression(figure: go.Figure, x: np.ndarray, y: np.ndarray, mode: str) -> None:
    """The least-squares line of judge on gold with its 95 % band, when there is one."""
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


def scatter_figure(points: list[tuple[str, float, float]], title: str, parity: dict, mode: str) -> go.Figure:
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
        line={"dash": "dot", "color": NOTE_COLOUR, "width": 1},
        hoverinfo="skip",
    )
    _add_regression(figure, x, y, mode)
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
        text=parity_text(parity),
        xref="paper",
        yref="paper",
        x=0.01,
        y=0.99,
        showarrow=False,
        xanchor="left",
        yanchor="top",
        font={"color": NOTE_COLOUR},
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


def heatmap_figure(configs, modes: list[str], best=None) -> go.Figure | None:
    """Pearson r per verifier (rows) × entailment judge (columns), one panel per decomposer
    (columns of panels) and precision mode (rows of panels), the chosen one starred and the
    members of the 95 % confidence set of the best marked "∈". Only `judge:V+D+E` sources take
    part; None when there is none."""
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
                    text[i][j] = (
                        (f"{c.pearson:.2f}" if known(c.pearson) else "—")
                        + (" ★" if c is best else "")
                        + (" ∈" if c.in_best_set else "")
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
        title={
            "text": "Pearson r with gold · ★ chosen · ∈ in the 95 % confidence set of the best",
            "font": {"size": 13, "color": NOTE_COLOUR},
        },
        coloraxis={"colorscale": "RdBu", "cmin": -1, "cmax": 1, "colorbar": {"title": "r"}},
        height=max(280, 90 + 200 * len(modes)),
        margin={"l": 10, "r": 10, "t": 80, "b": 40},
    )
    return figure


def forest_figure(configs, best=None) -> go.Figure:
    """Each configuration's r with its 95 % CI, highest first, coloured by precision mode, the
    chosen one starred and the members of the 95 % confidence set of the best ringed."""
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
            customdata=[[c.p_best] for c in rows],
            hovertemplate="%{y}<br>r %{x:.3f}<br>bootstrap win share %{customdata[0]:.2f}<extra></extra>",
        )
    members = [c for c in ordered if c.in_best_set and known(c.pearson)]
    figure.add_scatter(
        x=[c.pearson for c in members],
        y=[c.name for c in members],
        mode="markers",
        name="in the 95 % confidence set of the best",
        marker={"symbol": "circle-open", "size": 16, "color": NOTE_COLOUR, "line": {"width": 2}},
        hoverinfo="skip",
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
    figure.update_layout(
        height=160 + 24 * len(ordered),
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
        xaxis={"title": "Pearson r with gold (95 % CI: Fisher z, jackknife)", "range": [-1.02, 1.02]},
        yaxis={"categoryorder": "array", "categoryarray": [c.name for c in ordered]},
        legend={"orientation": "h", "y": -0.2},
    )
    return figure


def parity_figure(configs, epsilon: float, best=None) -> go.Figure | None:
    """Each configuration's mean advantage r(judge, others' mean) − r(annotator i, others' mean) over
    the annotators, with its 95 % CI, and the lines 0 (parity) and −ε (the margin of the
    alternative-annotator test); hover gives the winning rate. None when no configuration has
    parity (fewer than two annotators with finished work)."""
    rows = [c for c in configs if known(c.parity.get("advantage"))]
    if not rows:
        return None
    rows.sort(key=lambda c: c.parity["advantage"])
    advantage = [c.parity["advantage"] for c in rows]
    low = [
        a - c.parity["advantage_ci"][0] if known(c.parity["advantage_ci"][0]) else 0
        for a, c in zip(advantage, rows, strict=True)
    ]
    high = [
        c.parity["advantage_ci"][1] - a if known(c.parity["advantage_ci"][1]) else 0
        for a, c in zip(advantage, rows, strict=True)
    ]
    figure = go.Figure()
    # One trace per precision mode: an error bar takes its marker's colour, and a list of colours
    # there is no colour to plotly ("Invalid color specifier" in the browser's console).
    for mode in dict.fromkeys(c.precision_mode for c in rows):
        at = [i for i, c in enumerate(rows) if c.precision_mode == mode]
        colour = MODE_COLOURS.get(mode, NOTE_COLOUR)
        figure.add_scatter(
            x=[advantage[i] for i in at],
            y=[rows[i].name for i in at],
            mode="markers",
            name=f"mean advantage over the annotators ({mode})",
            marker={"color": colour, "size": 9},
            error_x={
                "type": "data",
                "symmetric": False,
                "array": [high[i] for i in at],
                "arrayminus": [low[i] for i in at],
                "color": colour,
            },
            customdata=[
                [rows[i].parity["winning_rate"] if known(rows[i].parity["winning_rate"]) else -1] for i in at
            ],
            hovertemplate="%{y}<br>advantage %{x:.3f}<br>winning rate %{customdata[0]:.2f}<extra></extra>",
        )
    if best is not None and best in rows:
        figure.add_scatter(
            x=[best.parity["advantage"]],
            y=[best.name],
            mode="markers",
            name="chosen",
            marker={"symbol": "star", "size": 16, "color": "gold", "line": {"width": 1}},
            hoverinfo="skip",
        )
    for x, name in ((0.0, "parity (0)"), (-epsilon, f"margin −ε = {-epsilon:g}")):
        figure.add_vline(x=x, line={"dash": "dash" if x else "solid", "color": NOTE_COLOUR, "width": 1})
        figure.add_annotation(
            x=x, y=1.02, yref="paper", text=name, showarrow=False, font={"color": NOTE_COLOUR}
        )
    figure.update_layout(
        height=180 + 24 * len(rows),
        margin={"l": 10, "r": 10, "t": 50, "b": 40},
        xaxis={
            "title": "r(judge, others' mean) − r(annotator i, others' mean), mean over annotators (95 % CI)"
        },
        yaxis={"categoryorder": "array", "categoryarray": [c.name for c in rows]},
        showlegend=False,
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
