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


def pool_drawn_for(store, names: list[str]) -> tuple:
    """What the pool widgets were drawn from: the people, the pool they make and the stored setting."""
    return (tuple(names), tuple(pool(store)), store.get_setting("pool"))


def pool_widgets_follow(store, names: list[str], settings: ProjectSettings) -> bool:
    """Start the pool checkbox and multiselect again from the stored settings whenever the people
    or the pool changed since they were drawn: keyed widgets keep their value across reruns even
    when their options change, so a person added since (here or in another session) would be left
    out of a pool saved from them. Also when Streamlit dropped their state (another page was
    open). True when they were reset while drawn with other people."""
    drawn_for = pool_drawn_for(store, names)
    drawn = "pool_input" in st.session_state and "pool_everyone" in st.session_state
    if drawn and st.session_state.get("pool_input_for") == drawn_for:
        return False
    st.session_state["pool_everyone"] = settings.pool is None
    st.session_state["pool_input"] = pool(store)
    st.session_state["pool_input_for"] = drawn_for
    return drawn


def queue_tab(store) -> None:
    users = store.users()
    names = [u.name for u in users]
    settings, problems = ProjectSettings.for_correction(store)
    for problem in problems.values():  # a file edited by hand: name it, let the admin set it again
        st.error(literal(f"{problem}. Until it is set again its default is used."))
    changed_meanwhile = pool_widgets_follow(store, names, settings)
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
            key="pool_everyone",
        )
        chosen_pool = st.multiselect(
            "Or only these people (the pool), when the box above is not ticked",
            names,
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
        saving = st.form_submit_button("Save queue settings", type="primary")
        if saving and changed_meanwhile:  # the form's choices were made on people no longer current
            st.warning(
                "Nothing was saved: the people or the pool changed while this form was open. "
                "It now shows them as they are; check the pool and save again."
            )
        elif saving:
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
                # the form shows what was just saved: the next save from it is not a stale one
                st.session_state["pool_input_for"] = pool_drawn_for(store, names)
                st.success(
                    "Saved. Queues follow the new settings; work already started stays with its annotator."
                )
            except SettingError as exc:
                st.error(literal(f"Nothing was saved: {exc}"))
    if store.get_setting("pool") is not None:  # a closed pool (as saved now): say whom it leaves without work
        outside = [u.name for u in users if u.role == "annotator" and u.name not in pool(store)]
        if outside:
            verb = "receives" if len(outside) == 1 else "receive"
            st.info(literal(f"{', '.join(outside)} {verb} no responses: not in the pool above."))
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
