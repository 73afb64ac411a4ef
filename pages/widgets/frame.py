"""The frame every page runs in: sign-in when nobody is signed in, the role guard, one line
naming the project and the person with a way to sign out (no sidebar), the synthetic-data
banner, the session cookie, the app-wide key fix, and friendly errors instead of tracebacks.

Pages call `run_page(body, *roles)` rather than relying on app.py alone, because Streamlit
may run a script under `pages/` directly (its legacy multipage mode, e.g. the first run of a
server process); then the page still signs people in and still refuses other roles.
"""

from __future__ import annotations

import math
from pathlib import Path

import streamlit as st

from annotation.store.accounts import (
    account_for_identity,
    authenticate,
    sign_in_wait_s,
    verified_identity_email,
)
from annotation.store.rows import Person
from pages.widgets.context import (
    APP_DIR,
    SESSION_ENDED_KEY,
    available_projects,
    client_address,
    current_store,
    current_user,
    friendly_errors,
    literal,
    load_css,
    open_store,
    sign_in_as,
    sign_out,
    sso_identity,
    sso_provider,
    sso_settings,
    synthetic_banner,
)
from pages.widgets.keys import install_keys
from pages.widgets.session_cookie import keep_in_browser

TITLE = "MURGAT annotation"
ICON = APP_DIR / "assets" / "icon.png"  # shipped: no icon is fetched from a font service
DEMO_ACCOUNTS = (
    "Demo accounts (the password is the name): **dana** (an annotator with nothing labelled yet), "
    "alice, bob, carol (annotators), ada (adjudicator), admin."
)


def set_up_page() -> None:
    st.set_page_config(page_title=TITLE, page_icon=str(ICON), layout="wide")
    load_css()


def sign_in_screen() -> None:
    """The sign-in page of the navigation (when nobody is signed in)."""
    set_up_page()
    with friendly_errors("the sign-in"):
        sign_in_page()


def sign_in_page() -> None:
    """Choose the project (when there are several), then name and password, or single sign-on
    when the secrets configure it; on success the person (`Person`) goes into session
    state, a session starts (kept in the browser's cookie) and the app reruns."""
    keep_in_browser(None)  # whatever session cookie brought nobody in: gone
    _, middle, _ = st.columns([1, 2, 1])
    with middle:
        st.title(TITLE)
        names = [str(p) for p in available_projects()]
        if st.session_state.get("project") not in names:
            st.session_state["project"] = project_for_identity(names) or names[0]
        if len(names) > 1:
            st.selectbox("Project", names, key="project", format_func=lambda p: Path(p).name)
        store = open_store(st.session_state["project"])
        synthetic_banner(store)
        if st.session_state.pop(SESSION_ENDED_KEY, False):
            st.info(
                "Your session has ended: signed out in another tab, by an admin, or expired. Sign in again.",
                icon=":material/logout:",
            )
        settings = sso_settings()
        if settings:
            single_sign_on(store, sso_provider(settings))
        password_form(store)


def password_form(store) -> None:
    """Name and password; an empty field is named, a wrong pair refused without saying which."""
    with st.form("sign_in", width=420):
        name = st.text_input("Name", key="sign_in_name", autocomplete="username")
        password = st.text_input("Password", type="password", key="sign_in_password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if store.get_setting("synthetic"):
        st.caption(DEMO_ACCOUNTS)
    if not submitted:
        return
    missing = [
        field for field, value in (("your name", name), ("your password", password)) if not value.strip()
    ]
    if missing:
        st.error(f"Enter {' and '.join(missing)}.")
        return
    client = client_address()
    user = authenticate(store, name, password, client=client)
    if user is None:
        wait = math.ceil(sign_in_wait_s(store, name, client=client))
        st.error(
            f"Too many failed sign-ins: try again in {wait} s." if wait else "Unknown name or wrong password."
        )
        return
    sign_in_as(store, user)
    st.rerun()


def project_for_identity(names: list[str]) -> str | None:
    """The first project with an account for the single sign-on identity's email. Coming back
    from the provider starts a new browser session, so the project chosen before is gone."""
    email, _ = verified_identity_email(sso_identity())
    if email is None:
        return None
    return next((name for name in names if account_for_identity(open_store(name), email)), None)


def single_sign_on(store, provider: str | None) -> None:
    """Offer `st.login`; once the provider has sent the person back, sign in the account whose
    email is the identity's email, or say that no account has it (with a way to log out)."""
    identity = sso_identity()
    if identity is None:
        if st.button("Sign in with single sign-on", key="sso_sign_in"):
            st.login(provider)
        return
    verified, refusal = verified_identity_email(identity)
    email = str(identity.get("email") or "").strip()
    shown = "`" + email.replace("`", "'") + "`"  # a code span: the provider's text shown literally
    if refusal == "no email":
        st.warning(
            "Your single sign-on identity carries no email address, so it cannot be matched "
            "to an account; ask an admin, or sign in with your name and password."
        )
    elif refusal == "unverified":
        # An unverified address could be anyone's: only a literal `email_verified: true` counts.
        st.warning(
            f"Your identity provider has not verified the email {shown}, so it cannot sign "
            "you in; verify it there, or sign in with your name and password."
        )
    elif refusal == "look-alike":
        st.warning(
            f"The email {shown} holds look-alike (compatibility) characters, so it cannot sign "
            "you in; sign in with your name and password, or ask an admin."
        )
    else:
        email = verified
        account = account_for_identity(store, email)
        if account is not None:
            sign_in_as(store, account)
            st.rerun()
        st.warning(
            f"You are signed in with single sign-on as {shown}, but no account in this project "
            f"has the email {shown}; ask an admin to add it."
        )
    st.button("Sign out of single sign-on", key="sso_sign_out", on_click=st.logout)


def signed_in_user() -> Person | None:
    with friendly_errors("the sign-in"):
        return current_user()
    return None


def account_line(store, user: Person) -> None:
    """Project, person and role, the synthetic-data banner, and Sign out: one line."""
    line = st.container(horizontal=True, vertical_alignment="center", key="murgat_account")
    line.caption(
        f"Project **{literal(Path(store.directory).name)}** · **{literal(user.name)}** ({user.role})",
        width="content",
    )
    with line.container(key="murgat_banner", width="stretch"):
        synthetic_banner(store)
    line.button("Sign out", key="sign_out", on_click=sign_out, type="tertiary")


def run_page(body, *roles: str, title: str = "this page") -> None:
    """Run `body(user, store)` inside the frame (see module doc). Nobody signed in → the
    sign-in form; a role not in `roles` (when given) → a refusal; any error in `body` → a
    friendly message, details in the log."""
    set_up_page()
    install_keys()
    user = signed_in_user()
    if user is None:
        with friendly_errors("the sign-in"):
            sign_in_page()
        st.stop()
    store = current_store()
    keep_in_browser(st.session_state.get("session_token"))
    account_line(store, user)
    if roles and user.role not in roles:
        st.error("This page is not available to your role.")
        st.stop()
    with friendly_errors(title):
        body(user, store)
