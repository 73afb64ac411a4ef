"""The sound as a person sees it in Chromium: the timeline's spectrogram draws silence dark.

Streamlit's chart drew Magma's first colour ("#000004") pink, so −80 dB looked like a loud band;
only a real browser shows that. The demo's first video is mostly silence or a pure tone, so most
spectrogram cells are at the −80 dB floor and the heatmap's commonest colour must be near black."""

from __future__ import annotations

import base64
import io
from collections import Counter

import pytest
from browser_support import POLL_MS, SHOTS, app_server, chromium_page, needs_chromium, sign_in_by_cookie
from PIL import Image

from annotation.store.project_store import ProjectStore

pytestmark = needs_chromium
HEATMAP_IMAGE_JS = """() => [...document.querySelectorAll('g.hm image')]
                        .map(e => e.getAttribute('href') || e.getAttribute('xlink:href'))"""


@pytest.fixture(scope="module")
def server(module_demo):
    with app_server(module_demo) as url:
        yield url


def test_timeline_spectrogram_draws_silence_near_black(module_demo, server):
    with chromium_page(viewport_height=1400) as page:
        sign_in_by_cookie(page, server, ProjectStore.open(module_demo), "dana")
        page.get_by_text("Timeline of all citations").click()
        page.wait_for_function(f"({HEATMAP_IMAGE_JS})().length > 0", polling=POLL_MS)
        page.screenshot(path=str(SHOTS / "timeline-sound.png"), full_page=True)
        [data_url] = page.evaluate(HEATMAP_IMAGE_JS)
    image = Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1]))).convert("RGB")
    ((colour, count),) = Counter(image.getdata()).most_common(1)
    assert count > 0.5 * image.width * image.height
    assert sum(colour) < 40, f"silence drawn as {colour}"
