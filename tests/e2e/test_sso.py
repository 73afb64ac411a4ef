"""Single sign-on in a real browser: `streamlit run app.py` with an `[auth]` secrets section that
points at a real OpenID Connect provider (tests/oidc_provider.py) on 127.0.0.1, and Debian's
Chromium clicking "Sign in with single sign-on" through the whole authorization-code round trip.
The secrets file lives in a temporary directory and reaches Streamlit via `--secrets.files`."""

from __future__ import annotations

import secrets

import pytest
from browser_support import chromium_page, needs_chromium, streamlit_server
from oidc_provider import OidcProvider
from playwright.sync_api import expect

from annotation.store.accounts import set_email
from annotation.store.project_store import ProjectStore

CLIENT_ID, CLIENT_SECRET = "murgat-test", secrets.token_urlsafe(16)
DANA = {"sub": "u-dana", "email": "Dana@Example.org", "email_verified": True, "name": "Dana"}
STRANGER = {"sub": "u-nobody", "email": "nobody@example.org", "email_verified": True, "name": "Nobody"}
WAIT_MS = 60_000

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def provider():
    with OidcProvider(CLIENT_ID, CLIENT_SECRET, DANA) as provider:
        yield provider


@pytest.fixture(scope="module")
def server(provider, module_demo, tmp_path_factory):
    demo = ProjectStore.open(module_demo)
    set_email(demo, "dana", "dana@example.org")
    secrets_file = tmp_path_factory.mktemp("sso-secrets") / "secrets.toml"
    # `{port}` is filled in by Streamlit with the port it serves on.
    secrets_file.write_text(f"""[auth]
redirect_uri = "http://127.0.0.1:{{port}}/oauth2callback"
cookie_secret = "{secrets.token_hex(32)}"
client_id = "{CLIENT_ID}"
client_secret = "{CLIENT_SECRET}"
server_metadata_url = "{provider.metadata_url}"
""")
    log = tmp_path_factory.mktemp("sso-log") / "streamlit.log"
    with streamlit_server(demo.directory, log, extra_args=(f"--secrets.files={secrets_file}",)) as url:
        yield url


def sign_in_with_sso(page, url: str, provider: OidcProvider, identity: dict) -> None:
    provider.identity = dict(identity)
    page.goto(url)
    page.get_by_role("button", name="Sign in with single sign-on").click()


def test_sso_identity_signs_in_the_account_with_that_email(server, provider):
    with chromium_page() as page:
        sign_in_with_sso(page, server, provider, DANA)
        expect(page.locator(".st-key-murgat_account")).to_contain_text("dana (annotator)", timeout=WAIT_MS)
    # The app really went through the provider: authorization, then the code exchanged for tokens.
    assert {"/authorize", "/token", "/jwks"} <= set(provider.requests)


def test_signing_out_of_an_sso_session_does_not_sign_straight_back_in(server, provider):
    with chromium_page() as page:
        sign_in_with_sso(page, server, provider, DANA)
        account = page.locator(".st-key-murgat_account")
        expect(account).to_contain_text("dana (annotator)", timeout=WAIT_MS)
        # st.logout navigates the browser through /auth/logout back to the app; a reload
        # issued while that navigation is under way is aborted, so wait for it to land.
        with page.expect_navigation(timeout=WAIT_MS):
            account.get_by_role("button", name="Sign out").click()
        expect(page.get_by_role("button", name="Sign in with single sign-on")).to_be_visible(timeout=WAIT_MS)
        page.reload()
        expect(page.get_by_role("button", name="Sign in with single sign-on")).to_be_visible(timeout=WAIT_MS)
        expect(page.locator(".st-key-murgat_account")).to_have_count(0)


def test_sso_identity_without_an_account_is_told_to_ask_an_admin(server, provider):
    with chromium_page() as page:
        sign_in_with_sso(page, server, provider, STRANGER)
        expect(page.get_by_text("no account in this project has the email")).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("nobody@example.org").first).to_be_visible()
        with page.expect_navigation(timeout=WAIT_MS):
            page.get_by_role("button", name="Sign out of single sign-on").click()
        expect(page.get_by_role("button", name="Sign in with single sign-on")).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("no account in this project has the email")).to_have_count(0)


@pytest.mark.parametrize("claim", ["missing", "false"])
def test_an_identity_whose_email_is_not_verified_as_true_signs_nobody_in(server, provider, claim):
    # Issue 23: a missing claim (or the string "false") used to sign in as the address's owner.
    unverified = {key: value for key, value in DANA.items() if key != "email_verified"}
    if claim != "missing":
        unverified["email_verified"] = claim
    with chromium_page() as page:
        sign_in_with_sso(page, server, provider, unverified)
        expect(page.get_by_text("has not verified the email")).to_be_visible(timeout=WAIT_MS)
        expect(page.locator(".st-key-murgat_account")).to_have_count(0)
