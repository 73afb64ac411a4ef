"""Citation-bound playback: one player per citation, playing exactly its modality and span.

visual → a muted, video-only clip of [start − pad, end + pad], its poster the cited start frame
(a point gets a short clip around its frame); audio → an audio-only clip. Play starts a lead-in
(`lead_in_s`) before the cited start; the player also loops the span, plays at half speed and
steps frames (assets/player.js). The player
(`assets/player.js`, a components-v2 module running in the page) opens on the cited start,
marks the cited span on its scrub bar, shows the source's time ("0:14.0 of 2:00"), and draws an
audio citation's sound under its controls with a moving playhead. Clips come from
`annotation.media.clips.cut_clip` (the one cutter, cached on disk) and are served by the app's
own server; the browser never receives a whole source video. A media file without a proxy gets
one built in the background while clips are cut directly from the source.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import streamlit as st
from streamlit import runtime

from annotation.media.clips import AUDIO_POINT_S, ClipPrefetcher, cut_clip
from annotation.project import media_source, prepare_media
from annotation.project_settings import ProjectSettings
from annotation.protocol.citations import Citation
from annotation.store.rows import MediaFile
from pages.widgets.context import APP_DIR, component_key, show_text
from pages.widgets.response_view import chip_label
from pages.widgets.sound import sound_data, span_view

log = logging.getLogger("murgat.app")
POINT_CONTEXT_S = 0.5  # with no padding set, a visual point still gets a short clip around it

_PLAYERS = st.components.v2.component(
    "murgat_players", js=(APP_DIR / "assets" / "player.js").read_text(), isolate_styles=False
)
_proxy_lock = threading.Lock()
_proxy_jobs: dict[str, threading.Thread] = {}  # media sha256 → builder (process-wide)


def _build_proxy(store, media: MediaFile) -> None:
    try:
        prepare_media(store, media.name)
    except Exception:  # a failed proxy only costs speed: clips keep coming from the source
        log.exception("could not build a proxy for %s", media.name)
    finally:
        store.close()


def ready_proxy(store, media: MediaFile) -> Path | None:
    """The media's proxy when it exists; otherwise start building it (once per process)
    in the background and return None, so the caller cuts from the source meanwhile."""
    proxy = media.proxy_path
    if proxy and Path(proxy).exists():
        return Path(proxy)
    with _proxy_lock:
        job = _proxy_jobs.get(media.sha256)
        if job is None:
            job = threading.Thread(
                target=_build_proxy, args=(store, media), daemon=True, name=f"proxy-{media.name}"
            )
            _proxy_jobs[media.sha256] = job
            job.start()
    return None


def cut(store, media: MediaFile, citation: Citation, pad_s: float):
    """The clip of `citation` with `pad_s` around it (pad 0 on a visual point: its frame)."""
    return cut_clip(
        media_source(store, media),
        media.sha256,
        citation.modality,
        citation.start,
        citation.end,
        pad_s,
        store.cache_dir / "clips",
        proxy=ready_proxy(store, media),
    )


def media_url(path: Path, mimetype: str, slot: str) -> str:
    """A URL on the app's own server for the file at `path`, through Streamlit's media file
    manager (what st.video and st.image use; the file lives as long as the page shows `slot`).
    '' in a bare script run with no server."""
    if not runtime.exists():
        return ""
    url = runtime.get_instance().media_file_mgr.add(str(path), mimetype, f"murgat-player:{slot}")
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}{url}" if base and url.startswith("/") else url


def player_data(
    store,
    media: MediaFile,
    citation: Citation,
    pad_s: float,
    slot: str,
    *,
    with_sound: bool,
    lead_in_s: float = 0.0,
) -> dict:
    """What the player shows for one valid citation: the padded clip, where the cited span sits
    in it (source seconds), the media's duration, the cited start frame as the poster of a
    video, and the sound of the clip's span when `with_sound` and the citation is audio."""
    clip = cut(store, media, citation, pad_s or POINT_CONTEXT_S)
    cited_end = clip.cited_end_s + (AUDIO_POINT_S if clip.kind == "audio" and citation.is_point else 0.0)
    data = {
        "label": chip_label(citation),
        "kind": clip.kind,
        "url": media_url(clip.path, "video/mp4" if clip.kind == "video" else "audio/wav", slot),
        "clip_start_s": clip.source_start_s,
        "clip_end_s": clip.source_end_s,
        "cited_start_s": clip.cited_start_s,
        "cited_end_s": min(cited_end, clip.source_end_s),
        "media_duration_s": float(media.duration_s or clip.source_end_s),
        "poster": None,
        "sound": None,
        "lead_in_s": lead_in_s,
        "fps": float(media.info.get("fps") or 25.0),
    }
    if clip.kind == "video":
        frame = cut(store, media, Citation("visual", citation.start, citation.start), 0.0)
        data["poster"] = media_url(frame.path, "image/jpeg", f"{slot}:poster")
    elif with_sound:
        data["sound"] = sound_data(store, media, clip.source_start_s, clip.source_end_s)
    return data


def play_citation(
    store,
    video_name: str | None,
    citation: Citation,
    pad_s: float,
    *,
    autoplay: bool = False,
    with_sound: bool = False,
    key: str | None = None,
) -> None:
    """One player for one citation: `play_citations` with one."""
    play_citations(store, video_name, [citation], pad_s, autoplay=autoplay, with_sound=with_sound, key=key)


def play_citations(
    store,
    video_name: str | None,
    citations: list[Citation],
    pad_s: float,
    *,
    autoplay: bool = False,
    with_sound: bool = False,
    key: str | None = None,
    lead_in_s: float | None = None,
) -> None:
    """A player per citation (see module doc), two side by side, all in one element (one
    message per page run, however many players); `with_sound` draws an audio citation's sound
    under its controls; `key` tells several groups of players on a page apart; `lead_in_s` the
    project's setting when the caller has read it. An invalid citation, missing media or a clip
    that cannot be cut shows a friendly note instead."""
    invalid, problems, shown = [], [], []
    media = store.media(video_name) if video_name else None
    if lead_in_s is None:
        lead_in_s = ProjectSettings.of(store).lead_in_s
    for i, citation in enumerate(citations):
        if not citation.valid:
            invalid.append(citation)
        elif media is None:
            problems.append("The media of this response is not available.")
        else:
            try:
                shown.append(
                    player_data(
                        store,
                        media,
                        citation,
                        pad_s,
                        f"{key}:{i}",
                        with_sound=with_sound,
                        lead_in_s=lead_in_s,
                    )
                )
            except Exception:  # a clip that cannot be cut must not take the page down
                log.exception("could not cut %s of %s", citation, video_name)
                problems.append(
                    "This segment could not be prepared for playback; the details are in the log."
                )
    if shown:
        _PLAYERS(data={"players": shown, "autoplay": autoplay}, key=component_key(f"players:{key}"))
    for citation in invalid:
        show_text(chip_label(citation), "murgat-invalid")  # `raw` is the response's own text
    if invalid:
        st.caption("An invalid citation supports nothing; there is nothing to play.")
    for problem in dict.fromkeys(problems):
        st.warning(problem)


def prepare(store, media: MediaFile, citation: Citation, pad_s: float) -> None:
    """Make (and cache on disk) all a player of `citation` needs: its clip, and a video's poster
    or an audio clip's sound view."""
    clip = cut(store, media, citation, pad_s or POINT_CONTEXT_S)
    if clip.kind == "video":
        cut(store, media, Citation("visual", citation.start, citation.start), 0.0)
    else:
        span_view(store, media, clip.source_start_s, clip.source_end_s)


def prefetch(store, video_name: str | None, citations: list[Citation], pad_s: float) -> None:
    """Prepare the players the person will need next, in the background (best effort: errors
    stay in the futures; the foreground reports them)."""
    media = store.media(video_name) if video_name else None
    if media is None:
        return
    for citation in citations:
        if citation.valid:
            _prefetcher().submit(prepare, store, media, citation, pad_s)


@st.cache_resource(show_spinner=False)
def _prefetcher() -> ClipPrefetcher:
    return ClipPrefetcher(max_workers=1)  # 2 cores: leave one for the person's own cuts
