"""One Chromium per test process for the browser tests (each test gets a new context)."""

import pytest
from browser_support import close_shared_browser


@pytest.fixture(scope="session", autouse=True)
def _shared_browser_closed_at_the_end():
    yield
    close_shared_browser()
