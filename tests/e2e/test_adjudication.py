"""Adjudication in a real browser: `streamlit run app.py` on 127.0.0.1 (launched as in
test_browser.py) and Debian's Chromium driven by playwright. The demo adjudicator ada lands on the
disputes page, opens a dispute by clicking its row, rules it with a key, and the next dispute opens
with its header and media in view and no toast over them; she rules a fact list with a reason,
downloads the gold records and finds her ruling in them with its provenance; she keeps only the
disputes that need a ruling. Screenshots go to
tests/e2e/screenshots/."""

from __future__ import annotations

import json
import re

import pytest
from browser_support import (
    SHOTS,
    choose_option,
    chromium_page,
    fill_sign_in,
    needs_chromium,
    streamlit_server,
    wait_until_idle,
)

from annotation.agreement.gold import read_gold_csv
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from pages.widgets.ruling import STAGE_NAMES

WHO = "ada"
REASON = "annotator error"
ROW_HEIGHT_PX = 35  # st.dataframe's default row height (and its header's)

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def demo(module_demo):
    return ProjectStore.open(module_demo)


@pytest.fixture(scope="module")
def server(demo, tmp_path_factory):
    log = tmp_path_factory.mktemp("e2e-adjudication-log") / "streamlit.log"
    with streamlit_server(demo.directory, log) as url:
        yield url


@pytest.fixture(scope="module")
def page(server):
    with chromium_page(viewport_height=1000, accept_downloads=True) as page:
        yield page


def sign_in(page, url: str) -> None:
    """Sign in as ada: an adjudicator lands on the disputes page."""
    fill_sign_in(page, url, WHO)
    page.get_by_role("heading", name="Disputes").wait_for()
    wait_until_idle(page)


def choose_stage(page, label: str) -> None:
    choose_option(page, "Stage", label)


def click_row(page, row: int, response_id: str) -> None:
    """A click in the list's row `row` (0 first), on its response cell, once the grid has drawn that
    row (its accessible copy of the cell holds `response_id`)."""
    cell = page.locator(f'[data-testid="glide-cell-1-{row}"]', has_text=response_id)
    cell.wait_for(state="attached")
    box = page.locator('[data-testid="data-grid-canvas"]').first.bounding_box()
    page.mouse.click(box["x"] + 80, box["y"] + ROW_HEIGHT_PX * (row + 1.5))
    wait_until_idle(page)


def header_of(value) -> str:
    return f"{STAGE_NAMES[value.stage]} · response {value.response_id} · sentence {value.sentence + 1}"


def in_view(page, locator) -> bool:
    """The element lies wholly inside the viewport."""
    box = locator.bounding_box()
    size = page.viewport_size
    return box is not None and 0 <= box["y"] and box["y"] + box["height"] <= size["height"]


def test_adjudicator_clicks_a_row_rules_it_with_a_key_and_the_next_dispute_opens_in_view(demo, server, page):
    open_all = [v for v in project_state(demo).gold.disputes(open_only=True) if v.stage == "entailment_all"]
    clicked, after = open_all[1], open_all[2]  # the list without the clicked one: the next is the third

    sign_in(page, server)
    choose_stage(page, STAGE_NAMES["entailment_all"])
    page.wait_for_url(re.compile(r"\?stage=s3-all$"))  # the URL holds the stage's stable id
    page.get_by_role("heading", name=header_of(open_all[0])).wait_for()
    click_row(page, 1, clicked.response_id)
    page.get_by_role("heading", name=header_of(clicked)).wait_for()
    page.screenshot(path=SHOTS / "11_dispute_opened_by_its_row.png")

    page.keyboard.press("y")  # "Rule: Yes, supported"
    heading = page.get_by_role("heading", name=header_of(after))
    heading.wait_for()
    wait_until_idle(page)
    page.screenshot(path=SHOTS / "12_next_dispute_in_view.png")
    ruled = next(v for v in project_state(demo).gold.values if v.key == clicked.key)
    assert (ruled.value, ruled.provenance) == (True, f"adjudicated:{WHO}")
    media = page.locator(".murgat-player").first  # the citation players of the annotate page
    assert in_view(page, heading) and in_view(page, media)
    assert page.locator('[data-testid="stToast"]').count() == 0
    assert page.get_by_text(re.compile(r"^Ruled “Yes, supported” on ")).is_visible()


def test_adjudicator_rules_a_fact_list_and_finds_it_in_the_gold_download(demo, server, page, tmp_path):
    listed = [v for v in project_state(demo).gold.disputes(open_only=True) if v.stage == "decomposition"]
    first, chosen = listed[0], sorted(listed[0].values)[0]

    sign_in(page, server)
    choose_stage(page, STAGE_NAMES["decomposition"])
    # the first dispute of all stages may be this one too: the count shows the list is filtered
    page.get_by_text(f"{len(listed)} disputes, lowest agreement first").wait_for()
    page.get_by_role("heading", name=header_of(first)).wait_for()
    wait_until_idle(page)
    page.screenshot(path=SHOTS / "13_facts_dispute.png", full_page=True)

    page.get_by_role("radio", name=REASON).click()  # the reason pills
    page.get_by_role("radio", name=REASON, checked=True).wait_for()
    wait_until_idle(page)
    page.get_by_role("button", name=f"Rule {chosen}'s facts").click()
    page.get_by_text(f"on {first.response_id}, sentence {first.sentence + 1}, facts ({REASON})").wait_for()
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
    sign_in(page, server)
    page.get_by_role("link", name="Agreement").click()
    page.get_by_role("heading", name="Each annotator against the others").wait_for()
    wait_until_idle(page)
    page.screenshot(path=SHOTS / "15_agreement.png", full_page=True)

    page.get_by_role("button", name=re.compile(r"\bAll \(\d+\)$")).click()
    page.get_by_role("heading", name="Disputes").wait_for()
    wait_until_idle(page)
    page.screenshot(path=SHOTS / "16_disputes_of_a_stage.png", full_page=True)
    assert page.get_by_role("heading", name=re.compile(r"^Stage 3 · all · response demo-")).count() == 1
    open_all = sum(v.stage == "entailment_all" for v in project_state(demo).gold.disputes(open_only=True))
    assert page.get_by_text(f"{open_all} disputes, lowest agreement first").count() == 1


def test_adjudicator_keeps_only_the_disputes_that_need_a_ruling(demo, server, page):
    assert not any(v.needs_ruling for v in project_state(demo).gold.disputes())  # ada ruled them all
    sign_in(page, server)
    page.get_by_text("Only those needing a ruling").click()  # the toggle's label
    page.get_by_text("None of the disputes here needs a ruling: a majority settles each.").wait_for()
    wait_until_idle(page)
    page.screenshot(path=SHOTS / "17_only_those_needing_a_ruling.png")
    assert page.locator('[data-testid="data-grid-canvas"]').count() == 0  # no list left
