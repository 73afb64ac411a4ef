"""The app in a real browser: `streamlit run app.py` on 127.0.0.1 and Debian's Chromium driven by
playwright, at 1440×900. A demo annotator labels a response through all three stages with the
keyboard: a key pressed after clicking an audio player's play button (or a switch) answers; each
decision's words, buttons and cited media are in the viewport without scrolling; a reload keeps
her signed in with her stage-2 draft; nothing is fetched from anywhere but the app's own server.
Screenshots of each stage go to tests/e2e/screenshots/."""

from __future__ import annotations

import contextlib
import re
from urllib.parse import urlsplit

import pytest
from browser_support import (
    POLL_MS,
    SHOTS,
    app_server,
    chromium_page,
    fill_sign_in,
    needs_chromium,
    sign_in_by_cookie,
)

from annotation.protocol.ids import DONE_TASK, QuestionKey, Unit
from annotation.store.accounts import add_account
from annotation.store.project_store import ProjectStore
from annotation.work.drafts import load_draft
from annotation.work.labels import labels_by_unit

WHO, QUICK, PHONE_USER = "dana", "erin", "fay"
WIDTH, HEIGHT = 1440, 900
IDLE_JS = """() => document.querySelector('[data-test-script-state]')
                      ?.getAttribute('data-test-script-state') === 'notRunning'"""
QUESTION_JS = "() => window.__murgatKeys?.question ?? null"
READY_JS = "() => document.body.dataset.murgatReady === '1'"

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def demo(module_demo):
    store = ProjectStore.open(module_demo)
    add_account(store, QUICK, "annotator", QUICK)
    add_account(store, PHONE_USER, "annotator", PHONE_USER)
    return store


@pytest.fixture(scope="module")
def server(demo):
    with app_server(demo.directory) as url:
        yield url


def settle(page) -> str:
    """Until the page has drawn the question and takes keys; the question's key."""
    # One predicate: checked one after another, a rerun between the checks could pass them all
    # while the question is still in its key pause (and the press would rightly be ignored).
    page.wait_for_function(
        f"() => ({QUESTION_JS})() !== null && ({IDLE_JS})() && ({READY_JS})()", polling=POLL_MS
    )
    return page.evaluate(QUESTION_JS)


def press(page, key: str) -> str:
    """Press a decision key and wait for the next question; the key of the question answered."""
    answered = settle(page)
    page.keyboard.press(key)
    try:
        page.wait_for_function(f"q => ({QUESTION_JS})() !== q", arg=answered, polling=POLL_MS)
    except Exception:
        page.screenshot(path=SHOTS / "failed_press.png")  # what the person would see
        raise
    return answered


def answer_of(demo, who: str, key: str):
    """The person's label in force for the question `key` (None when unanswered)."""
    question = QuestionKey.parse(key)
    labels = labels_by_unit(demo.events.current_labels(who, question.response_id))
    return labels.get((question.unit, question.task))


def stage_of(page) -> int:
    return int(re.search(r"Stage (\d)", page.locator("text=/Stage \\d ·/").first.inner_text()).group(1))


def inside_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    return (
        box is not None
        and box["y"] >= 0
        and box["y"] + box["height"] <= HEIGHT
        and box["x"] >= 0
        and (box["x"] + box["width"] <= WIDTH)
    )


def decision_parts(page, stage: int) -> list:
    """What must be seen together: the decision's words, its buttons, every cited player."""
    words = page.locator(".murgat-sentence" if stage < 3 else ".murgat-fact").first
    buttons = (
        [page.get_by_role("button", name=re.compile(r"^Confirm facts"))]
        if stage == 2
        else [
            page.get_by_role("button", name=re.compile(p))
            for p in (r"^(Verifiable|Yes)", r"^(Not verifiable|No)")
        ]
    )
    players = [page.locator(".murgat-player").nth(i) for i in range(page.locator(".murgat-player").count())]
    return [words, *buttons, *players]


def foreign_requests(requests: list[str], server: str) -> list[str]:
    own = urlsplit(server).netloc
    return [
        u
        for u in requests
        if urlsplit(u).scheme in ("http", "https", "ws", "wss") and urlsplit(u).netloc != own
    ]


def test_an_annotator_labels_a_response_by_keys_and_a_reload_keeps_her_session_and_draft(demo, server):
    with chromium_page(viewport_height=HEIGHT, viewport_width=WIDTH) as page:
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        fill_sign_in(page, server, WHO)
        seen, done = [], {"audio": False, "switch": False, "draft": False}
        first = QuestionKey.parse(settle(page)).response_id
        for _ in range(80):
            key = settle(page)
            if QuestionKey.parse(key).response_id != first:
                break
            stage = stage_of(page)
            parts = decision_parts(page, stage)
            if stage not in seen:
                seen.append(stage)
                page.screenshot(path=SHOTS / f"0{len(seen)}_stage{stage}_{WIDTH}x{HEIGHT}.png")
            outside = [(str(part), part.bounding_box()) for part in parts if not inside_viewport(page, part)]
            assert outside == [], f"stage {stage}: not in the viewport at {WIDTH}x{HEIGHT}"
            if stage == 1:
                one_stage_one_decision(page, demo, done)
            elif stage == 2:
                if not done["draft"]:
                    reload_keeps_session_and_draft(page, demo, key)
                    done["draft"] = True
                press(page, "Control+Enter")
            else:
                assert answer_of(demo, WHO, press(page, "y")) is True
        page.screenshot(path=SHOTS / f"0{len(seen) + 1}_next_response.png")
    assert seen == [1, 2, 3] and all(done.values()), (seen, done)
    assert labels_by_unit(demo.events.current_labels(WHO, first))[(Unit.response(), DONE_TASK)] is True
    assert foreign_requests(requests, server) == []


def one_stage_one_decision(page, demo, done: dict) -> None:
    """Answer 'verifiable' by key; the first time an audio player is there, after clicking its
    play button; the first time after that, after flipping the timeline switch."""
    audio = page.locator(".murgat-kind-audio")
    if not done["audio"] and audio.count():
        audio.first.get_by_role("button", name=re.compile(r"^Play ")).click()
        page.wait_for_function(
            "() => [...document.querySelectorAll('.murgat-kind-audio audio')].some(a => !a.paused)",
            polling=POLL_MS,
        )
        assert answer_of(demo, WHO, press(page, "v")) is True
        done["audio"] = True
    elif done["audio"] and not done["switch"]:
        page.get_by_text("Timeline of all citations").click()
        page.wait_for_function(IDLE_JS, polling=POLL_MS)
        assert answer_of(demo, WHO, press(page, "v")) is True
        done["switch"] = True
    else:
        assert answer_of(demo, WHO, press(page, "v")) is True


def reload_keeps_session_and_draft(page, demo, key: str) -> None:
    """Type into the first fact; once the draft is saved, reload: still signed in, draft there."""
    question = QuestionKey.parse(key)
    field = page.get_by_placeholder("Fact 1")
    field.fill("A fact typed before the reload.")
    page.get_by_text(re.compile(r"^Draft saved at")).wait_for()  # typing is sent after a pause
    assert (
        load_draft(demo, WHO, question.response_id, question.unit)[0]["text"]
        == "A fact typed before the reload."
    )
    page.reload()
    assert settle(page) == key
    assert page.get_by_role("button", name="Sign in").count() == 0
    assert page.get_by_placeholder("Fact 1").input_value() == "A fact typed before the reload."


PHONE = (390, 844)
ADJACENT_PX = 120  # the decision panel's bottom to its first player's top: spacing, nothing else


def test_on_a_phone_each_decision_has_its_media_right_below_it(demo, server):
    """At 390×844 the decision comes first and its cited media follow at once, in every stage; the
    question, its buttons and the first player's controls (stage 2: the first fact and Confirm) fit
    the first screen."""
    width, height = PHONE
    with chromium_page(viewport_height=height, viewport_width=width) as page:
        sign_in_by_cookie(page, server, demo, PHONE_USER)
        seen, gaps, off_screen = [], {}, {}
        for _ in range(80):
            settle(page)
            stage = stage_of(page)
            if stage not in seen:
                seen.append(stage)
                page.screenshot(path=SHOTS / f"0{len(seen)}_stage{stage}_{width}x{height}.png")
                off_screen[stage] = [
                    str(part) for part in phone_parts(page, stage) if not on_screen(part, height)
                ]
            players = page.locator(".murgat-player")
            if players.count() and stage not in gaps:
                panel = page.locator(".st-key-murgat_decision").bounding_box()
                first = players.first.bounding_box()
                gaps[stage] = first["y"] - (panel["y"] + panel["height"])
            if len(gaps) == 3:
                break
            press(page, {1: "v", 2: "Control+Enter", 3: "y"}[stage])
    assert sorted(gaps) == [1, 2, 3], gaps
    assert all(0 <= gap <= ADJACENT_PX for gap in gaps.values()), gaps
    assert off_screen == {1: [], 2: [], 3: []}, off_screen


def phone_parts(page, stage: int) -> list:
    """What one phone screen must hold: stage 1 and 3, the words, the buttons and the first
    player's controls; stage 2, the first fact and the confirm button."""
    if stage == 2:
        return [
            page.get_by_placeholder("Fact 1"),
            page.get_by_role("button", name=re.compile(r"^Confirm facts")),
        ]
    bars = page.locator(".murgat-player-bar")
    return decision_parts(page, stage)[:3] + ([bars.first] if bars.count() else [])


def on_screen(locator, height: int) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


ICON_NAMES = ("edit_note", "gavel", "groups", "smart_toy", "tune", "admin_panel_settings", "menu_book")
ICON_NAMES += ("undo", "skip_next", "flag", "logout", "key", "add", "science", "movie")


def test_names_read_out_hold_no_icon_names(demo, server):
    with chromium_page(viewport_height=HEIGHT, viewport_width=WIDTH) as page:
        sign_in_by_cookie(page, server, demo, "admin")
        page.get_by_role("button", name="Sign out").wait_for()
        tree = page.locator("body").aria_snapshot()
    named = [line for line in tree.splitlines() if re.search(r"- (button|link|switch|checkbox) ", line)]
    assert named and not [line for line in named if re.search(rf"\b({'|'.join(ICON_NAMES)})\b", line)]


def test_a_new_tab_is_signed_in_and_signing_out_ends_the_session_everywhere(server):
    with chromium_page(viewport_height=HEIGHT, viewport_width=WIDTH) as page:
        fill_sign_in(page, server, QUICK)
        settle(page)
        # a second tab's own context (its cookie copied below), closed with the test
        with contextlib.closing(
            page.context.browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
        ) as tab:
            tab.add_cookies(page.context.cookies())  # a new tab of the same browser: the same cookies
            other = tab.new_page()
            other.goto(server)
            settle(other)
            assert other.get_by_role("button", name="Sign in").count() == 0
            page.get_by_role("button", name="Sign out").click()
            page.get_by_role("button", name="Sign in").wait_for()
            other.reload()
            other.get_by_role("button", name="Sign in").wait_for()  # revoked on the server


def test_a_new_question_ignores_keys_for_a_moment_and_shows_when_it_is_ready(demo, server):
    demo.set_setting("key_cooldown_ms", 1500)
    try:
        with chromium_page(viewport_height=HEIGHT, viewport_width=WIDTH) as page:
            sign_in_by_cookie(page, server, demo, QUICK)
            answered = press(page, "n")
            page.keyboard.press("n")  # at once: the new question has been on screen for a moment only
            assert page.locator(".murgat-ready").inner_text() == "○ wait"
            shown = settle(page)
            assert page.locator(".murgat-ready").inner_text() == "● ready"
            assert answer_of(demo, QUICK, answered) is False and answer_of(demo, QUICK, shown) is None
    finally:
        demo.set_setting("key_cooldown_ms", 250)
