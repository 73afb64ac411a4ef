"""Every page an admin opens, in a real browser (`streamlit run app.py` on 127.0.0.1, Debian's
Chromium), logs nothing to the console: no error, no warning. A tester found 12 "Invalid color
specifier" warnings on the admin pages: the parity chart gave its error bars a list of colours."""

from __future__ import annotations

import pytest
from browser_support import (
    POLL_MS,
    app_server,
    chromium_page,
    fill_sign_in,
    needs_chromium,
    wait_until_idle,
)

pytestmark = needs_chromium
ADMIN_PAGES = ("Annotate", "Disputes", "Agreement", "Judges", "Calibrate", "Model scores", "Admin")
# Every chart on view has drawn at the window's present width (a resize makes plotly draw again).
CHARTS_FIT_JS = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every(chart => {
    const width = chart.getBoundingClientRect().width, svg = chart.querySelector('svg.main-svg');
    return width === 0 || (svg !== null && Math.abs(svg.getBoundingClientRect().width - width) <= 2);
})"""
# What draws after a script run has drawn too: every chart (as above) and every player's clip, which
# a player fetches a moment after the page settles (loaded, or failed: a failure logs its error).
DRAWN_JS = f"""() => ({CHARTS_FIT_JS})() && [...document.querySelectorAll('.murgat-player video, .murgat-player audio')]
    .every(media => media.readyState >= 1 || media.error !== null)"""


@pytest.fixture(scope="module")
def server(module_demo):
    with app_server(module_demo) as url:
        yield url


def test_no_admin_page_logs_an_error_or_a_warning_at_desktop_or_phone_width(server):
    with chromium_page(viewport_height=900, viewport_width=1440) as page:
        logged = []
        page.on("console", lambda m: logged.append((m.type, m.text)))
        page.on("pageerror", lambda error: logged.append(("pageerror", str(error))))
        fill_sign_in(page, server, "admin")
        for title in ADMIN_PAGES:
            page.get_by_role("link", name=title, exact=True).click()
            if title != "Annotate":  # (the page open since signing in) the page's run has begun:
                page.get_by_role("heading", name=title, exact=True, level=1).wait_for()
            wait_until_idle(page)
            page.wait_for_function(DRAWN_JS, polling=POLL_MS)  # charts and players draw after the run
            wait_until_idle(page)
            page.set_viewport_size({"width": 390, "height": 844})  # charts draw again at phone width
            page.wait_for_function(CHARTS_FIT_JS, polling=POLL_MS)
            page.set_viewport_size({"width": 1440, "height": 900})
            page.wait_for_function(CHARTS_FIT_JS, polling=POLL_MS)
    problems = [
        (kind, text)
        for kind, text in logged
        if kind in ("error", "warning", "pageerror", "assert") or "invalid color" in text.lower()
    ]
    assert problems == []
