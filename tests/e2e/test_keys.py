"""Keys that never die, app-wide (pages/widgets/keys.py), in Chromium: a page with Streamlit's own
native <audio> and <video> players, a switch, a checkbox and a text field next to a button whose
shortcut is Y. Without the key script, a Y pressed after clicking the audio player's play button
or the switch does nothing; with it, every such Y presses the button, and a y typed into the text
field stays text."""

from __future__ import annotations

import pytest
from app_support import make_video
from browser_support import POLL_MS, chromium_page, needs_chromium, streamlit_server
from media_fixtures import run_ffmpeg

pytestmark = needs_chromium
IDLE_JS = """() => document.querySelector('[data-test-script-state]')
                      ?.getAttribute('data-test-script-state') === 'notRunning'"""
SCRIPT = """
import streamlit as st
from pages.widgets.keys import install_keys

install_keys()
st.session_state.setdefault("presses", 0)


def yes():
    st.session_state.presses += 1


st.audio({audio!r})
st.video({video!r})
st.toggle("A switch", key="switch")
st.checkbox("A box", key="box")
st.text_input("Notes", key="notes")
st.button("Yes", key="yes", shortcut="Y", on_click=yes)
with st.popover("Guidelines"):
    st.markdown("Judge only what the segments show.")
st.markdown(f"presses: {{st.session_state.presses}}")
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keys")
    video = make_video(folder / "clip.mp4", seconds=3)
    audio = folder / "tone.wav"
    run_ffmpeg("-i", str(video), "-vn", str(audio))
    script = folder / "keys_page.py"
    script.write_text(SCRIPT.format(audio=str(audio), video=str(video)))
    with streamlit_server(folder, folder / "streamlit.log", script=str(script)) as url:
        yield url


@pytest.fixture
def page(server):
    with chromium_page() as page:
        page.goto(server)
        page.get_by_text("presses: 0").wait_for()
        page.wait_for_function(IDLE_JS, polling=POLL_MS)
        # the script has loaded
        page.wait_for_function("() => window.__murgatKeys?.installed === true", polling=POLL_MS)
        page.locator('[aria-label="Shortcut Y"]').wait_for()  # and the button (its code loads lazily)
        yield page


def press_y(page) -> None:
    before = presses(page)
    page.keyboard.press("y")
    try:
        page.get_by_text(f"presses: {before + 1}").wait_for(timeout=10_000)
    except Exception:
        focused = page.evaluate("() => document.activeElement.tagName")
        raise AssertionError(f"presses: {presses(page)} (before {before}), focus on {focused}") from None


def presses(page) -> int:
    return int(page.get_by_text("presses:").inner_text().split(":")[1])


def test_a_key_after_clicking_a_native_audio_players_play_button_presses_its_button(page):
    audio = page.locator("audio")
    box = audio.bounding_box()
    page.mouse.click(box["x"] + 16, box["y"] + box["height"] / 2)  # the play button, on the left
    page.wait_for_function("() => !document.querySelector('audio').paused", polling=POLL_MS)
    # the script gives the focus back a moment after the click (a person's key comes later still)
    page.wait_for_function(
        "() => !['AUDIO', 'VIDEO'].includes(document.activeElement.tagName)", polling=POLL_MS
    )
    press_y(page)
    assert presses(page) == 1 and not page.evaluate("() => document.querySelector('audio').paused")


def test_a_key_after_clicking_a_video_presses_its_button(page):
    video = page.locator("video")
    box = video.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function(
        "() => !['AUDIO', 'VIDEO'].includes(document.activeElement.tagName)", polling=POLL_MS
    )
    press_y(page)
    assert presses(page) == 1


@pytest.mark.parametrize("control", ["A switch", "A box"])
def test_a_key_after_flipping_a_switch_or_ticking_a_box_presses_its_button(page, control):
    page.get_by_text(control).click()
    page.wait_for_function(IDLE_JS, polling=POLL_MS)
    press_y(page)
    assert presses(page) == 1


def test_a_key_typed_into_a_text_field_stays_text(page):
    field = page.get_by_role("textbox", name="Notes")
    field.click()
    page.keyboard.type("yy")
    page.keyboard.press("Tab")
    page.wait_for_function(IDLE_JS, polling=POLL_MS)
    assert field.input_value() == "yy" and presses(page) == 0


def test_a_key_pressed_while_the_guidelines_are_open_answers_nothing(page):
    page.get_by_role("button", name="Guidelines").click()
    page.get_by_text("Judge only what the segments show.").wait_for()
    page.keyboard.press("y")  # reading the guidelines: no answer, and they stay open
    assert page.get_by_text("Judge only what the segments show.").is_visible()
    page.keyboard.press("Escape")
    page.get_by_text("Judge only what the segments show.").wait_for(state="hidden")
    press_y(page)  # one press counted: the one made with the guidelines open was not
    assert presses(page) == 1
