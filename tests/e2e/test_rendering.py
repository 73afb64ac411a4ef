"""Text is text, in a real browser (issue 12, class 9): every string a person typed or a file
brought in — a response id, the question, the options, the response text and an invalid citation
in it, the annotators' facts, a skip reason and a flag for the guidelines (the guideline notes) —
carries an image, a link, an autolink and an HTML image aimed at a local server. Annotator and
adjudicator open the pages that show them (annotate, the set-aside list, disputes with its
ruling controls and the annotators' flags); no anchor or image pointing there may exist and no request may reach it, while
the payloads are visible as the characters they are."""

from __future__ import annotations

import http.server
import re
import threading

import pytest
from app_support import make_video, password_hash
from browser_support import (
    POLL_MS,
    SHOTS,
    app_server,
    choose_option,
    chromium_page,
    fill_sign_in,
    needs_chromium,
    sign_in_by_cookie,
)

from annotation.project import register_media
from annotation.protocol.records import Response
from annotation.protocol.sentences import sentences_for_response
from annotation.store.project_store import ProjectStore
from annotation.work.flags import answer_flag
from annotation.work.session import flag_for_guidelines, skip_response

pytestmark = needs_chromium

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


class Recorder(http.server.BaseHTTPRequestHandler):
    """Notes every request (none may come) and answers 404."""

    hits: list[str] = []

    def do_GET(self):  # noqa: N802 (the name http.server calls)
        self.hits.append(self.path)
        self.send_error(404)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def payload_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def payload(host: str, source: str) -> str:
    """An image, a link, an autolink and an HTML image, each naming `source` in its URL."""
    return (
        f"![pic {source}](http://{host}/{source}.png) [go {source}](http://{host}/{source}) "
        f"http://{host}/{source}-auto <img src=http://{host}/{source}-html.png>"
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory, payload_server):
    host = payload_server
    store = ProjectStore.open(tmp_path_factory.mktemp("e2e-rendering") / "p", create=True)
    make_video(store.media_root / "clip.mp4")
    info = register_media(store, "clip.mp4").info
    first = f"r1 {payload(host, 'id')}"
    text = (
        f"A man waves (visual, 0:01). He smiles {payload(host, 'text')} "
        f"(visual 0:02 http://{host}/citation). So A.\nAnswer: A"
    )
    responses = [
        Response(first, text, "clip.mp4", payload(host, "question"), [payload(host, "option"), "B. no"], "A"),
        Response(
            "r2", "A light blinks (visual, 0:03). So B.\nAnswer: B", "clip.mp4", "Which?", ["A", "B"], "B"
        ),
    ]
    store.add_responses([(r, sentences_for_response(r.text, info["duration_s"])) for r in responses])
    for name, role in (
        ("ann", "annotator"),
        ("bob", "annotator"),
        ("cy", "annotator"),
        ("ada", "adjudicator"),
    ):
        store.add_user(name, role, password_hash(name))
    store.set_setting("pool", ["ann", "bob", "cy"])
    store.set_setting("overlap", 3)
    for who in ("ann", "bob"):  # their fact lists differ: a dispute the adjudicator opens
        store.events.append(who, first, "s0", "verifiable", True, spent_ms=4000)
        fact = {"text": f"A man waves {payload(host, 'fact-' + who)}", "citations": [0]}
        store.events.append(who, first, "s0", "facts", [fact], spent_ms=6000)
    skip_response(store, "cy", "r2", payload(host, "skip"))
    flag_for_guidelines(store, "cy", first, payload(host, "flag"))
    answered = flag_for_guidelines(store, "cy", "r2", payload(host, "asked"))
    answer_flag(store, "ada", answered, payload(host, "reply"))  # read by cy under "Your flags"
    return store


@pytest.fixture(scope="module")
def server(project):
    with app_server(project.directory) as url:
        yield url


def no_live_payload(page, host: str) -> None:
    """No anchor, image or other element of the page points at the payload server."""
    live = page.locator(f'[href*="{host}"], [src*="{host}"], [srcset*="{host}"], [data*="{host}"]')
    assert live.count() == 0, [
        live.nth(i).evaluate("e => (e.closest('[data-testid]') || e.parentElement).outerHTML.slice(0, 600)")
        for i in range(live.count())
    ]


def shown_as_text(page, host: str, source: str) -> None:
    """The payload of `source` is on the page as its characters (word joiners, which break
    autolink patterns in Markdown places, aside)."""
    page.wait_for_function(
        "needle => document.body.innerText.replaceAll('\\u2060', '').includes(needle)",
        arg=f"![pic {source}](http://{host}/{source}.png) [go {source}](http://{host}/{source})",
        polling=POLL_MS,
    )


def test_an_annotator_sees_payloads_from_the_file_and_the_skip_reason_as_text(
    project, server, payload_server
):
    host = payload_server
    with chromium_page(viewport_height=1400) as page:
        sign_in_by_cookie(page, server, project, "cy")
        page.get_by_text("Stage 1 · verifiable sentences", exact=False).wait_for()
        page.locator(IDLE).wait_for()
        for source in ("id", "question", "option", "text"):
            shown_as_text(page, host, source)
        page.get_by_text(f"visual 0:02 http://{host}/citation", exact=False).first.wait_for()
        page.get_by_text("Set aside (1)").click()
        shown_as_text(page, host, "skip")
        page.get_by_text("Your flags", exact=False).first.click()  # her question and ada's answer
        for source in ("asked", "reply"):
            shown_as_text(page, host, source)
        page.locator(IDLE).wait_for()
        page.screenshot(path=SHOTS / "21_rendering_annotate.png", full_page=True)
        no_live_payload(page, host)
    assert Recorder.hits == []


def test_an_adjudicator_sees_the_annotators_facts_and_the_id_as_text(server, payload_server):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    host = payload_server
    with chromium_page(viewport_height=1400) as page:
        fill_sign_in(page, server, "ada")
        page.get_by_role("link", name="Disputes").click()
        page.get_by_role("button", name=re.compile("Rule ann")).wait_for()
        page.locator(IDLE).wait_for()
        page.get_by_text("The whole response").click()
        for source in ("id", "question", "option", "text"):
            shown_as_text(page, host, source)
        # the wordings sit in a dataframe (drawn on a canvas, never Markdown); read them as the
        # fact-list editor holds them, one annotator's list at a time
        page.get_by_text("Or edit a fact list and rule it").click()
        for name in ("ann", "bob"):
            choose_option(page, "Start from", name)
            try:
                page.wait_for_function(
                    "needle => [...document.querySelectorAll('input, textarea')].some(e => e.value.includes(needle))",
                    arg=f"![pic fact-{name}](http://{host}/fact-{name}.png)",
                    polling=POLL_MS,
                    timeout=60_000,
                )
            except PlaywrightTimeout:  # seen once in a full run, never alone: say what the page held
                page.screenshot(path=SHOTS / "22_rendering_disputes_unfilled.png", full_page=True)
                held = page.eval_on_selector_all("input, textarea", "es => es.map(e => e.value)")
                raise AssertionError(f"{name}'s list is not in the editor; the fields hold {held}") from None
        page.get_by_text("Gold now:", exact=False).wait_for()
        page.get_by_text("Flags from annotators (2 flags, 1 open)").click()  # cy's flag, below the downloads
        shown_as_text(page, host, "flag")
        # answered in the browser: the panel stays open under its new label, the answer shown as text
        page.get_by_label("Answer (optional", exact=False).fill(payload(host, "answer"))
        page.get_by_role("button", name="Mark answered").click()
        page.get_by_text("Flags from annotators (2 flags, 0 open)").wait_for()
        page.get_by_text("Answered by ada", exact=False).nth(1).wait_for()  # both, shown: still open
        shown_as_text(page, host, "answer")
        page.locator(IDLE).wait_for()
        page.screenshot(path=SHOTS / "22_rendering_disputes.png", full_page=True)
        no_live_payload(page, host)
    assert Recorder.hits == []
