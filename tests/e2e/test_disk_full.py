"""Issue 23, finding 11 in Chromium: a decision key pressed while the project's disk is full shows
that the disk is full (not Streamlit's generic error) and writes nothing. The project lives on a
2 MiB tmpfs (root mounts one; elsewhere the test is skipped)."""

from __future__ import annotations

import pytest
from app_support import tiny_project
from browser_support import POLL_MS, app_server, chromium_page, needs_chromium, sign_in_by_cookie
from disk_support import fill, mounted_tmpfs

pytestmark = needs_chromium
QUESTION_JS = "() => window.__murgatKeys?.question ?? null"
IDLE_JS = """() => document.querySelector('[data-test-script-state]')
                      ?.getAttribute('data-test-script-state') === 'notRunning'"""
READY_JS = "() => document.body.dataset.murgatReady === '1'"


@pytest.fixture
def small_disk(tmp_path):
    yield from mounted_tmpfs(tmp_path / "disk", "2m")


def test_a_key_pressed_on_a_full_disk_says_the_disk_is_full_and_writes_nothing(small_disk):
    store = tiny_project(small_disk / "p")
    with app_server(store.directory) as url, chromium_page() as page:
        sign_in_by_cookie(page, url, store, "ann")
        page.wait_for_function(
            f"() => ({QUESTION_JS})() !== null && ({IDLE_JS})() && ({READY_JS})()", polling=POLL_MS
        )
        fill(small_disk)
        page.keyboard.press("v")
        page.get_by_text("The disk that holds this project is full").wait_for()
        assert page.get_by_text("Something went wrong").count() == 0
    assert store.events.log(who="ann") == []
