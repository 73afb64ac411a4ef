"""Admin: people and roles, the queue (overlap, pool), campaign mode, playback padding, progress."""

from __future__ import annotations

import streamlit as st

from annotation.project_settings import MAX_OVERLAP, MAX_PAD_S, ProjectSettings, SettingError, write_settings
from annotation.store.accounts import add_account, remove_account, set_email, set_password, set_role
from annotation.store.project_store import ROLES
from annotation.store.rows import Person
from annotation.store.sessions import live_sessions, revoke_sessions
from annotation.work.queues import pool, team_progress
from annotation.work.session import CAMPAIGN_MODES
from pages.widgets.context import literal
from pages.widgets.frame import run_page

MODE_NAMES = {
    "end_to_end": "End to end — each annotator's own facts",
    "staged": "Staged — everyone judges the gold units",
}


def people_tab(store, me: Person) -> None:
    users = store.users()
    sessions = live_sessions(store)
    st.dataframe(
        [
            {
                "name": u.name,
                "role": u.role,
                "email": u.email,
                "signed in (sessions)": sessions.get(u.name, 0),
            }
            for u in users
        ],
        hide_index=True,
        width="stretch",
    )
    with st.form("add_person", clear_on_submit=True):
        st.subheader("Add a person")
        name = st.text_input("Name", key="new_name")
        role = st.selectbox("Role", ROLES, key="new_role")
        password = st.text_input("Password", type="password", key="new_password")
        email = st.text_input("Email (for single sign-on; optional)", key="new_email")
        if st.form_submit_button("Add", type="primary"):
            try:
                if len(password) < 3:
                    raise ValueError("choose a password of at least 3 characters")
                add_account(store, name, role, password, email)
                st.success(f"Added {literal(name.strip())} ({role}).")
            except ValueError as exc:
                st.error(literal(exc))
    st.subheader("Change a role, password or email")
    # The person is chosen outside the form, so the role below starts at theirs: saving a new
    # password alone must not change anybody's role.
    who = st.selectbox("Person", [u.name for u in users], key="edit_name")
    current = next(u for u in users if u.name == who)
    current_role = current.role
    with st.form("set_role"):
        new_role = st.selectbox("Role", ROLES, index=ROLES.index(current_role), key=f"edit_role:{who}")
        new_password = st.text_input(
            "New password (leave empty to keep)", type="password", key="edit_password"
        )
        # Keyed per person (like the role) so the field starts at the chosen person's email.
        new_email = st.text_input(
            "Email for single sign-on (empty: none)", value=current.email or "", key=f"edit_email:{who}"
        )
        if st.form_submit_button("Save"):
            admins = [u.name for u in users if u.role == "admin"]
            if new_role != "admin" and admins == [who]:
                st.error("The project needs at least one admin.")
            else:
                try:
                    # The email first: a refused email leaves the role and password unchanged too.
                    # Each change ends the person's sessions (annotation.store.accounts).
                    with store.database.transaction():
                        set_email(store, who, new_email)
                        set_role(store, who, new_role)
                        if new_password:
                            set_password(store, who, new_password)
                    st.success(f"Saved {literal(who)}.")
                except ValueError as exc:
                    st.error(literal(exc))
    sessions_and_removal(store, me, who)


def sessions_and_removal(store, me: Person, who: str) -> None:
    """End a person's sessions (they must sign in again), or remove the account with them."""
    st.subheader("Sessions and removal")
    left, right = st.columns(2)
    if left.button(f"End {literal(who)}'s sessions", key=f"end_sessions:{who}"):
        ended = revoke_sessions(store, who)
        st.success(f"Ended {ended} session{'s' if ended != 1 else ''} of {literal(who)}.")
    confirm = right.checkbox(f"Yes, remove {literal(who)}", key=f"confirm_remove:{who}")
    if right.button("Remove the account", key=f"remove:{who}", disabled=not confirm or who == me.name):
        try:
            remove_account(store, who)
            st.success(f"Removed {literal(who)} and ended their sessions; their labels stay.")
        except ValueError as exc:
            st.error(literal(exc))


def queue_tab(store) -> None:
    names = [u.name for u in store.users()]
    settings, problems = ProjectSettings.for_correction(store)
    for problem in problems.values():  # a file edited by hand: name it, let the admin set it again
        st.error(literal(f"{problem}. Until it is set again its default is used."))
    with st.form("queue_settings"):
        chosen_overlap = st.number_input(
            "Annotators per response (overlap)",
            min_value=1,
            max_value=MAX_OVERLAP,
            value=settings.overlap,
            key="overlap_input",
        )
        # the pool stays open (null) unless the admin names its people: an annotator added later joins it
        everyone = st.checkbox(
            "Every annotator receives responses, also those added later",
            value=settings.pool is None,
            key="pool_everyone",
        )
        chosen_pool = st.multiselect(
            "Or only these people (the pool), when the box above is not ticked",
            names,
            default=pool(store),
            key="pool_input",
        )
        chosen_mode = st.radio(
            "Campaign mode",
            CAMPAIGN_MODES,
            index=CAMPAIGN_MODES.index(settings.campaign_mode),
            key="mode_input",
            format_func=MODE_NAMES.get,
        )
        pad_s = st.number_input(
            "Playback padding around a cited span (seconds)",
            min_value=0.0,
            max_value=MAX_PAD_S,
            step=0.5,
            value=settings.pad_s,
            key="pad_input",
        )
        if st.form_submit_button("Save queue settings", type="primary"):
            try:
                write_settings(
                    store,
                    {
                        "overlap": chosen_overlap,
                        "pool": None if everyone else sorted(chosen_pool),
                        "campaign_mode": chosen_mode,
                        "pad_s": pad_s,
                    },
                )
                st.success(
                    "Saved. Queues follow the new settings; work already started stays with its annotator."
                )
            except SettingError as exc:
                st.error(literal(f"Nothing was saved: {exc}"))
    st.caption(
        "Staged: stage 2 starts from the adjudicated verifiability and stage 3 from the "
        "adjudicated facts, so agreement can be measured on the same units. End to end: each "
        "annotator takes a response through all three stages on their own facts."
    )


def progress_tab(store) -> None:
    rows, total = team_progress(store)
    left, middle, right = st.columns(3)
    left.metric("Done", f"{total.done} / {total.assigned}")
    middle.metric("Set aside", total.skipped)
    right.metric("Responses", store.count_responses())
    st.dataframe([r.to_dict() for r in rows], hide_index=True, width="stretch")


def admin(me: Person, store) -> None:
    st.title("Admin")
    people, queue, progress = st.tabs(["People", "Queue and campaign", "Progress"])
    with people:
        people_tab(store, me)
    with queue:
        queue_tab(store)
    with progress:
        progress_tab(store)


run_page(admin, "admin", title="the admin page")
