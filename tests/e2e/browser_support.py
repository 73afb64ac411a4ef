"""Shared plumbing of the real-browser tests: start `streamlit run app.py` on 127.0.0.1 against a
project, and drive Debian's Chromium with playwright (no browser download)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from annotation.store.project_store import DB_NAME

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
    # Every page of 127.0.0.1 in the one renderer process of that site: each test's new page (a new
    # tab) otherwise starts a renderer of its own (≈ 0.2 CPU s of a ≈ 1.9 CPU s page load, probe).
    "--process-per-site",
]
# How often a wait_for_function checks its condition. Playwright's default checks it on every
# animation frame, which keeps headless Chromium drawing 60 frames a second for as long as a test
# waits (≈ 0.1 CPU s per second of waiting, against ≈ 0.02 at 50 ms): CPU the other test process
# needs, for an answer 25 ms sooner on average.
POLL_MS = 50

# Under pytest-xdist the browser tests are shared by both workers like any other (each worker
# launches one Chromium of its own, see shared_browser); the tests of a module that share its
# streamlit server run on one worker (tests/conftest.py groups them).
needs_chromium = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_healthy(url: str, server: subprocess.Popen, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        try:  # doubles as the pause between attempts, and notices a server that died
            server.wait(timeout=0.2)
            raise RuntimeError("streamlit exited before it served the app")
        except subprocess.TimeoutExpired:
            continue
    raise TimeoutError(f"{url} did not become healthy in {timeout_s} s")


@contextlib.contextmanager
def streamlit_server(
    project_dir: Path, log_path: Path, extra_args: tuple[str, ...] = (), script: str = "app.py"
) -> Iterator[str]:
    """The app (or another `script`, which may import the app's packages) served headless on a
    free 127.0.0.1 port for `project_dir`, with any `extra_args` for `streamlit run` (e.g.
    `--secrets.files=…`); yields its URL."""
    port = free_port()
    with log_path.open("w") as log:
        env = {
            **os.environ,
            "MURGAT_PROJECT": str(project_dir),
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(ROOT),
        }
        process = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "streamlit"),
                "run",
                script,
                "--server.headless",
                "true",
                "--server.address",
                "127.0.0.1",
                "--server.port",
                str(port),
                *extra_args,
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_healthy(url, process)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


_app: dict = {}  # this process's shared `streamlit run app.py`: {'root', 'url', 'server', 'served'}
# Where the shared server keeps its project folder and log (tests/e2e/conftest.py sets it to a
# pytest temporary directory; elsewhere a new temporary directory).
app_server_home: list[Path] = []


@contextlib.contextmanager
def app_server(project_dir: Path) -> Iterator[str]:
    """The URL of `streamlit run app.py` serving `project_dir` as its only project while the block
    runs. One server per test process, started on first use and shared by the browser test
    modules in turn (each start cost ≈ 5 CPU s: the interpreter, Streamlit and the app's imports).
    Its `$MURGAT_PROJECT` is a folder holding, while the block runs, nothing but a link to
    `project_dir` under a name never served before: the sign-in screen offers no choice of project,
    and nothing the server caches by a project's path is met again by a later module."""
    if not _app:
        home = app_server_home[0] if app_server_home else Path(tempfile.mkdtemp(prefix="murgat-app-"))
        root = home / "projects"
        root.mkdir()
        server = streamlit_server(root, home / "streamlit.log")
        _app.update(root=root, url=server.__enter__(), server=server, served=0)
    root = _app["root"]
    # Another module's project would add a choice to the sign-in screen. A folder without a project
    # is not offered: a page still running when its module ended may write its cache under the
    # removed link's name, which makes such a folder (seen in a full run: a sound view's cache).
    serving = [p.name for p in root.iterdir() if (p / DB_NAME).exists()]
    if serving:
        raise RuntimeError(f"{root} still serves {serving}")
    _app["served"] += 1
    link = root / f"{_app['served']}-{project_dir.name}"
    link.symlink_to(Path(project_dir).resolve(), target_is_directory=True)
    try:
        yield _app["url"]
    finally:
        link.unlink()


def close_app_server() -> None:
    if _app:
        _app.pop("server").__exit__(None, None, None)
        _app.clear()


_browser: dict = {}  # the one Chromium of this test process: {'playwright', 'browser', 'context', 'keeper'}


def shared_browser():
    """Debian's Chromium, launched once per test process (with the flags this machine needs)
    on first use and closed by `close_shared_browser` at the end of the run (tests/e2e/conftest.py)."""
    if not _browser:
        from playwright.sync_api import sync_playwright

        playwright = sync_playwright().start()
        _browser.update(
            playwright=playwright,
            browser=playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS),
        )
    return _browser["browser"]


def close_shared_browser() -> None:
    if _browser:
        _browser.pop("keeper", None)
        _browser.pop("context", None)
        _browser.pop("browser").close()
        _browser.pop("playwright").stop()


def shared_context():
    """The browser context every `chromium_page` of this test process opens its page in: its HTTP
    cache keeps Streamlit's ≈ 3 MB of scripts and fonts, fetched and compiled once per process
    (a new context fetched and compiled them again for each page: ≈ 1.3 CPU s of Chromium)."""
    if "context" not in _browser:
        _browser["context"] = shared_browser().new_context(accept_downloads=True)
        _browser["context"].add_init_script(ONE_ROUND_OF_EACH_ANIMATION_JS)
    return _browser["context"]


# A spinner or skeleton turns once and then stands still: while one turns, Chromium draws 60 frames
# a second for as long as a script run lasts (≈ 0.1 CPU s per second); a finite animation (a menu
# sliding open) is unchanged.
ONE_ROUND_OF_EACH_ANIMATION_JS = """document.addEventListener('DOMContentLoaded', () => {
    const style = document.createElement('style');
    style.textContent = '*, *::before, *::after { animation-iteration-count: 1 !important; }';
    document.head.appendChild(style);
});"""


def keep_renderer_alive(context, app_url: str) -> None:
    """Leave a page open for the rest of the run on a Streamlit server's plain-text health check,
    on the site (127.0.0.1) every test's page loads from. Measured, not explained: with no page of
    the site left open between tests, each page's load cost ≈ 0.7 CPU s more of Chromium (5 loads
    in a row: 17.5, 21.4 CPU s without, 14.4, 15.4 with)."""
    keeper = context.new_page()
    url = urlsplit(app_url)
    keeper.goto(f"{url.scheme}://{url.netloc}/_stcore/health")
    _browser["keeper"] = keeper


# What a page leaves in the shared context for the next one, besides its cookies (Streamlit keeps
# e.g. the sidebar's state and width in local storage); the HTTP cache is kept on purpose.
SITE_STORAGE = "local_storage,indexeddb,cache_storage,service_workers,file_systems"


@contextlib.contextmanager
def chromium_page(viewport_height: int = 1000, viewport_width: int = 1400):
    """A playwright page of the shared Chromium, with no cookies and no site storage, as a freshly
    launched browser would have them (only its cache is warm). A page the test opens beside it
    (`page.context.new_page()`: another tab of the same browser) is closed with it."""
    SHOTS.mkdir(exist_ok=True)
    context = shared_context()
    context.clear_cookies()
    open_before = list(context.pages)
    visited: set[str] = set()  # the origins whose site storage the pages may have written

    def note_origin(frame) -> None:
        url = urlsplit(frame.url)
        if url.scheme in ("http", "https"):
            visited.add(f"{url.scheme}://{url.netloc}")

    def watch(page) -> None:
        page.on("framenavigated", note_origin)

    context.on("page", watch)
    page = context.new_page()
    page.set_viewport_size({"width": viewport_width, "height": viewport_height})
    page.set_default_timeout(180_000)  # generous, as tests/app_support.SCRIPT_RUN_TIMEOUT_S
    try:
        yield page
    finally:
        context.remove_listener("page", watch)
        if visited and not page.is_closed():
            session = context.new_cdp_session(page)
            for origin in sorted(visited):
                session.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": SITE_STORAGE})
            session.detach()
            if "keeper" not in _browser and urlsplit(page.url).scheme == "http":
                keep_renderer_alive(context, page.url)
        for opened in [p for p in context.pages if p not in open_before and p is not _browser.get("keeper")]:
            opened.close()
        context.clear_cookies()


def fill_sign_in(page, url: str, who: str) -> None:
    """Open the app and submit the sign-in form (demo passwords equal the names). The browser's
    cookies are cleared first: a session kept from an earlier sign-in would skip the form."""
    page.context.clear_cookies()
    page.goto(url)
    page.get_by_role("textbox", name="Name").fill(who)
    page.get_by_role("textbox", name="Password").fill(who)
    page.get_by_role("button", name="Sign in").click()


def sign_in_by_cookie(page, url: str, store, who: str) -> None:
    """Open the app as `who`, signed in as the sign-in form leaves a browser: a session started in
    the project (`store`) and its token in the browser's session cookie. For the tests whose
    subject is not signing in; the form stays where it is (test_browser.py's session and tab
    tests, test_sessions_across_tabs.py, test_admin_console.py, tests/pages/), and in
    test_rendering.py's adjudicator test, whose fact-list editor, opened this way, did not fill
    after a choice of list (not understood yet). It skips the form's page and its password hash:
    ≈ 1.2 CPU s of Chromium and server per sign-in."""
    from annotation.store.sessions import start_session
    from pages.widgets.session_cookie import COOKIE

    page.context.clear_cookies()
    page.context.add_cookies([{"name": COOKIE, "value": start_session(store, who), "url": url}])
    page.goto(url)


def wait_until_idle(page) -> None:
    """Until the app's script run is over (a click during a rerun may land on a replaced element)."""
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for()


def choose_option(page, label: str, option: str) -> None:
    """Pick `option` in the selectbox `label`, once the page is idle, until the box shows it: a
    click on a selectbox that a rerun is replacing opens nothing, or picks in a box that is then
    drawn again with the old choice (as a person would, the test picks again)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = page.get_by_role("combobox", name=label)
    wanted = page.get_by_role("option", name=option, exact=True)
    for _ in range(3):
        wait_until_idle(page)
        for _ in range(3):
            # a click that lands while the box is still being laid out (an expander opening above it)
            # now and then leaves the menu shut: close whatever opened and click again
            box.click()
            try:
                wanted.wait_for(timeout=5000)
                break
            except PlaywrightTimeout:
                page.keyboard.press("Escape")
                wait_until_idle(page)
        wanted.click()
        wait_until_idle(page)
        if box.input_value() == option:
            return
    raise AssertionError(
        f"the selectbox {label!r} shows {box.input_value()!r}, not {option!r}, after three picks"
    )
