"""The frame every page runs in: sign-in when nobody is signed in, the role guard, the
sidebar, the synthetic-data banner, and friendly errors instead of tracebacks.

Pages call `run_page(body, *roles)` rather than relying on app.py alone, because Streamlit
may run a script under `pages/` directly (its legacy multipage mode, e.g. the first run of a
server process); then the page still signs people in and still refuses other roles.
"""

from __future__ import annotations

import math
from pathlib import Path

import streamlit as st

from annotation.store.accounts import account_for_identity, authenticate, sign_in_wait_s
from pages.widgets.context import (
    available_projects,
    current_store,
    current_user,
    friendly_errors,
    literal,
    load_css,
    open_store,
    sign_out,
    sso_identity,
    sso_provider,
    sso_settings,
    synthetic_banner,
)

TITLE = "MURGAT annotation"


def set_up_page() -> None:
    st.set_page_config(page_title=TITLE, page_icon=":material/movie:", layout="wide")
    load_css()


def sign_in_screen() -> None:
    """The sign-in page of the navigation (when nobody is signed in)."""
    set_up_page()
    with friendly_errors("the sign-in"):
        sign_in_page()


def sign_in_page() -> None:
    """Choose the project (when there are several), then name and password, or single sign-on
    when the secrets configure it; on success the person ({'name', 'role'}) goes into session
    state and the app reruns."""
    st.title(TITLE)
    names = [str(p) for p in available_projects()]
    if st.session_state.get("project") not in names:
        st.session_state["project"] = project_for_identity(names) or names[0]
    if len(names) > 1:
        st.selectbox("Project", names, key="project", format_func=lambda p: Path(p).name)
    store = open_store(st.session_state["project"])
    synthetic_banner(store)
    settings = sso_settings()
    if settings:
        single_sign_on(store, sso_provider(settings))
    with st.form("sign_in"):
        name = st.text_input("Name", key="sign_in_name")
        password = st.text_input("Password", type="password", key="sign_in_password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if submitted:
        address = st.context.ip_address  # None on localhost (and no str in AppTest): name only
        client = address if isinstance(address, str) else None
        user = authenticate(store, name, password, client=client)
        if user is None:
            wait = math.ceil(sign_in_wait_s(store, name, client=client))
            st.error(
                f"Too many failed sign-ins: try again in {wait} s."
                if wait
                else "Unknown name or wrong password."
            )
            return
        st.session_state["user"] = user
        st.rerun()


def project_for_identity(names: list[str]) -> str | None:
    """The first project with an account for the single sign-on identity's email. Coming back
    from the provider starts a new browser session, so the project chosen before is gone."""
    identity = sso_identity()
    email = (identity or {}).get("email")
    if not email or identity.get("email_verified") is False:
        return None
    return next((name for name in names if account_for_identity(open_store(name), email)), None)


def single_sign_on(store, provider: str | None) -> None:
    """Offer `st.login`; once the provider has sent the person back, sign in the account whose
    email is the identity's email, or say that no account has it (with a way to log out)."""
    identity = sso_identity()
    if identity is None:
        if st.button("Sign in with single sign-on", key="sso_sign_in", icon=":material/key:"):
            st.login(provider)
        return
    email = str(identity.get("email") or "").strip()
    shown = "`" + email.replace("`", "'") + "`"  # a code span: the provider's text shown literally
    if not email:
        st.warning(
            "Your single sign-on identity carries no email address, so it cannot be matched "
            "to an account; ask an admin, or sign in with your name and password."
        )
    elif identity.get("email_verified") is False:
        # An unverified address could be anyone's: never let it open that person's account.
        st.warning(
            f"Your identity provider has not verified the email {shown}, so it cannot sign "
            "you in; verify it there, or sign in with your name and password."
        )
    else:
        account = account_for_identity(store, email)
        if account is not None:
            st.session_state["user"] = account
            st.rerun()
        st.warning(
            f"You are signed in with single sign-on as {shown}, but no account in this project "
            f"has the email {shown}; ask an admin to add it."
        )
    st.button("Sign out of single sign-on", key="sso_sign_out", icon=":material/logout:", on_click=st.logout)


def signed_in_user() -> dict | None:
    with friendly_errors("the sign-in"):
        return current_user()
    return None


def run_page(body, *roles: str, title: str = "this page") -> None:
    """Run `body(user, store)` inside the frame (see module doc). Nobody signed in → the
    sign-in form; a role not in `roles` (when given) → a refusal; any error in `body` → a
    friendly message, details in the log."""
    set_up_page()
    user = signed_in_user()
    if user is None:
        with friendly_errors("the sign-in"):
            sign_in_page()
        st.stop()
    store = current_store()
    with st.sidebar:
        st.caption(
            f"Project **{literal(Path(store.directory).name)}** · signed in as **{literal(user['name'])}** "
            f"({user['role']})"
        )
        st.button("Sign out", key="sign_out", icon=":material/logout:", on_click=sign_out)
    synthetic_banner(store)
    if roles and user["role"] not in roles:
        st.error("This page is not available to your role.")
        st.stop()
    with friendly_errors(title):
        body(user, store)
