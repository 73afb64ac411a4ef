"""Citation-bound playback: a citation plays exactly its modality and span, padded.

visual span → a muted, video-only clip of [start − pad, end + pad] with the cited span
marked by a caption track; visual point → that frame, plus a short clip around it;
audio → an audio-only clip. Clips come from `annotation.media.clips.cut_clip` (the one cutter,
cached on disk); st.video never receives a whole source video. A media file without a
proxy gets one built in the background while clips are cut directly from the source.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import streamlit as st

from annotation.media.clips import ClipPrefetcher, cut_clip
from annotation.project import media_source, prepare_media
from annotation.protocol.citations import Citation, format_time
from pages.widgets.context import literal, show_text
from pages.widgets.response_view import chip_label

log = logging.getLogger("murgat.app")
POINT_CONTEXT_S = 0.5  # with no padding set, a visual point still gets a short clip around it

_proxy_lock = threading.Lock()
_proxy_jobs: dict[str, threading.Thread] = {}  # media sha256 → builder (process-wide)


def _build_proxy(store, media: dict) -> None:
    try:
        prepare_media(store, media["name"])
    except Exception:  # a failed proxy only costs speed: clips keep coming from the source
        log.exception("could not build a proxy for %s", media["name"])
    finally:
        store.close()


def ready_proxy(store, media: dict) -> Path | None:
    """The media's proxy when it exists; otherwise start building it (once per process)
    in the background and return None, so the caller cuts from the source meanwhile."""
    proxy = media.get("proxy_path")
    if proxy and Path(proxy).exists():
        return Path(proxy)
    with _proxy_lock:
        job = _proxy_jobs.get(media["sha256"])
        if job is None:
            job = threading.Thread(
                target=_build_proxy, args=(store, media), daemon=True, name=f"proxy-{media['name']}"
            )
            _proxy_jobs[media["sha256"]] = job
            job.start()
    return None


def cut(store, media: dict, citation: Citation, pad_s: float):
    """The clip of `citation` with `pad_s` around it (pad 0 on a visual point: its frame)."""
    return cut_clip(
        media_source(store, media),
        media["sha256"],
        citation.modality,
        citation.start,
        citation.end,
        pad_s,
        store.cache_dir / "clips",
        proxy=ready_proxy(store, media),
    )


def span_caption(clip) -> str:
    """Where the cited span sits in the clip, in the source's and the clip's time."""
    offset_start = clip.cited_start_s - clip.source_start_s
    offset_end = clip.cited_end_s - clip.source_start_s
    cited = format_time(clip.cited_start_s)
    if clip.cited_end_s > clip.cited_start_s:
        cited += f"–{format_time(clip.cited_end_s)}"
    where = (
        f"the cited part at {offset_start:.1f}–{offset_end:.1f} s"
        if offset_end > offset_start
        else f"the cited moment at {offset_start:.1f} s"
    )
    return (
        f"cited {cited}; "
        f"this clip is {format_time(clip.source_start_s)}–{format_time(clip.source_end_s)}, {where}"
    )


def span_track(clip) -> str:
    """A WebVTT track that shows '▶ cited' exactly while the cited span plays."""

    def stamp(seconds: float) -> str:
        seconds = max(0.0, seconds)
        return f"{int(seconds // 3600):02d}:{int(seconds % 3600 // 60):02d}:{seconds % 60:06.3f}"

    start = clip.cited_start_s - clip.source_start_s
    end = max(clip.cited_end_s - clip.source_start_s, start + 0.2)
    return f"WEBVTT\n\n{stamp(start)} --> {stamp(end)}\n▶ cited\n"


def play_citation(
    store, video_name: str | None, citation: Citation, pad_s: float, *, autoplay: bool = False
) -> None:
    """Show the player for one citation (see module doc); a problem shows a friendly note."""
    if not citation.valid:
        show_text(chip_label(citation), "murgat-invalid")  # `raw` is the response's own text
        st.caption("An invalid citation supports nothing; there is nothing to play.")
        return
    st.markdown(f"**{literal(chip_label(citation))}**")
    media = store.media(video_name) if video_name else None
    if media is None:
        st.warning("The media of this response is not available.")
        return
    try:
        if citation.is_point and citation.modality == "visual":
            frame = cut(store, media, citation, 0.0)
            st.image(str(frame.path), caption=f"the cited frame at {format_time(citation.start)}")
        clip = cut(store, media, citation, pad_s or POINT_CONTEXT_S)
        if clip.kind == "audio":
            st.audio(str(clip.path), autoplay=autoplay)
        else:
            st.video(str(clip.path), muted=True, autoplay=autoplay, subtitles=span_track(clip))
        st.caption(span_caption(clip))
    except Exception:  # a clip that cannot be cut must not take the page down
        log.exception("could not cut %s of %s", citation, video_name)
        st.warning("This segment could not be prepared for playback; the details are in the log.")


def prefetch(store, video_name: str | None, citations: list[Citation], pad_s: float) -> None:
    """Prepare the clips the person will need next, in the background (best effort: errors
    stay in the futures; the foreground cut reports them)."""
    media = store.media(video_name) if video_name else None
    if media is None:
        return
    proxy = ready_proxy(store, media)
    for citation in citations:
        if not citation.valid:
            continue
        pads = (
            (0.0, pad_s or POINT_CONTEXT_S)
            if citation.is_point and citation.modality == "visual"
            else (pad_s or POINT_CONTEXT_S,)
        )  # a visual point shows its frame and a clip
        for pad in pads:
            _prefetcher().submit(
                cut_clip,
                media_source(store, media),
                media["sha256"],
                citation.modality,
                citation.start,
                citation.end,
                pad,
                store.cache_dir / "clips",
                proxy=proxy,
            )


@st.cache_resource(show_spinner=False)
def _prefetcher() -> ClipPrefetcher:
    return ClipPrefetcher(max_workers=1)  # 2 cores: leave one for the person's own cuts
