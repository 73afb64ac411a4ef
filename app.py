"""The annotation app: sign in, then the pages your role may open.

Run: `streamlit run app.py` (project: `$MURGAT_PROJECT`, else `projects/`; the demo is
built when there is none). Each page runs inside `pages.widgets.frame.run_page`, which
signs people in, guards roles and turns errors into friendly messages.
"""

from __future__ import annotations

import streamlit as st

from pages.widgets.context import APP_DIR
from pages.widgets.frame import sign_in_screen, signed_in_user

ALL_ROLES = ("annotator", "adjudicator", "admin")
# (script, title, roles that may open it). A script not written yet is left out, so a later
# page only needs its line here (and run_page with the same roles). No icons: an icon's name
# would be read out as part of the link's name.
PAGES = (
    ("pages/annotate.py", "Annotate", ALL_ROLES),
    ("pages/disputes.py", "Disputes", ("adjudicator", "admin")),
    ("pages/agreement.py", "Agreement", ("adjudicator", "admin")),
    ("pages/judges.py", "Judges", ("admin",)),
    ("pages/calibrate.py", "Calibrate", ("admin",)),
    ("pages/model_scores.py", "Model scores", ("admin",)),
    ("pages/admin.py", "Admin", ("admin",)),
)


LANDING = {"adjudicator": "pages/disputes.py"}  # where a role lands; else the first page it may open


def pages_for(role: str) -> list:
    """The pages `role` may open, each at a URL of its own, and a hidden page at the app's root that
    opens the role's landing page: a navigation serves its default page at the root only, so a link
    to a default page by its name (an adjudicator's /disputes) found nothing."""
    scripts = [
        (script, title) for script, title, roles in PAGES if role in roles and (APP_DIR / script).exists()
    ]
    landing = LANDING.get(role) or scripts[0][0]

    def home() -> None:
        st.switch_page(landing)

    return [
        st.Page(home, title="Home", url_path="home", default=True, visibility="hidden"),
        *(st.Page(script, title=title) for script, title in scripts),
    ]


def signed_out_pages() -> list:
    """The sign-in form at the root, and every page, hidden: a link to a page opens it, the page
    asks the person to sign in (pages.widgets.frame.run_page), and once they have, they are on it."""
    pages = [
        st.Page(script, title=title, visibility="hidden")
        for script, title, _ in PAGES
        if (APP_DIR / script).exists()
    ]
    return [st.Page(sign_in_screen, title="Sign in", url_path="sign-in", default=True), *pages]


user = signed_in_user()
if user is None:
    page = st.navigation(signed_out_pages(), position="hidden")
else:
    page = st.navigation(pages_for(user.role), position="top")
page.run()
