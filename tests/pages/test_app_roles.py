"""Sign-in, roles and what each role may open (app.py, pages/widgets/signin.py, context.py)."""

import pytest
from app_support import open_app, shown_text, sign_in, tiny_project

from annotation.store.project_store import ProjectStore


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
    assert app.session_state["user"] == {"name": "ann", "role": "annotator"}
    assert any(str(b.key).startswith("answer:True:") for b in app.button)


@pytest.mark.parametrize("name", ["ann", "ada"])
def test_admin_page_is_not_in_the_navigation_of_annotators_and_adjudicators(monkeypatch, project, name):
    app = sign_in(open_app(monkeypatch, project), name)
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        app.switch_page("pages/admin.py")


@pytest.mark.parametrize("name", ["ann", "ada"])
def test_admin_page_refuses_annotators_and_adjudicators_who_reach_it(monkeypatch, project, name):
    # Streamlit's legacy mode can run a script under pages/ directly; the page guards itself.
    app = sign_in(open_app(monkeypatch, project), name).run()
    app.switch_page("pages/admin.py").run()
    assert not admin_page_shown(app) and "not available to your role" in app.error[0].value
    assert "new_name" not in [w.key for w in app.text_input]


def test_admin_opens_the_admin_page(monkeypatch, project):
    app = sign_in(open_app(monkeypatch, project), "boss")
    app.switch_page("pages/admin.py").run()
    assert admin_page_shown(app)


def test_role_taken_away_closes_the_admin_page_on_the_next_click(monkeypatch, project):
    app = sign_in(open_app(monkeypatch, project), "boss")
    app.switch_page("pages/admin.py").run()
    ProjectStore.open(project).set_user("boss", role="annotator")
    app.run()
    assert not admin_page_shown(app)


def test_sign_out_returns_to_the_sign_in_form(monkeypatch, project):
    app = sign_in(open_app(monkeypatch, project), "ann")
    app.button(key="sign_out").click().run()
    assert "user" not in app.session_state and [b.label for b in app.button] == ["Sign in"]


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
