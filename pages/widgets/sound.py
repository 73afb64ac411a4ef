"""Seeing sound: the waveform (min/max envelope) and mel spectrogram of a clip's audio, with the
cited span shaded. `sound_data` gives the compact arrays the citation player draws under its own
controls (bound to it, with a moving playhead); the plotly traces draw the whole media's sound
under the citation timeline. The arrays come from annotation.media.sound_cache."""

from __future__ import annotations

import base64
import logging

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from annotation.media.sound_cache import load_sound_view
from annotation.media.soundview import compact_db
from annotation.project import media_source
from annotation.store.rows import MediaFile

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


PLAYER_COLUMNS = 240  # the player's sound view: columns of the waveform and the spectrogram


def span_view(store, media: MediaFile, start_s: float, end_s: float):
    """The sound view of [start_s, end_s) of the media as a player draws it (cached on disk;
    `pages.widgets.player.prepare` makes it ahead of time). Errors as `load_sound_view`."""
    return load_sound_view(
        media_source(store, media),
        media.sha256,
        store.cache_dir / "clips",
        start_s=start_s,
        end_s=end_s,
        width=PLAYER_COLUMNS,
        max_columns=PLAYER_COLUMNS,
    )


def sound_data(store, media: MediaFile, start_s: float, end_s: float) -> dict | None:
    """The sound of [start_s, end_s) of the media for the player's own view: the waveform's
    min/max per column (−1..1) and the spectrogram as bytes (0 = −80 dB, 255 = 0 dB; row 0 the
    lowest band) with its colours. None (and a log entry) when the sound cannot be decoded."""
    try:
        view = span_view(store, media, start_s, end_s)
    except Exception:
        log.exception("could not decode the sound of %s at %.3f-%.3f", media.name, start_s, end_s)
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


def whole_media_sound(store, media: MediaFile):
    """The whole file's sound view (cached at import by prepare_media); on a first look at a
    long file not prepared yet, an overview while the exact view is computed. None (and a
    log entry) when the sound cannot be decoded."""
    try:
        return load_sound_view(
            media_source(store, media), media.sha256, store.cache_dir / "clips", overview_first=True
        )
    except Exception:
        log.exception("could not decode the sound of %s", media.name)
        return None
