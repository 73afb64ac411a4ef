"""Issue 23, finding 2 in the app: a session that ends elsewhere (another tab's sign-out, an admin,
a password change) stops this tab at its next action, which writes nothing; an admin ends a
person's sessions or removes the account (the two-tab browser test is tests/e2e/test_sessions_across_tabs.py)."""

import pytest
from app_support import click, open_page_as, press, signed_in_app, tiny_project

from annotation.store.accounts import set_password
from annotation.store.project_store import ProjectStore
from annotation.store.sessions import end_session, live_sessions, session_user, start_session


@pytest.fixture
def project(tmp_path):
    tiny_project(tmp_path / "p")
    return tmp_path / "p"


def events_of(project, who="ann") -> int:
    return len(ProjectStore.open(project).events.log(who=who))


def sign_in_form_shown(app) -> bool:
    return "Sign in" in [b.label for b in app.button] and "user" not in app.session_state


def test_a_tab_whose_session_ended_elsewhere_writes_nothing_and_shows_the_sign_in_form(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "ann")
    end_session(ProjectStore.open(project), app.session_state["session_token"])  # the other tab signs out
    click(app, "answer:True")
    assert events_of(project) == 0 and sign_in_form_shown(app)


def test_a_password_change_stops_the_persons_open_tab_at_its_next_decision(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "ann")
    set_password(ProjectStore.open(project), "ann", "a new one")
    click(app, "answer:True")
    assert events_of(project) == 0 and sign_in_form_shown(app)


def test_a_live_session_still_writes(monkeypatch, project):
    click(signed_in_app(monkeypatch, project, "ann"), "answer:True")
    assert events_of(project) == 1


@pytest.fixture
def admin(monkeypatch, project):
    return open_page_as(monkeypatch, project, "boss", "pages/admin.py")


def test_an_admin_ends_a_persons_sessions(admin, project):
    token = start_session(ProjectStore.open(project), "bob")
    admin.selectbox(key="edit_name").select("bob").run()
    admin.button(key="end_sessions:bob").click().run()
    assert (
        session_user(ProjectStore.open(project), token) is None
        and "Ended 1 session" in admin.success[0].value
    )


def test_an_admin_removes_an_account_and_its_sessions(admin, project):
    start_session(ProjectStore.open(project), "bob")
    admin.selectbox(key="edit_name").select("bob").run()
    admin.checkbox(key="confirm_remove:bob").check().run()
    admin.button(key="remove:bob").click().run()
    store = ProjectStore.open(project)
    assert store.user("bob") is None and "bob" not in live_sessions(store)


def test_a_new_password_set_by_the_admin_ends_the_persons_sessions(admin, project):
    token = start_session(ProjectStore.open(project), "bob")
    admin.selectbox(key="edit_name").select("bob").run()
    admin.text_input(key="edit_password").input("fresh")
    press(admin, "Save")
    assert session_user(ProjectStore.open(project), token) is None
