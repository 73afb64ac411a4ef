"""What every page needs: the project store, the signed-in person, role guards, a safe
way to show untrusted text, and a guard that turns any error into a friendly message.

The store object is cached for the process (it opens one SQLite connection per thread,
so sharing the object across sessions is safe); the person lives in session state.
"""

from __future__ import annotations

import functools
import html
import logging
import os
import re
import time
from contextlib import contextmanager
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from annotation.state import ProjectState, project_state, state_in_memory
from annotation.store.accounts import sign_in_client
from annotation.store.database import DiskFullError, ProjectFileError
from annotation.store.project_store import DB_NAME, ProjectStore
from annotation.store.rows import Person
from annotation.store.sessions import end_session, session_user, start_session
from pages.widgets.page_first import page_running
from pages.widgets.session_cookie import token_from_browser

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
    store = ProjectStore.open(directory)
    store.database.before_write = functools.partial(refuse_writes_of_ended_sessions, store)
    store.database.on_disk_full = tell_of_a_full_disk
    return store


DISK_FULL = (
    "The disk that holds this project is full: your last action was not saved (everything saved "
    "before it is safe). Tell an admin; once there is room, do it again."
)
_RERUN_AFTER_FULL_DISK_S = 5.0  # a page whose own drawing writes must not rerun forever


def tell_of_a_full_disk(error: DiskFullError) -> None:
    """A write from this page found the disk full (and was rolled back): rerun the page, which
    then says so at its top (`show_write_failure`), instead of Streamlit's generic error. A
    second failure within seconds is left to `friendly_errors`, which says the same."""
    if get_script_run_ctx() is None:
        return
    now = time.monotonic()
    if now - st.session_state.get("disk_full_at", -1e9) < _RERUN_AFTER_FULL_DISK_S:
        return
    st.session_state["disk_full_at"] = now
    st.session_state["write_failure"] = DISK_FULL
    st.rerun()


def show_write_failure() -> None:
    """Say, once, that the last action was not saved (see `tell_of_a_full_disk`)."""
    message = st.session_state.pop("write_failure", None)
    if message:
        st.error(message)


def refuse_writes_of_ended_sessions(store: ProjectStore) -> None:
    """Before any write made from a page run (a callback or the script): when the person of
    this browser tab holds a session that has ended meanwhile (signed out in another tab,
    revoked by an admin or by a password change, expired), forget them here and rerun the app,
    which then shows the sign-in form: the write is never made. A callback runs before the page
    script, so this check at the write (on the server) is what holds, not the page's frame."""
    if get_script_run_ctx() is None:  # a background thread (media preparation): nobody acting
        return
    token = st.session_state.get("session_token")
    if token is None or session_user(store, token) is not None:
        return
    st.session_state.pop("user", None)
    st.session_state.pop("session_token", None)
    st.rerun()


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


def current_state(store: ProjectStore) -> ProjectState:
    """The project's state as of now (labels, annotators, gold, judges, settings): the one way a
    page reads derived data. Cached by (project, revision) for every session and thread, so a
    rerun with nothing new costs one read of the revision; the first read in a server process, which
    reads every response (or derives it, after an update of the tool), says so."""
    if state_in_memory(store):
        return project_state(store)
    with st.spinner("Reading the project's labels and gold (the first visit since the app started)…"):
        return project_state(store)


def remembered(key: str, default=None) -> str:
    """`key`, for a field whose value should outlive a visit to another page: Streamlit forgets a
    field's value in every run that does not draw it, and the field would silently fall back to
    its default on return. Call it just before drawing the field, which then takes no default of
    its own: the value comes back from a copy kept under another key (else `default`, when given)."""
    kept = f"{key}:remembered"
    if key in st.session_state:
        st.session_state[kept] = st.session_state[key]
    elif kept in st.session_state:
        st.session_state[key] = st.session_state[kept]
    elif default is not None:
        st.session_state[key] = default
    return key


SESSION_ENDED_KEY = "session_ended"


def current_user() -> Person | None:
    """The signed-in person, re-read from the store so a role change or a
    removed account takes effect at once; None when nobody is signed in. A page opened anew
    (reload, Back, a new tab) signs in from the browser's session cookie; a session revoked
    meanwhile (signed out in another tab, expired) signs this one out too. A write that failed
    in the action before this run is reported here, at the top of the page."""
    show_write_failure()
    if st.session_state.get("user") is None and not resume_session():
        return None
    store, token = current_store(), st.session_state.get("session_token")
    if token is not None:
        fresh = session_user(store, token)
    else:  # signed in without a session (a test setting the person directly)
        account = store.user(st.session_state["user"].name)
        fresh = None if account is None else account.person
    if fresh is None:
        st.session_state.pop("user", None)
        if st.session_state.pop("session_token", None) is not None:
            st.session_state[SESSION_ENDED_KEY] = True  # the sign-in form says why it is back
        return None
    st.session_state["user"] = fresh
    return fresh


def resume_session() -> bool:
    """Sign in from the browser's session cookie when it names a live session of one of the
    projects (that project is then chosen); False otherwise."""
    token = token_from_browser()
    if token is None or st.session_state.get("refused_token") == token:
        return False
    for project in available_projects():
        user = session_user(open_store(str(project)), token)
        if user is not None:
            st.session_state.update(user=user, project=str(project), session_token=token)
            return True
    st.session_state["refused_token"] = token  # checked once per page, not on every rerun
    return False


def sign_in_as(store: ProjectStore, user: Person) -> None:
    """Sign `user` in for this page and start the session the browser will keep."""
    st.session_state.pop("session_token", None)
    st.session_state["user"] = user
    st.session_state["session_token"] = start_session(store, user.name)


# Set to the proxies uvicorn may believe (e.g. "10.0.0.5"); unset, its default believes any
# X-Forwarded-For sent from 127.0.0.1, which anyone on the host can write.
PROXIES_ENV = "FORWARDED_ALLOW_IPS"


def client_address() -> str | None:
    """Where this page's requests come from, for the sign-in throttle (see `sign_in_client`)."""
    address = st.context.ip_address  # None on localhost (and no str in AppTest)
    headers = st.context.headers
    forwarded = headers.get("X-Forwarded-For") if headers is not None else None
    return sign_in_client(
        address if isinstance(address, str) else None,
        forwarded if isinstance(forwarded, str) else None,
        proxy_configured=bool(os.environ.get(PROXIES_ENV, "").strip()),
    )


def sign_out() -> None:
    """End the session (revoked on the server, the cookie removed on the next page run) and
    forget the person and everything of theirs here (the project choice stays). A single
    sign-on identity is logged out too (`st.logout`), else the sign-in page would sign the
    same person straight back in from the identity cookie."""
    signed_in_with_sso = sso_identity() is not None
    end_session(current_store(), st.session_state.get("session_token"))
    refused = token_from_browser()
    for key in list(st.session_state.keys()):
        if key != "project" and not str(key).startswith("$$"):  # '$$…' are Streamlit's own
            del st.session_state[key]
    if refused:
        st.session_state["refused_token"] = refused
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


# Bidirectional controls (embeddings, overrides, isolates, marks) reorder the text shown around
# them ("(visual, 0:01)" read reversed); they are shown as their code points instead.
_BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def bidi_inert(text: str) -> str:
    """`text` with every bidirectional control character replaced by a visible '[U+202E]'."""
    return _BIDI_CONTROLS.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def escaped(text: str) -> str:
    """Untrusted text as inert HTML (markup and entities shown literally, bidirectional
    controls shown as code points, newlines kept)."""
    return html.escape(bidi_inert(text or "")).replace("\n", "<br>")


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
    written); bidirectional controls are shown as code points."""
    return _MARKDOWN_SPECIALS.sub(r"\\\g<0>", _AUTOLINK_RE.sub("\u2060", bidi_inert(str(text))))


def component_key(text: str) -> str:
    """A Streamlit component key made from ids and model names: Streamlit splits a component's
    widget id at '__', so a key holding '__' is refused; every '_' becomes '_5f' (one-to-one,
    never two underscores in a row)."""
    return str(text).replace("_", "_5f")


def show_text(text: str, css_class: str = "murgat-text") -> None:
    """Render untrusted text as text: escaped HTML, no Markdown interpretation."""
    st.html(f'<div class="{css_class}">{escaped(text)}</div>')


def synthetic_banner(store: ProjectStore) -> None:
    if store.get_setting("synthetic"):
        st.warning("Demo project: the responses, media and labels here are synthetic.")


@contextmanager
def friendly_errors(what: str = "this page"):
    """Show a friendly message instead of a traceback; the details go to the log. Marks the page
    run (`page_first`: background measurements wait while it runs)."""
    try:
        with page_running():
            yield
    except DiskFullError:
        log.exception("disk full while showing %s", what)
        st.error(DISK_FULL)
    except ProjectFileError as exc:
        st.error(f"This project cannot be opened: {literal(exc)}")
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
