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
    return [
        st.Page(script, title=title, default=script == LANDING.get(role))
        for script, title, roles in PAGES
        if role in roles and (APP_DIR / script).exists()
    ]


user = signed_in_user()
if user is None:
    page = st.navigation([st.Page(sign_in_screen, title="Sign in", url_path="sign-in")], position="hidden")
else:
    page = st.navigation(pages_for(user.role), position="top")
page.run()
