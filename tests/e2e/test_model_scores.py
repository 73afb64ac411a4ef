"""The Model scores page in a real browser: `streamlit run app.py` on 127.0.0.1 and Debian's
Chromium. The demo admin opens the page, sees the forest plot of the three models drawn, creates
the planner's annotation queue, and downloads the estimates as JSON: the CLI's contract. A
screenshot goes to tests/e2e/screenshots/."""

from __future__ import annotations

import json

import pytest
from browser_support import SHOTS, app_server, chromium_page, needs_chromium, sign_in_by_cookie

from annotation.demo.models import MODELS
from annotation.store.project_store import ProjectStore
from annotation.work.sample_queues import queue_names

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def demo(module_demo):
    return ProjectStore.open(module_demo)


@pytest.fixture(scope="module")
def server(demo):
    with app_server(demo.directory) as url:
        yield url


def wait_until_idle(page) -> None:
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for()


def test_admin_sees_the_forest_plot_creates_a_queue_and_downloads_the_estimates(demo, server, tmp_path):
    with chromium_page(viewport_height=1400) as page:
        sign_in_by_cookie(page, server, demo, "admin")
        page.get_by_role("link", name="Model scores").click()
        forest = page.locator(".js-plotly-plot").first
        forest.wait_for()
        wait_until_idle(page)
        ticks = forest.locator(".ytick text").all_text_contents()
        assert sorted(ticks) == sorted(MODELS)
        assert forest.locator(".legendtext").all_text_contents()[:2] == [
            "human-only (95 % CI)",
            "PPI++ (95 % CI)",
        ]
        page.screenshot(path=SHOTS / "20_model_scores.png", full_page=True)

        page.get_by_role("button", name="Create the annotation queue").click()
        page.get_by_text("Queue created with").wait_for()
        assert "gold for ±0.05" in queue_names(demo)

        with page.expect_download() as download:
            page.get_by_role("button", name="Estimates (JSON)").click()
        estimates = json.loads(download.value.path().read_text())
        assert list(estimates) == ["judge", "precision", "metric", "alpha", "models", "differences"]
        assert (estimates["precision"], estimates["alpha"], len(estimates["models"])) == ("alce", 0.05, 3)
