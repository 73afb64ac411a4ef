"""Adjudication in a real browser: `streamlit run app.py` on 127.0.0.1 (launched as in
test_browser.py) and Debian's Chromium driven by playwright. The demo adjudicator ada opens the
disputes page, rules the first dispute (a fact list) with a reason, downloads the gold records
and finds her ruling in them with its provenance. Screenshots go to tests/e2e/screenshots/."""

from __future__ import annotations

import json
import re

import pytest
from browser_support import SHOTS, chromium_page, fill_sign_in, needs_chromium, streamlit_server

from annotation.agreement.gold import gold_from_store, read_gold_csv
from annotation.demo.project import build_demo

WHO = "ada"
REASON = "annotator error"

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return build_demo(tmp_path_factory.mktemp("e2e-adjudication") / "demo")


@pytest.fixture(scope="module")
def server(demo, tmp_path_factory):
    log = tmp_path_factory.mktemp("e2e-adjudication-log") / "streamlit.log"
    with streamlit_server(demo.directory, log) as url:
        yield url


@pytest.fixture(scope="module")
def page(server):
    with chromium_page(viewport_height=1100, accept_downloads=True) as page:
        yield page


def sign_in(page, url: str) -> None:
    fill_sign_in(page, url, WHO)
    page.get_by_role("link", name="Disputes").wait_for()


def wait_until_idle(page) -> None:
    """Until the app's script run is over (a click during a rerun may land on a replaced element)."""
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for()


def test_adjudicator_rules_a_dispute_and_finds_it_in_the_gold_download(demo, server, page, tmp_path):
    first = gold_from_store(demo).disputes(open_only=True)[0]  # what the page shows first
    assert first.question == "facts" and "alice" in first.values  # the demo's lowest agreement

    sign_in(page, server)
    page.get_by_role("link", name="Disputes").click()
    rule_alice = page.get_by_role("button", name="Rule alice's facts")
    rule_alice.wait_for()
    wait_until_idle(page)
    page.screenshot(path=SHOTS / "11_disputes.png", full_page=True)

    page.get_by_role("radio", name=REASON).click()  # the reason pills
    page.get_by_role("radio", name=REASON, checked=True).wait_for()
    rule_alice.click()
    page.get_by_text(f"on {first.response_id}, sentence {first.sentence + 1}, facts ({REASON})").wait_for()
    wait_until_idle(page)
    page.screenshot(path=SHOTS / "12_ruled.png", full_page=True)

    with page.expect_download() as download:
        page.get_by_role("button", name="Gold records (JSONL)").click()
    saved = tmp_path / "gold.jsonl"
    download.value.save_as(saved)
    page.screenshot(path=SHOTS / "13_downloaded.png", full_page=True)

    records = [json.loads(line) for line in saved.read_text(encoding="utf-8").splitlines()]
    record = next(r for r in records if r["response_id"] == first.response_id)
    sentence = record["sentences"][first.sentence]
    assert record["source"] == "gold"
    assert sentence["provenance"]["facts"] == f"adjudicated:{WHO}:{REASON}"
    assert [f["text"] for f in sentence["facts"]] == [f["text"] for f in first.values["alice"]]
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
    page.get_by_role("heading", name="Human ceiling").wait_for()
    wait_until_idle(page)
    page.screenshot(path=SHOTS / "14_agreement.png", full_page=True)

    page.get_by_role("button", name=re.compile(r"\bAll \(\d+\)$")).click()
    page.get_by_role("heading", name="Disputes").wait_for()
    wait_until_idle(page)
    page.screenshot(path=SHOTS / "15_disputes_of_a_stage.png", full_page=True)
    assert page.get_by_role("heading", name=re.compile(r"^Stage 3 · all · response demo-")).count() == 1
    open_all = sum(v.question == "all" for v in gold_from_store(demo).disputes(open_only=True))
    assert page.get_by_text(re.compile(rf"^Dispute \({open_all} shown")).count() == 1
