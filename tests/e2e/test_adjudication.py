"""Adjudication in a real browser: `streamlit run app.py` on 127.0.0.1 (launched as in
test_browser.py) and Debian's Chromium driven by playwright, at 1440×900. The demo adjudicator ada
lands on the disputes page and rules three disputes by key, each one's question, ruling buttons
and first player inside the window, never scrolling; she walks the list with the arrow keys; she
rules a fact list with a reason, downloads the gold records and finds her ruling in them with its
provenance; she keeps only the disputes that need a ruling. Screenshots go to
tests/e2e/screenshots/."""

from __future__ import annotations

import json
import re

import pytest
from browser_support import (
    POLL_MS,
    SHOTS,
    app_server,
    choose_option,
    chromium_page,
    needs_chromium,
    sign_in_by_cookie,
    wait_until_idle,
)

from annotation.formats.gold_csv import read_gold_csv
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from pages.widgets.ruling import STAGE_NAMES

WHO = "ada"
REASON = "annotator error"
QUESTION_JS = "() => window.__murgatKeys?.question ?? null"

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def demo(module_demo):
    return ProjectStore.open(module_demo)


@pytest.fixture(scope="module")
def server(demo):
    with app_server(demo.directory) as url:
        yield url


@pytest.fixture(scope="module")
def page(server):
    with chromium_page(viewport_height=900, viewport_width=1440) as page:
        yield page


def sign_in(page, url: str, demo) -> None:
    """Sign in as ada: an adjudicator lands on the disputes page."""
    sign_in_by_cookie(page, url, demo, WHO)
    page.get_by_role("heading", name="Disputes").wait_for()
    wait_until_idle(page)


def choose_stage(page, label: str) -> None:
    choose_option(page, "Stage", label)


def where_of(value) -> str:
    """The start of the open dispute's header line (the key legend's)."""
    return f"{STAGE_NAMES[value.stage]} · response {value.response_id} · sentence {value.sentence + 1} · "


def wait_for_dispute(page, value) -> None:
    page.wait_for_function(
        "(key) => window.__murgatKeys?.question === key && document.body.dataset.murgatReady === '1'",
        arg=value.key,
        polling=POLL_MS,
    )
    wait_until_idle(page)


def in_view(page, locator) -> bool:
    """The element lies wholly inside the viewport."""
    box = locator.bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and 0 <= box["y"]
        and box["y"] + box["height"] <= size["height"]
        and 0 <= box["x"]
        and box["x"] + box["width"] <= size["width"]
    )


def test_adjudicator_rules_three_disputes_by_key_without_scrolling(demo, server, page):
    listed = project_state(demo).gold.disputes(open_only=True)
    sign_in(page, server, demo)
    for n, value in enumerate(listed[:3]):
        wait_for_dispute(page, value)
        page.screenshot(path=SHOTS / f"11_dispute_{n + 1}_by_key.png")
        question = page.locator(".murgat-wording").first
        buttons = page.locator('[data-testid="stBaseButton-secondary"]', has_text=re.compile(r"^Rule"))
        player = page.locator(".murgat-player").first
        assert page.locator(".murgat-where").first.inner_text().startswith(where_of(value))
        assert in_view(page, question) and buttons.count() >= 2
        assert all(in_view(page, buttons.nth(i)) for i in range(buttons.count()))
        assert player.count() == 0 or in_view(page, player)
        assert page.evaluate("() => window.scrollY") == 0
        key = page.locator(".murgat-legend kbd").first.inner_text()  # V, Y or 1: rule as the first
        page.keyboard.press(key.lower())
        page.wait_for_function(f"(key) => ({QUESTION_JS})() !== key", arg=value.key, polling=POLL_MS)
    wait_until_idle(page)
    ruled = {v.key: v for v in project_state(demo).gold.values}
    assert all(ruled[v.key].provenance == f"adjudicated:{WHO}" for v in listed[:3])
    notice = page.get_by_text(re.compile(r"^Ruled .+'s version: |^Ruled a version no annotator gave: "))
    assert notice.is_visible() and page.locator('[data-testid="stToast"]').count() == 0


def test_the_arrow_keys_walk_the_list_of_disputes(demo, server, page):
    listed = project_state(demo).gold.disputes(open_only=True)
    sign_in(page, server, demo)
    wait_for_dispute(page, listed[0])
    page.get_by_role("radio", checked=True).focus()  # as Tab reaches the list
    page.keyboard.press("ArrowDown")
    wait_for_dispute(page, listed[1])
    page.keyboard.press("ArrowDown")
    wait_for_dispute(page, listed[2])
    page.keyboard.press("ArrowUp")
    wait_for_dispute(page, listed[1])
    page.screenshot(path=SHOTS / "12_list_by_arrow_keys.png")


def test_adjudicator_rules_a_fact_list_and_finds_it_in_the_gold_download(demo, server, page, tmp_path):
    listed = [v for v in project_state(demo).gold.disputes(open_only=True) if v.stage == "decomposition"]
    first, chosen = listed[0], sorted(listed[0].values)[0]

    sign_in(page, server, demo)
    choose_stage(page, STAGE_NAMES["decomposition"])
    # the first dispute of all stages may be this one too: the count shows the list is filtered
    page.get_by_text(f"{len(listed)} disputes, lowest agreement first").wait_for()
    wait_for_dispute(page, first)
    page.screenshot(path=SHOTS / "13_facts_dispute.png", full_page=True)

    page.get_by_role("radio", name=REASON).click()  # the reason pills
    page.get_by_role("radio", name=REASON, checked=True).wait_for()
    wait_until_idle(page)
    page.get_by_role("button", name=f"Rule {chosen}'s").click()
    page.get_by_text(f"Ruled {chosen}'s version: {len(first.values[chosen])} fact").wait_for()
    page.get_by_text(f"— {first.response_id}, sentence {first.sentence + 1}, facts ({REASON}).").wait_for()
    wait_until_idle(page)

    with page.expect_download() as download:
        page.get_by_role("button", name="Gold records (JSONL)").click()
    saved = tmp_path / "gold.jsonl"
    download.value.save_as(saved)
    page.screenshot(path=SHOTS / "14_downloaded.png", full_page=True)

    records = [json.loads(line) for line in saved.read_text(encoding="utf-8").splitlines()]
    record = next(r for r in records if r["response_id"] == first.response_id)
    sentence = record["sentences"][first.sentence]
    assert record["source"] == "gold"
    assert sentence["provenance"]["facts"] == f"adjudicated:{WHO}:{REASON}"
    assert [f["text"] for f in sentence["facts"]] == [f["text"] for f in first.values[chosen]]
    assert all(f["provenance"]["text"] == f"adjudicated:{WHO}:{REASON}" for f in sentence["facts"])

    with page.expect_download() as download:
        page.get_by_role("button", name="Gold values (CSV)").click()
    download.value.save_as(tmp_path / "gold.csv")
    rows = read_gold_csv(tmp_path / "gold.csv")
    ruled = next(
        r
        for r in rows
        if (r["response_id"], r["sentence"], r["question"])
        == (first.response_id, str(first.sentence), "facts")
    )
    assert ruled["provenance"] == f"adjudicated:{WHO}:{REASON}"


def test_agreement_figure_links_to_the_disputes_of_its_stage(demo, server, page):
    sign_in(page, server, demo)
    page.get_by_role("link", name="Agreement").click()
    page.get_by_role("heading", name="Each annotator against the others").wait_for()
    wait_until_idle(page)
    page.screenshot(path=SHOTS / "15_agreement.png", full_page=True)

    page.get_by_role("button", name=re.compile(r"\bAll \(\d+\)$")).click()
    page.get_by_role("heading", name="Disputes").wait_for()
    wait_until_idle(page)
    page.screenshot(path=SHOTS / "16_disputes_of_a_stage.png", full_page=True)
    assert page.locator(".murgat-where").first.inner_text().startswith("Stage 3 · all · response demo-")
    open_all = sum(v.stage == "entailment_all" for v in project_state(demo).gold.disputes(open_only=True))
    assert page.get_by_text(f"{open_all} disputes, lowest agreement first").count() == 1


def test_adjudicator_keeps_only_the_disputes_that_need_a_ruling(demo, server, page):
    assert not any(v.needs_ruling for v in project_state(demo).gold.disputes())  # ada ruled them all
    sign_in(page, server, demo)
    page.get_by_text("Only those needing a ruling").click()  # the toggle's label
    page.get_by_text("None of the disputes here needs a ruling: a majority settles each.").wait_for()
    wait_until_idle(page)
    page.screenshot(path=SHOTS / "17_only_those_needing_a_ruling.png")
    assert page.get_by_role("radio", name=re.compile(r"^demo-")).count() == 0  # no list left
