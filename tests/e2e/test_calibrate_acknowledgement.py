"""The Calibrate page in a real browser: on the demo (its judges configured in a judges file, so
they can be exported) the page opens on the sentence that its gold cannot separate the
configurations, offers no download until the admin ticks the acknowledgement box, and the file
then downloaded records the acknowledgement."""

from __future__ import annotations

import json

import pytest
from browser_support import app_server, chromium_page, needs_chromium, sign_in_by_cookie, wait_until_idle

from annotation.store.project_store import ProjectStore

pytestmark = needs_chromium
JUDGES_TOML = "".join(
    f'[judges.{name}]\nadapter = "openai"\nmodel = "{name}"\nbase_url = "http://127.0.0.1:9/v1"\n\n'
    for name in ("sim-strong", "sim-good", "sim-weak", "sim-random")
)


@pytest.fixture(scope="module")
def server(module_demo):
    (module_demo / "judges.toml").write_text(JUDGES_TOML)
    with app_server(module_demo) as url:
        yield url


def test_an_undecided_choice_downloads_only_after_the_acknowledgement_box_is_ticked(module_demo, server):
    with chromium_page(viewport_height=1400) as page:
        sign_in_by_cookie(page, server, ProjectStore.open(module_demo), "admin")
        page.get_by_role("link", name="Calibrate").click()
        page.get_by_text("These 24 gold responses cannot separate the configurations").wait_for(
            timeout=120_000
        )
        wait_until_idle(page)
        download = page.get_by_role("button", name="Download the calibrated configuration (JSON)")
        assert download.count() == 0
        page.get_by_text("Export this choice although the gold cannot separate the configurations").click()
        download.wait_for()
        with page.expect_download() as saved:
            download.click()
        evidence = json.loads(saved.value.path().read_text())["evidence"]
        assert evidence["decision"]["undecided"] and evidence["decision"]["acknowledged"]
        assert evidence["decision"]["sentence"].startswith("These 24 gold responses cannot separate")
