"""Issue 23, finding 2 in Chromium: two tabs of one browser share a session; signing out in one
makes the other's next decision key show the sign-in form and write nothing. And links: a link to
a page opened before signing in asks to sign in and then shows that page; a link to the page a
role lands on (an adjudicator's Disputes) opens it with what the link says."""

from __future__ import annotations

import contextlib
from urllib.parse import urlsplit

import pytest
from browser_support import (
    POLL_MS,
    app_server,
    chromium_page,
    fill_sign_in,
    needs_chromium,
    sign_in_by_cookie,
)

from annotation.store.accounts import add_account
from annotation.store.project_store import ProjectStore

WHO = "gus"
QUESTION_JS = "() => window.__murgatKeys?.question ?? null"
IDLE_JS = """() => document.querySelector('[data-test-script-state]')
                      ?.getAttribute('data-test-script-state') === 'notRunning'"""
READY_JS = "() => document.body.dataset.murgatReady === '1'"

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def demo(module_demo):
    store = ProjectStore.open(module_demo)
    add_account(store, WHO, "annotator", WHO)
    return store


@pytest.fixture(scope="module")
def server(demo):
    with app_server(demo.directory) as url:
        yield url


def settle(page) -> None:
    page.wait_for_function(
        f"() => ({QUESTION_JS})() !== null && ({IDLE_JS})() && ({READY_JS})()", polling=POLL_MS
    )


def test_after_signing_out_in_one_tab_the_other_tabs_next_key_writes_nothing_and_asks_to_sign_in(
    demo, server
):
    with chromium_page() as page:
        fill_sign_in(page, server, WHO)
        settle(page)
        # a second tab's own context (its cookie copied below), closed with the test
        with contextlib.closing(
            page.context.browser.new_context(viewport={"width": 1400, "height": 1000})
        ) as tab:
            tab.add_cookies(page.context.cookies())  # a second tab of the same browser: the same cookie
            other = tab.new_page()
            other.goto(server)
            settle(other)
            page.get_by_role("button", name="Sign out").click()
            page.get_by_role("button", name="Sign in").wait_for()
            other.keyboard.press("v")
            other.get_by_role("button", name="Sign in").wait_for()
            assert demo.events.log(who=WHO) == []


def test_a_link_opened_before_signing_in_shows_its_page_once_signed_in(server):
    with chromium_page() as page:
        page.context.clear_cookies()
        page.goto(server)  # the app was open in this tab before: a link typed then found nothing
        page.get_by_role("button", name="Sign in").wait_for()
        page.goto(f"{server}/admin")
        page.get_by_role("textbox", name="Name").fill("admin")
        page.get_by_role("textbox", name="Password").fill("admin")
        page.get_by_role("button", name="Sign in").click()
        page.get_by_role("heading", name="Admin").wait_for()  # an admin lands on Annotate otherwise
        assert urlsplit(page.url).path == "/admin" and page.get_by_text("Page not found").count() == 0


def test_a_link_to_the_page_a_role_lands_on_opens_it_as_linked(demo, server):
    with chromium_page() as page:
        sign_in_by_cookie(page, server, demo, "ada")
        page.get_by_role("heading", name="Disputes").wait_for()
        page.goto(f"{server}/disputes?stage=s3-all")
        stage = page.get_by_role("combobox", name="Stage")
        stage.wait_for()
        page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for()
        # a navigation's default page is served at the root only: "Page not found", and the root
        assert page.get_by_text("Page not found").count() == 0
        assert (urlsplit(page.url).path, stage.input_value()) == ("/disputes", "Stage 3 · all")
