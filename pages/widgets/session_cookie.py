"""The session cookie: how a sign-in survives a reload, Back, or a new tab.

Streamlit 1.67 reads the browser's cookies (`st.context.cookies`, as sent when the page
connected) but cannot set one, so a tiny components-v2 script (it runs in the page itself, no
iframe, nothing fetched) writes `document.cookie`. The cookie holds only the session token of
`annotation.store.sessions` (signed, expiring, revocable on the server); SameSite=Strict, and
Secure on https.
"""

from __future__ import annotations

import streamlit as st

from annotation.store.sessions import DEFAULT_LIFETIME_S

COOKIE = "murgat_session"
_JS = """
export default function ({ data }) {
  const { name, token, max_age: maxAge } = data;
  const secure = location.protocol === "https:" ? "; Secure" : "";
  const present = document.cookie.split("; ").some((c) => c.startsWith(name + "="));
  if (token) document.cookie = `${name}=${token}; Path=/; Max-Age=${maxAge}; SameSite=Strict${secure}`;
  else if (present) document.cookie = `${name}=; Path=/; Max-Age=0; SameSite=Strict${secure}`;
}
"""
_COOKIE = st.components.v2.component("murgat_session_cookie", js=_JS, isolate_styles=False)


def token_from_browser() -> str | None:
    """The session token the browser sent when this page connected, if any."""
    return st.context.cookies.get(COOKIE) or None


def keep_in_browser(token: str | None, lifetime_s: int = DEFAULT_LIFETIME_S) -> None:
    """Write `token` into the browser's cookie, or (None) remove the cookie, out of sight."""
    with st.container(key="murgat_session_cookie"):
        _COOKIE(
            data={"name": COOKIE, "token": token, "max_age": int(lifetime_s)}, key="murgat_cookie", height=0
        )
