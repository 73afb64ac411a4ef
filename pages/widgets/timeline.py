"""Every citation of the response on one plotly timeline (a row per modality, over the media's
duration); choosing one jumps the player to it."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from annotation.citations import format_time
from annotation.records import Sentence

COLOURS = {"visual": "#1f77b4", "audio": "#d62728"}


def jumped_to(key: str) -> tuple[int, int] | None:
    """(sentence index, citation index) chosen on the timeline with this key, if any."""
    state = st.session_state.get(key)
    points = (state or {}).get("selection", {}).get("points", []) if isinstance(state, dict) else []
    if not points:
        return None
    data = points[0].get("customdata")
    return (int(data[0]), int(data[1])) if data else None


def _label(sentence_index: int, citation) -> str:
    return f"sentence {sentence_index + 1}: {citation.modality} {format_time(citation.start)}"


def timeline_figure(sentences: list[Sentence], duration_s: float | None) -> go.Figure:
    """Spans as horizontal bars, points as markers; invalid citations are left out."""
    figure = go.Figure()
    for modality, colour in COLOURS.items():
        spans = [(i, j, c) for i, s in enumerate(sentences) for j, c in enumerate(s.citations)
                 if c.valid and c.modality == modality]
        bars = [(i, j, c) for i, j, c in spans if c.end > c.start]
        points = [(i, j, c) for i, j, c in spans if c.end == c.start]
        if bars:
            figure.add_bar(orientation="h", y=[modality] * len(bars), base=[c.start for _, _, c in bars],
                           x=[c.end - c.start for _, _, c in bars], marker_color=colour, name=modality,
                           customdata=[[i, j] for i, j, _ in bars], width=0.5,
                           hovertext=[_label(i, c) + f"–{format_time(c.end)}" for i, _, c in bars],
                           hoverinfo="text", showlegend=False)
        if points:
            figure.add_scatter(x=[c.start for _, _, c in points], y=[modality] * len(points), mode="markers",
                               marker={"color": colour, "size": 12, "symbol": "diamond"},
                               customdata=[[i, j] for i, j, _ in points],
                               hovertext=[_label(i, c) for i, _, c in points], hoverinfo="text",
                               showlegend=False)
    figure.update_layout(height=170, margin={"l": 10, "r": 10, "t": 10, "b": 30}, barmode="overlay",
                         xaxis={"title": "seconds", "range": [0, duration_s] if duration_s else None},
                         clickmode="event+select")
    return figure


def citation_timeline(store, video_name: str | None, sentences: list[Sentence], key: str) -> None:
    """The timeline; a click on a citation reruns, and `jumped_to(key)` then names it."""
    media = store.media(video_name) if video_name else None
    duration = (media or {}).get("info", {}).get("duration_s")
    st.plotly_chart(timeline_figure(sentences, duration), key=key, on_select="rerun",
                    selection_mode="points", config={"displayModeBar": False})
    st.caption("Click a citation to play it; click the background to go back.")
