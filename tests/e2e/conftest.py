"""One Chromium and one `streamlit run app.py` per test process for the browser tests: each test
gets a page of the one browser context, without the cookies and site storage of the tests before
(browser_support.chromium_page), and each module its own project on the shared server
(browser_support.app_server)."""

import pytest
from browser_support import app_server_home, close_app_server, close_shared_browser


@pytest.fixture(scope="session", autouse=True)
def _shared_browser_and_server_closed_at_the_end(tmp_path_factory):
    app_server_home.append(tmp_path_factory.mktemp("app-server"))  # its log stays there
    yield
    close_shared_browser()
    close_app_server()
