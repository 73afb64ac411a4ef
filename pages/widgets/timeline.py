"""Every citation of the response on one plotly timeline (a row per modality, over the media's
duration), above the whole media's waveform and spectrogram; choosing a citation jumps the
player to it."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from annotation.protocol.citations import format_time
from annotation.protocol.records import Sentence
from pages.widgets.sound import add_sound_traces, whole_media_sound

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


def timeline_figure(sentences: list[Sentence], duration_s: float | None, sound=None) -> go.Figure:
    """Spans as horizontal bars, points as markers; invalid citations are left out. With a
    sound view, its waveform and spectrogram lie below on the same time axis."""
    figure = make_subplots(
        rows=3 if sound is not None else 1,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.03,
        row_heights=[0.4, 0.25, 0.35] if sound is not None else None,
    )
    for modality, colour in COLOURS.items():
        spans = [
            (i, j, c)
            for i, s in enumerate(sentences)
            for j, c in enumerate(s.citations)
            if c.valid and c.modality == modality
        ]
        bars = [(i, j, c) for i, j, c in spans if c.end > c.start]
        points = [(i, j, c) for i, j, c in spans if c.end == c.start]
        if bars:
            figure.add_bar(
                orientation="h",
                y=[modality] * len(bars),
                base=[c.start for _, _, c in bars],
                x=[c.end - c.start for _, _, c in bars],
                marker_color=colour,
                name=modality,
                customdata=[[i, j] for i, j, _ in bars],
                width=0.5,
                hovertext=[_label(i, c) + f"–{format_time(c.end)}" for i, _, c in bars],
                hoverinfo="text",
                showlegend=False,
                row=1,
                col=1,
            )
        if points:
            figure.add_scatter(
                x=[c.start for _, _, c in points],
                y=[modality] * len(points),
                mode="markers",
                marker={"color": colour, "size": 12, "symbol": "diamond"},
                customdata=[[i, j] for i, j, _ in points],
                hovertext=[_label(i, c) for i, _, c in points],
                hoverinfo="text",
                showlegend=False,
                row=1,
                col=1,
            )
    rows = 1
    if sound is not None:
        add_sound_traces(figure, sound, 2, 3)
        rows = 3
    figure.update_xaxes(range=[0, duration_s] if duration_s else None)
    figure.update_xaxes(title_text="seconds", row=rows, col=1)
    figure.update_layout(
        height=170 if rows == 1 else 400,
        margin={"l": 10, "r": 10, "t": 10, "b": 30},
        barmode="overlay",
        clickmode="event+select",
    )
    return figure


def citation_timeline(store, video_name: str | None, sentences: list[Sentence], key: str) -> None:
    """The timeline; a click on a citation reruns, and `jumped_to(key)` then names it."""
    media = store.media(video_name) if video_name else None
    sound = whole_media_sound(store, media) if media is not None and media.has_audio else None
    st.plotly_chart(
        timeline_figure(sentences, None if media is None else media.duration_s, sound),
        key=key,
        on_select="rerun",
        selection_mode="points",
        config={"displayModeBar": False},
    )
    st.caption("Click a citation to play it; click the background to go back.")
    if sound is not None and not sound.exact:
        st.caption(
            f"The sound below is an overview from {sound.decoded_fraction:.0%} of the audio; "
            "the exact view is being computed and shows the next time this page updates."
        )
