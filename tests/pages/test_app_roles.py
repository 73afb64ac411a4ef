"""Sign-in, sessions, roles and what each role may open (app.py, pages/widgets/frame.py, context.py)."""

import pytest
from app_support import open_app, shown_text, sign_in, signed_in_app, tiny_project

from annotation.store.project_store import ProjectStore
from annotation.store.rows import Person
from annotation.store.sessions import session_user


@pytest.fixture
def project(tmp_path):
    tiny_project(tmp_path / "p", synthetic=True)
    return tmp_path / "p"


def admin_page_shown(app) -> bool:
    return any(t.value == "Admin" for t in app.title)


def test_nobody_signed_in_sees_only_the_sign_in_form(monkeypatch, project):
    app = open_app(monkeypatch, project)
    assert [b.label for b in app.button] == ["Sign in"] and app.text_input(key="sign_in_name")


def test_wrong_password_is_refused(monkeypatch, project):
    app = sign_in(open_app(monkeypatch, project), "ann", "nope")
    assert "wrong password" in app.error[0].value and "user" not in app.session_state


def test_signed_in_annotator_lands_on_annotate(monkeypatch, project):
    app = sign_in(open_app(monkeypatch, project), "ann")
    assert app.session_state["user"] == Person("ann", "annotator")
    assert any(str(b.key).startswith("answer:True:") for b in app.button)


@pytest.mark.parametrize("name", ["ann", "ada"])
def test_admin_page_is_not_in_the_navigation_of_annotators_and_adjudicators(monkeypatch, project, name):
    app = signed_in_app(monkeypatch, project, name)
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        app.switch_page("pages/admin.py")


@pytest.mark.parametrize("name", ["ann", "ada"])
def test_admin_page_refuses_annotators_and_adjudicators_who_reach_it(monkeypatch, project, name):
    # Streamlit's legacy mode can run a script under pages/ directly; the page guards itself.
    app = signed_in_app(monkeypatch, project, name).run()
    app.switch_page("pages/admin.py").run()
    assert not admin_page_shown(app) and "not available to your role" in app.error[0].value
    assert "new_name" not in [w.key for w in app.text_input]


def test_admin_opens_the_admin_page(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "boss")
    app.switch_page("pages/admin.py").run()
    assert admin_page_shown(app)


def test_role_taken_away_closes_the_admin_page_on_the_next_click(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "boss")
    app.switch_page("pages/admin.py").run()
    ProjectStore.open(project).set_user("boss", role="annotator")
    app.run()
    assert not admin_page_shown(app)


def test_sign_out_returns_to_the_sign_in_form(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "ann")
    app.button(key="sign_out").click().run()
    assert "user" not in app.session_state and [b.label for b in app.button] == ["Sign in"]


@pytest.mark.parametrize(
    ("name", "password", "message"),
    [
        ("", "", "Enter your name and your password."),
        ("ann", "", "Enter your password."),
        ("  ", "ann", "Enter your name."),
    ],
)
def test_an_empty_field_is_named_not_called_a_wrong_password(monkeypatch, project, name, password, message):
    app = sign_in(open_app(monkeypatch, project), name, password)
    assert [e.value for e in app.error] == [message] and "user" not in app.session_state


def test_signing_in_starts_a_session_the_browser_keeps(monkeypatch, project):
    app = sign_in(open_app(monkeypatch, project), "ann")
    token = app.session_state["session_token"]
    assert session_user(ProjectStore.open(project), token) == Person("ann", "annotator")


def test_signing_out_revokes_the_session(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "ann")
    token = app.session_state["session_token"]
    app.button(key="sign_out").click().run()
    assert session_user(ProjectStore.open(project), token) is None


def test_a_session_revoked_elsewhere_signs_this_page_out_on_its_next_run(monkeypatch, project):
    from annotation.store.sessions import end_session

    app = signed_in_app(monkeypatch, project, "ann")
    end_session(ProjectStore.open(project), app.session_state["session_token"])
    app.run()
    assert "user" not in app.session_state and "Sign in" in [b.label for b in app.button]


def test_a_page_signed_out_from_elsewhere_says_why_it_asks_to_sign_in_again(monkeypatch, project):
    from annotation.store.sessions import end_session

    app = signed_in_app(monkeypatch, project, "ann")
    end_session(ProjectStore.open(project), app.session_state["session_token"])
    assert "Your session has ended" in app.run().info[0].value
    assert not [i for i in app.run().info if "Your session has ended" in i.value]  # said once


def test_a_demo_project_hints_its_accounts(monkeypatch, project):
    assert "the password is the name" in shown_text(open_app(monkeypatch, project))


def test_a_real_project_hints_no_accounts(monkeypatch, tmp_path):
    tiny_project(tmp_path / "real")
    assert "password is the name" not in shown_text(open_app(monkeypatch, tmp_path / "real"))


def test_no_sidebar_when_it_would_hold_nothing_but_sign_out(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "ann")
    assert len(app.sidebar.children) == 0 and app.button(key="sign_out").label == "Sign out"


def test_the_page_icon_is_shipped_with_the_app():
    from pages.widgets.frame import ICON

    assert ICON.is_file() and ICON.parent.name == "assets" and ICON.read_bytes()[:4] == b"\x89PNG"


def test_no_button_or_page_names_an_icon(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "boss")
    assert all(not b.proto.icon for b in app.button) and all(
        not p.proto.popover.icon for p in app.get("popover")
    )


def test_synthetic_project_carries_a_banner_before_and_after_sign_in(monkeypatch, project):
    app = open_app(monkeypatch, project)
    assert "synthetic" in app.warning[0].value
    assert "synthetic" in sign_in(app, "ann").warning[0].value


def test_several_projects_are_offered_by_name(monkeypatch, tmp_path):
    tiny_project(tmp_path / "root" / "alpha")
    tiny_project(tmp_path / "root" / "beta")
    app = open_app(monkeypatch, tmp_path / "root")
    assert app.selectbox(key="project").options == ["alpha", "beta"]


def test_no_project_builds_the_demo_and_offers_it(monkeypatch, tmp_path):
    app = open_app(monkeypatch, tmp_path / "empty")
    assert (tmp_path / "empty" / "demo" / "project.db").exists()
    assert "synthetic" in app.warning[0].value and "Sign in" in shown_text(app)
