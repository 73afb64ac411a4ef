"""The app in a real browser: `streamlit run app.py` on 127.0.0.1 and Debian's Chromium driven by
playwright. A demo annotator labels one response through all three stages, plays a cited clip
(its <video> lasts span + padding), reloads, and every label is still there. Screenshots of each
stage go to tests/e2e/screenshots/."""

from __future__ import annotations

import re

import pytest
from browser_support import SHOTS, chromium_page, fill_sign_in, needs_chromium, streamlit_server

from annotation.demo.project import build_demo
from annotation.work.labels import labels_by_unit, record_from_labels
from annotation.work.queues import next_unfinished
from annotation.work.session import next_question

WHO = "dana"
STATE_JS = """() => [...document.querySelectorAll('h3, [data-testid="stCaptionContainer"]')]
                 .map(e => e.innerText).filter(t => /Stage|decisions known/.test(t)).join(' | ')"""

IDLE_JS = """() => document.querySelector('[data-test-script-state]')
                      ?.getAttribute('data-test-script-state') === 'notRunning'"""

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return build_demo(tmp_path_factory.mktemp("e2e") / "demo")


@pytest.fixture(scope="module")
def server(demo, tmp_path_factory):
    with streamlit_server(demo.directory, tmp_path_factory.mktemp("e2e-log") / "streamlit.log") as url:
        yield url


@pytest.fixture(scope="module")
def page(server):
    with chromium_page() as page:
        yield page


def sign_in(page, url: str) -> None:
    fill_sign_in(page, url, WHO)
    page.wait_for_function(f"({STATE_JS})().length > 0")


def state(page) -> str:
    return page.evaluate(STATE_JS)


def wait_until_drawn(page) -> None:
    """Until the app's script has finished its run: the header changes before the rest of the
    page is redrawn, and a button still on screen from the question before would be stale
    (the app refuses such a click, as it would a person's double click)."""
    page.wait_for_function(IDLE_JS)


def act(page, button_name: re.Pattern) -> None:
    """Click a decision button and wait until the page shows the next decision."""
    wait_until_drawn(page)
    before = state(page)
    page.get_by_role("button", name=button_name).first.click()
    try:
        page.wait_for_function(f"prev => ({STATE_JS})() !== prev && ({STATE_JS})().length > 0", arg=before)
        wait_until_drawn(page)
    except Exception:
        page.screenshot(path=SHOTS / "failed_act.png", full_page=True)  # what the person would see
        raise


def expected_visual_durations(demo, response_id: str) -> list[float]:
    """Clip lengths of the visual citations the current stage-1 question plays, in order."""
    sentences = demo.response_sentences(response_id)
    labels = labels_by_unit(demo.events.current_labels(WHO, response_id))
    question = next_question(sentences, labels)
    media = demo.media(demo.response(response_id).video)
    duration, pad = media["info"]["duration_s"], float(demo.get_setting("pad_s", 1.0))
    out = []
    for index in question.segments:
        citation = sentences[question.sentence_index].citations[index]
        if citation.valid and citation.modality == "visual":
            out.append(min(duration, citation.end + pad) - max(0.0, citation.start - pad))
    return out


def play_first_video(page) -> float:
    """Play the first <video> on the page; its duration once it has played a little."""
    video = page.locator("video").first
    video.scroll_into_view_if_needed()
    handle = video.element_handle()
    page.wait_for_function("v => v.readyState >= 1 && isFinite(v.duration)", arg=handle)
    handle.evaluate("v => v.play()")
    page.wait_for_function("v => v.currentTime > 0.1", arg=handle)
    return handle.evaluate("v => v.duration")


def test_annotator_labels_a_response_through_three_stages_and_a_reload_loses_nothing(demo, server, page):
    response_id = next_unfinished(demo, WHO)
    sign_in(page, server)
    page.screenshot(path=SHOTS / "01_signed_in_stage1.png", full_page=True)
    played = None
    seen_stages = []
    for _ in range(80):
        now = state(page)
        if response_id not in now:
            break
        stage = re.search(r"Stage (\d)", now).group(1)
        if stage not in seen_stages:
            seen_stages.append(stage)
            page.screenshot(path=SHOTS / f"0{len(seen_stages) + 1}_stage{stage}.png", full_page=True)
        if stage == "1":
            expected = expected_visual_durations(demo, response_id)
            if played is None and expected:
                played = (play_first_video(page), expected[0])
                page.screenshot(path=SHOTS / "05_clip_playing.png", full_page=True)
            act(page, re.compile(r"^Verifiable"))
        elif stage == "2":
            act(page, re.compile(r"^Confirm facts"))
        else:
            act(page, re.compile(r"^Yes, supported"))
    page.screenshot(path=SHOTS / "06_next_response.png", full_page=True)

    assert seen_stages == ["1", "2", "3"]
    assert played is not None, "no visual citation was played"
    assert played[0] == pytest.approx(played[1], abs=0.1), "clip duration ≠ span + padding"

    labels = labels_by_unit(demo.events.current_labels(WHO, response_id))
    record = record_from_labels(response_id, f"human:{WHO}", demo.response_sentences(response_id), labels)
    assert labels[("response", "done")] is True
    assert all(s.verifiable is True for s in record.sentences)
    assert all(
        f.entailment is not None and f.entailment.all is True for s in record.sentences for f in s.facts
    )

    page.reload()
    sign_in(page, server)
    page.screenshot(path=SHOTS / "07_after_reload.png", full_page=True)
    assert response_id not in state(page)  # resumed after the finished response
    assert page.get_by_text(re.compile(r"^1 of \d+ responses done")).count() == 1
    assert labels_by_unit(demo.events.current_labels(WHO, response_id)) == labels
