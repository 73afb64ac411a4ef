"""Seeing sound: the waveform (min/max envelope) and mel spectrogram of a clip's audio, with the
cited span shaded. `sound_data` gives the compact arrays the citation player draws under its own
controls (bound to it, with a moving playhead); the plotly traces draw the whole media's sound
under the citation timeline. The arrays come from annotation.media.sound_cache."""

from __future__ import annotations

import base64
import logging
from pathlib import Path

import numpy as np
import plotly.colors
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from annotation.media.clips import AUDIO_POINT_S
from annotation.media.sound_cache import load_sound_view
from annotation.media.soundview import compact_db
from annotation.protocol.citations import Citation

log = logging.getLogger("murgat.app")
# Magma, but starting at pure black: Streamlit's chart draws Magma's first colour, "#000004", pink,
# so silence (−80 dB) looked loud. Checked in Chromium by tests/e2e/test_sound_colours.py.
SPECTROGRAM_COLOURS = ["#000000", *plotly.colors.sequential.Magma[1:]]


def add_sound_traces(figure: go.Figure, view, waveform_row: int, spectrogram_row: int) -> None:
    """The min/max waveform band and the mel heatmap of `view` into two rows of `figure`."""
    times = view.envelope_times_s
    figure.add_scatter(
        x=times,
        y=view.envelope_maxs,
        mode="lines",
        line={"width": 0.6, "color": "#444"},
        hoverinfo="skip",
        showlegend=False,
        row=waveform_row,
        col=1,
    )
    figure.add_scatter(
        x=times,
        y=view.envelope_mins,
        mode="lines",
        line={"width": 0.6, "color": "#444"},
        fill="tonexty",
        fillcolor="rgba(60,60,60,0.5)",
        hoverinfo="skip",
        showlegend=False,
        row=waveform_row,
        col=1,
    )
    figure.add_heatmap(
        x=view.spectrogram_times_s,
        y=view.mel_freqs_hz,
        z=compact_db(view.spectrogram_db),
        colorscale=SPECTROGRAM_COLOURS,
        zmin=-80,
        zmax=0,
        showscale=False,
        hovertemplate="%{x:.2f} s, %{y:.0f} Hz: %{z} dB<extra></extra>",
        row=spectrogram_row,
        col=1,
    )
    figure.update_yaxes(title_text="amplitude", row=waveform_row, col=1)
    figure.update_yaxes(
        title_text="Hz (mel bands)",
        type="log",
        tickvals=[100, 300, 1000, 3000, 8000],
        ticktext=["100", "300", "1k", "3k", "8k"],
        row=spectrogram_row,
        col=1,
    )


def sound_figure(view, cited_start_s: float, cited_end_s: float) -> go.Figure:
    """Waveform above, spectrogram below, sharing the time axis; the cited span shaded."""
    figure = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.04, row_heights=[0.35, 0.65])
    add_sound_traces(figure, view, 1, 2)
    for row in (1, 2):
        figure.add_vrect(
            x0=cited_start_s, x1=cited_end_s, fillcolor="rgba(255,215,0,0.35)", line_width=0, row=row, col=1
        )
    figure.update_xaxes(title_text="seconds in the media", row=2, col=1)
    figure.update_layout(height=320, margin={"l": 10, "r": 10, "t": 10, "b": 30})
    return figure


PLAYER_COLUMNS = 240  # the player's sound view: columns of the waveform and the spectrogram


def span_view(store, media: dict, start_s: float, end_s: float):
    """The sound view of [start_s, end_s) of the media as a player draws it (cached on disk;
    `pages.widgets.player.prepare` makes it ahead of time). Errors as `load_sound_view`."""
    return load_sound_view(
        Path(media["path"]),
        media["sha256"],
        store.cache_dir / "clips",
        start_s=start_s,
        end_s=end_s,
        width=PLAYER_COLUMNS,
        max_columns=PLAYER_COLUMNS,
    )


def sound_data(store, media: dict, start_s: float, end_s: float) -> dict | None:
    """The sound of [start_s, end_s) of the media for the player's own view: the waveform's
    min/max per column (−1..1) and the spectrogram as bytes (0 = −80 dB, 255 = 0 dB; row 0 the
    lowest band) with its colours. None (and a log entry) when the sound cannot be decoded."""
    try:
        view = span_view(store, media, start_s, end_s)
    except Exception:
        log.exception("could not decode the sound of %s at %.3f-%.3f", media.get("name"), start_s, end_s)
        return None
    levels = np.clip((view.spectrogram_db + 80.0) * (255.0 / 80.0), 0, 255).astype(np.uint8)
    return {
        "mins": np.round(view.envelope_mins.astype(float), 3).tolist(),
        "maxs": np.round(view.envelope_maxs.astype(float), 3).tolist(),
        "spectrogram": {
            "rows": int(levels.shape[0]),
            "cols": int(levels.shape[1]),
            "b64": base64.b64encode(np.ascontiguousarray(levels).tobytes()).decode(),
            "colours": SPECTROGRAM_COLOURS,
        },
    }


def whole_media_sound(store, media: dict):
    """The whole file's sound view (cached at import by prepare_media); on a first look at a
    long file not prepared yet, an overview while the exact view is computed. None (and a
    log entry) when the sound cannot be decoded."""
    try:
        return load_sound_view(
            Path(media["path"]), media["sha256"], store.cache_dir / "clips", overview_first=True
        )
    except Exception:
        log.exception("could not decode the sound of %s", media.get("name"))
        return None


def sound_view(store, video_name: str | None, citation: Citation, pad_s: float) -> None:
    """The sound of the citation's padded span as a plotly figure, apart from any player; a
    problem shows a friendly note. (The annotate page draws the sound inside each player:
    `pages.widgets.player.play_citation(..., with_sound=True)`.)"""
    media = store.media(video_name) if video_name else None
    if media is None or not citation.valid:
        return
    end = citation.end + (AUDIO_POINT_S if citation.is_point else 0.0)
    try:
        view = load_sound_view(
            Path(media["path"]),
            media["sha256"],
            store.cache_dir / "clips",
            start_s=max(0.0, citation.start - pad_s),
            end_s=end + pad_s,
            width=800,
            max_columns=300,
        )
    except Exception:
        log.exception("could not decode the sound of %s at %s", video_name, citation)
        st.warning("The sound of this segment could not be shown; the details are in the log.")
        return
    st.plotly_chart(
        sound_figure(view, citation.start, end),
        config={"displayModeBar": False},
        key=f"sound:{video_name}:{citation.start}:{citation.end}",
    )
