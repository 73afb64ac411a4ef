"""What every page needs: the project store, the signed-in person, role guards, a safe
way to show untrusted text, and a guard that turns any error into a friendly message.

The store object is cached for the process (it opens one SQLite connection per thread,
so sharing the object across sessions is safe); the person lives in session state.
"""

from __future__ import annotations

import html
import logging
import os
import re
import threading
from contextlib import contextmanager
from pathlib import Path

import streamlit as st

from annotation.store.project_store import DB_NAME, ProjectStore

APP_DIR = Path(__file__).resolve().parents[2]
PROJECT_ENV = "MURGAT_PROJECT"
log = logging.getLogger("murgat.app")


def project_root() -> Path:
    """`$MURGAT_PROJECT` when set, else `projects/` beside app.py."""
    configured = os.environ.get(PROJECT_ENV, "").strip()
    return Path(configured).expanduser() if configured else APP_DIR / "projects"


def list_projects(root: Path) -> list[Path]:
    """`root` itself when it is a project, else its sub-directories that are, by name."""
    if (root / DB_NAME).exists():
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / DB_NAME).exists())


@st.cache_resource(show_spinner=False)
def build_demo_project(directory: str) -> str:
    """Build the demo once per process (concurrent sessions wait for the same build)."""
    from annotation.demo.project import build_demo

    build_demo(Path(directory))
    return directory


@st.cache_resource(show_spinner=False)
def open_store(directory: str) -> ProjectStore:
    warm_up_sound_library()
    return ProjectStore.open(directory)


@st.cache_resource(show_spinner=False)
def warm_up_sound_library() -> threading.Thread:
    """Once per server process, in the background: librosa's one-time load (~1 s)."""
    from annotation.media.soundview import warm_up

    thread = threading.Thread(target=warm_up, name="sound-warm-up", daemon=True)
    thread.start()
    return thread


def available_projects() -> list[Path]:
    """The projects to choose from; builds the demo into `<root>/demo` when there is none."""
    root = project_root()
    projects = list_projects(root)
    if not projects:
        with st.spinner("No project yet: building the demo project (synthetic media)…"):
            build_demo_project(str(root / "demo"))
        projects = list_projects(root)
    return projects


def current_store() -> ProjectStore:
    """The chosen project's store (the sign-in screen chooses it)."""
    directory = st.session_state.get("project")
    if directory is None:
        directory = str(available_projects()[0])
        st.session_state["project"] = directory
    return open_store(directory)


def current_user() -> dict | None:
    """{'name', 'role'} of the signed-in person, re-read from the store so a role change or a
    removed account takes effect at once; None when nobody is signed in."""
    user = st.session_state.get("user")
    if user is None:
        return None
    fresh = current_store().user(user["name"])
    if fresh is None:
        st.session_state.pop("user", None)
        return None
    return {"name": fresh["name"], "role": fresh["role"]}


def sign_out() -> None:
    """Forget the person and everything of theirs in this session (the project choice stays).
    A single sign-on identity is logged out too (`st.logout`), else the sign-in page would
    sign the same person straight back in from the identity cookie."""
    signed_in_with_sso = sso_identity() is not None
    for key in list(st.session_state.keys()):
        if key != "project" and not str(key).startswith("$$"):  # '$$…' are Streamlit's own
            del st.session_state[key]
    if signed_in_with_sso:
        st.logout()


def sso_settings() -> dict:
    """The `[auth]` section of the deployment's Streamlit secrets, or {} when there is none
    (then single sign-on is not offered)."""
    if not st.secrets.load_if_toml_exists():
        return {}
    auth = st.secrets.get("auth")
    return dict(auth) if auth else {}


def sso_provider(settings: dict) -> str | None:
    """None for the plain `[auth]` form (client_id in `[auth]` itself, `st.login()`); else the
    first named `[auth.NAME]` section that has a client_id (`st.login(NAME)`)."""
    if "client_id" in settings:
        return None
    return next(
        (name for name, value in settings.items() if hasattr(value, "get") and value.get("client_id")), None
    )


def sso_identity() -> dict | None:
    """The identity `st.login` signed in (st.user as a dict: email, name, …), or None when
    single sign-on is not configured or nobody is signed in with it."""
    if not sso_settings():
        return None
    identity = st.user.to_dict()
    return identity if identity.get("is_logged_in") else None


def escaped(text: str) -> str:
    """Untrusted text as inert HTML (markup and entities shown literally, newlines kept)."""
    return html.escape(text or "").replace("\n", "<br>")


# The marks that make links, images, emphasis, code, LaTeX, HTML and Streamlit's directives; a '-'
# or ',' cannot, and stays readable in an id like 'demo-c-05'.
_MARKDOWN_SPECIALS = re.compile(r"[\\`*_{}\[\]()<>#+.!|~:$@]")
# Streamlit finds autolinks (`http://…`, `www.…`, `a@b.org`) in the text *after* escapes are
# read, so an invisible word joiner (U+2060) goes where those patterns would match.
_AUTOLINK_RE = re.compile(r"(?i)(?<=:)(?=//)|(?<=www)(?=\.)|(?<=@)")


def literal(text) -> str:
    """Untrusted text for a place that renders Markdown (headers, captions, labels, toasts):
    punctuation backslash-escaped and autolink patterns broken by an invisible word joiner, so
    no link, image, emphasis, LaTeX or directive is made from it (`![x](http://…)` shows as
    written)."""
    return _MARKDOWN_SPECIALS.sub(r"\\\g<0>", _AUTOLINK_RE.sub("\u2060", str(text)))


def show_text(text: str, css_class: str = "murgat-text") -> None:
    """Render untrusted text as text: escaped HTML, no Markdown interpretation."""
    st.html(f'<div class="{css_class}">{escaped(text)}</div>')


def synthetic_banner(store: ProjectStore) -> None:
    if store.get_setting("synthetic"):
        st.warning(
            "Demo project: the responses, media and labels here are synthetic.", icon=":material/science:"
        )


@contextmanager
def friendly_errors(what: str = "this page"):
    """Show a friendly message instead of a traceback; the details go to the log."""
    try:
        yield
    except Exception:  # Streamlit's rerun/stop are BaseException and pass through
        log.exception("error while showing %s", what)
        st.error(
            f"Something went wrong while showing {what}. Your saved decisions are safe; "
            "reload the page, and tell an admin if it happens again."
        )


def load_css() -> None:
    css = APP_DIR / "assets" / "styles.css"
    if css.exists():
        st.html(f"<style>{css.read_text()}</style>")
