"""Shared by the tests/test_app_*.py files (no tests here): tiny projects built in code,
real media made with the bundled ffmpeg, and a few AppTest helpers."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from media_fixtures import make_pattern_video
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest, app_test, local_script_runner

from annotation.project import register_media
from annotation.protocol.records import Response
from annotation.protocol.sentences import sentences_for_response
from annotation.store.accounts import hash_password
from annotation.store.project_store import ProjectStore
from annotation.store.sessions import start_session

APP = Path(__file__).resolve().parents[1] / "app.py"
FIRST_TEXT = (
    "The man points at the screen (visual, 0:02). He says hello and waves "
    "(audio, 0:01-0:03; visual, 0:03). So B is right.\nAnswer: B"
)
SECOND_TEXT = "A red light blinks (visual, 0:04-0:05). Thus A.\nAnswer: A"
# A script run that takes longer fails the test. Generous: a page is checked for what it shows, not
# how fast (benchmarks/ measure that), and the Agreement page on the demo needs ~20 s of CPU, which
# on a loaded 2-core box running two test processes took over a minute.
SCRIPT_RUN_TIMEOUT_S = 180
PEOPLE = (("ann", "annotator"), ("bob", "annotator"), ("ada", "adjudicator"), ("boss", "admin"))


def make_video(path: Path, seconds: int = 6) -> Path:
    """A small H.264 + AAC mp4 (160×120 25 fps test pattern and a 440 Hz tone)."""
    return make_pattern_video(path, width=160, height=120, fps=25, duration_s=seconds)


# Real scrypt hashes (N = 2^17) of the test people's names, each made once with `hash_password` and
# kept here: every test process made them again (≈ 0.5 CPU s each, ≈ 2 s a process) for accounts
# whose hash is not the subject. Signing in still checks them with the real scrypt.
KEPT_HASHES = {
    "ann": "scrypt$131072$8$1$BZzs/stwzouFmJ/AgCAIGQ==$sTFRmqgDPqpDTMMfxtAH4capQI5MIJj16L6t8QbSirA=",
    "bob": "scrypt$131072$8$1$jjMLbnQ5bLwWWXlhdP5NVg==$LcYoKQz7Ch4sCJop6FH4UMQ1FreUivTd6CTmRx4eJE0=",
    "ada": "scrypt$131072$8$1$Y25AmAcXVERDsP5KbABtMQ==$+en1eH9ZptClzhxattEPUSRZPsWqwJ6lcMKvYhUZahI=",
    "boss": "scrypt$131072$8$1$z/bWc76YoDrLhSB09QmzpA==$NfNEjDyoxWY8CcTpm2Q+utyt06bysLCphgdEfgYi/vs=",
    "cy": "scrypt$131072$8$1$SLRC46D1ZiBlyMhuGvcxLw==$SQjbMet9y3Fq9wb/bjKKLnZbPIkCgs7vCow2LzUuFIM=",
}


@functools.cache
def password_hash(password: str) -> str:
    """A real scrypt hash (N = 2^17) of `password`: kept above for the test people's names, else
    made once per password per test process (≈ 0.5 CPU s)."""
    return KEPT_HASHES.get(password) or hash_password(password)


def tiny_project(
    directory: Path, *, texts=(FIRST_TEXT, SECOND_TEXT), with_media: bool = False, models=None, **settings
) -> ProjectStore:
    """Responses r1, r2, … over one video `clip.mp4` (made when `with_media`), written by `models`
    (one per response; none by default), the PEOPLE (password = name) and overlap 2 (pool: ann,
    bob), plus any extra settings."""
    store = ProjectStore.open(directory, create=True)
    duration = None
    if with_media:
        make_video(store.media_root / "clip.mp4")
        duration = register_media(store, "clip.mp4").duration_s
    store.add_responses(
        [
            (
                Response(
                    f"r{i}",
                    text,
                    "clip.mp4",
                    "What happens first?",
                    ["A. He points", "B. He waves"],
                    "A",
                    model=None if models is None else models[i - 1],
                ),
                sentences_for_response(text, duration),
            )
            for i, text in enumerate(texts, start=1)
        ]
    )
    for name, role in PEOPLE:
        store.add_user(name, role, password_hash(name))
    store.set_setting("overlap", 2)
    for key, value in settings.items():
        store.set_setting(key, value)
    return store


def new_app() -> AppTest:
    """An AppTest of app.py (not run yet) that shares this process's registry of components,
    as every session of one server does. AppTest would scan the metadata of every installed
    package for components on its first run (≈ 0.5 CPU s: most of a page's first run), for
    each new AppTest; the installed packages do not change during a test run."""
    app = AppTest.from_file(str(APP), default_timeout=SCRIPT_RUN_TIMEOUT_S)
    app._bidi_component_manager = _component_registry()
    # Each run of an AppTest made new ScriptCaches (its pages' and its runner's), so app.py and the page
    # were read, passed through Streamlit's "magic" AST rewrite and compiled again on every run (most of
    # a short run's CPU); a server keeps one cache for all its sessions, and no script changes during a
    # test run.
    app_test.ScriptCache = local_script_runner.ScriptCache = _script_cache
    return app


@functools.cache
def _script_cache() -> ScriptCache:
    return ScriptCache()


@functools.cache
def _component_registry():
    from streamlit.components.v2.component_manager import BidiComponentManager

    registry = BidiComponentManager()
    registry.discover_and_register_components(start_file_watching=False)
    return registry


def open_app(monkeypatch, project: Path) -> AppTest:
    monkeypatch.setenv("MURGAT_PROJECT", str(project))
    return new_app().run()


def signed_in_app(monkeypatch, project: Path, name: str, **session_state) -> AppTest:
    """The app already signed in as `name`, for tests whose subject is not sign-in: a real
    session started in the project's store and handed to the app in session state exactly as
    the sign-in form leaves it (project, person, token), so no scrypt hash is checked. The
    app still checks the token against the store on every run; tests of signing in use
    `sign_in`. Any `session_state` entries are set before the first run too."""
    store = ProjectStore.open(project)
    try:
        account = store.user(name)
        if account is None:
            raise LookupError(f"there is no user '{name}' in {project}")
        token = start_session(store, name)
    finally:
        store.close()
    monkeypatch.setenv("MURGAT_PROJECT", str(project))
    app = new_app()
    app.session_state["project"] = str(project)
    app.session_state["user"] = account.person
    app.session_state["session_token"] = token
    for key, value in session_state.items():
        app.session_state[key] = value
    return app.run()


def sign_in(app: AppTest, name: str, password: str | None = None) -> AppTest:
    app.text_input(key="sign_in_name").input(name)
    app.text_input(key="sign_in_password").input(name if password is None else password)
    return next(b for b in app.button if b.label == "Sign in").click().run()


def open_page_as(monkeypatch, project: Path, name: str, page: str) -> AppTest:
    """Signed in as `name` (a real session, no sign-in form), `page` open, e.g. 'pages/admin.py'."""
    return signed_in_app(monkeypatch, project, name).switch_page(page).run()


def click(app: AppTest, key: str) -> AppTest:
    """Click the button with this key. Answer buttons carry their question in the key
    ('answer:True:r1|s0|verifiable'): 'answer:True' clicks the one on the page."""
    matches = [b for b in app.button if b.key == key or str(b.key).startswith(key + ":")]
    if len(matches) != 1:
        raise LookupError(f"{len(matches)} buttons match the key '{key}'")
    return matches[0].click().run()


def press(app: AppTest, label: str) -> AppTest:
    """Click the button with this label (form submit buttons have no key of their own)."""
    return next(b for b in app.button if b.label == label).click().run()


def shown_text(app: AppTest) -> str:
    """Everything textual on the page, for 'is it shown anywhere' checks."""
    parts = [
        e.value
        for kind in (
            "markdown",
            "caption",
            "html",
            "text",
            "subheader",
            "title",
            "header",
            "warning",
            "info",
            "error",
            "success",
        )
        for e in getattr(app, kind)
    ]
    parts += [w.value for w in app.text_input] + [b.label for b in app.button]
    parts += [c.label for c in app.checkbox]
    return "\n".join(str(p) for p in parts)


def highlighted(app: AppTest) -> str | None:
    """The text inside the <mark> of the response view, or None."""
    for element in app.html:
        if 'class="murgat-current"' in element.value:
            return element.value.split('class="murgat-current">', 1)[1].split("</mark>", 1)[0]
    return None


def components(app, name: str) -> list[dict]:
    """The data of each components-v2 element called `name` on the page, in order."""
    return [json.loads(e.proto.json) for e in app.get("bidi_component") if e.proto.component_name == name]
