"""Single sign-on on the sign-in page and the admin page (AppTest seeds `st.secrets` and `st.user`;
the real provider round trip is tests/e2e/test_sso.py)."""

import pytest
from app_support import new_app, open_app, open_page_as, press, sign_in, signed_in_app, tiny_project
from streamlit.testing.v1 import AppTest

from annotation.store.accounts import set_email
from annotation.store.project_store import ProjectStore
from annotation.store.rows import Person
from pages.widgets.context import sso_provider

AUTH = {
    "auth": {
        "redirect_uri": "http://localhost:8501/oauth2callback",
        "cookie_secret": "x" * 32,
        "client_id": "murgat",
        "client_secret": "s3cret",
        "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
    }
}
SSO_BUTTON = "Sign in with single sign-on"


@pytest.fixture
def project(tmp_path):
    store = tiny_project(tmp_path / "p")
    set_email(store, "ann", "ann@example.org")
    return tmp_path / "p"


def open_with_sso(monkeypatch, project, **identity) -> AppTest:
    """The app with an `[auth]` section; `identity` (when given) is who `st.login` signed in."""
    monkeypatch.setenv("MURGAT_PROJECT", str(project))
    app = new_app()
    app.secrets = AUTH
    app.user = {"is_logged_in": True, **identity} if identity else {"is_logged_in": False}
    return app.run()


def account_line(app) -> str:
    return " ".join(c.value for c in app.caption if c.value.startswith("Project "))


def test_without_an_auth_section_only_the_password_form_is_offered(monkeypatch, project):
    app = open_app(monkeypatch, project)
    assert SSO_BUTTON not in [b.label for b in app.button]


def test_with_an_auth_section_the_sign_in_page_offers_single_sign_on(monkeypatch, project):
    app = open_with_sso(monkeypatch, project)
    assert [b.label for b in app.button] == [SSO_BUTTON, "Sign in"]


def test_password_sign_in_still_works_when_single_sign_on_is_configured(monkeypatch, project):
    app = sign_in(open_with_sso(monkeypatch, project), "bob")
    assert app.session_state["user"] == Person("bob", "annotator")


def test_sso_identity_signs_in_the_account_with_that_email(monkeypatch, project):
    app = open_with_sso(monkeypatch, project, email=" Ann@Example.ORG", email_verified=True)
    assert app.session_state["user"] == Person("ann", "annotator")
    assert "**ann** (annotator)" in account_line(app)


def test_sso_sign_in_starts_a_session_the_browser_keeps(monkeypatch, project):
    from annotation.store.project_store import ProjectStore
    from annotation.store.sessions import session_user

    app = open_with_sso(monkeypatch, project, email="ann@example.org", email_verified=True)
    assert session_user(ProjectStore.open(project), app.session_state["session_token"]).name == "ann"


def test_sso_identity_without_an_account_is_told_to_ask_an_admin(monkeypatch, project):
    app = open_with_sso(monkeypatch, project, email="nobody@example.org", email_verified=True)
    assert "user" not in app.session_state
    message = app.warning[-1].value
    assert "no account in this project has the email `nobody@example.org`" in message
    assert "ask an admin to add it" in message
    assert "Sign out of single sign-on" in [b.label for b in app.button]


def test_signing_out_of_single_sign_on_without_an_account_logs_out(monkeypatch, project):
    app = open_with_sso(monkeypatch, project, email="nobody@example.org", email_verified=True)
    app.button(key="sso_sign_out").click().run()
    assert app.user == {"is_logged_in": False}


def test_an_unverified_identity_email_does_not_sign_anyone_in(monkeypatch, project):
    app = open_with_sso(monkeypatch, project, email="ann@example.org", email_verified=False)
    assert "user" not in app.session_state and "has not verified" in app.warning[-1].value


def test_an_identity_without_an_email_is_told_so(monkeypatch, project):
    app = open_with_sso(monkeypatch, project, name="Ann")
    assert "user" not in app.session_state and "carries no email" in app.warning[-1].value


def test_signing_out_of_an_sso_session_also_logs_out_of_single_sign_on(monkeypatch, project):
    app = open_with_sso(monkeypatch, project, email="ann@example.org", email_verified=True)
    app.button(key="sign_out").click().run()
    assert app.user == {"is_logged_in": False}
    assert "user" not in app.session_state and SSO_BUTTON in [b.label for b in app.button]


def test_password_sign_out_without_single_sign_on_leaves_st_user_alone(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "bob")
    app.button(key="sign_out").click().run()
    assert app.user == {"email": "test@example.com"} and "user" not in app.session_state


@pytest.fixture
def admin(monkeypatch, project):
    return open_page_as(monkeypatch, project, "boss", "pages/admin.py")


def test_admin_adds_a_person_with_an_email(admin, project):
    admin.text_input(key="new_name").input("eve")
    admin.text_input(key="new_password").input("secret")
    admin.text_input(key="new_email").input("Eve@Example.org")
    press(admin, "Add")
    assert ProjectStore.open(project).user("eve").email == "eve@example.org"


def test_admin_sets_an_email_in_change_a_role(admin, project):
    admin.selectbox(key="edit_name").select("bob").run()
    admin.text_input(key="edit_email:bob").input("bob@example.org")
    press(admin, "Save")
    store = ProjectStore.open(project)
    assert store.user("bob").email == "bob@example.org" and store.user("bob").role == "annotator"


def test_the_email_field_starts_at_the_chosen_persons_email(admin):
    admin.selectbox(key="edit_name").select("ann").run()
    assert admin.text_input(key="edit_email:ann").value == "ann@example.org"


def test_a_duplicate_email_is_refused_with_a_message_and_nothing_changes(admin, project):
    admin.selectbox(key="edit_name").select("bob").run()
    admin.selectbox(key="edit_role:bob").select("adjudicator")
    admin.text_input(key="edit_email:bob").input("ANN@example.org")
    app = press(admin, "Save")
    assert "already belongs to 'ann'" in app.error[0].value
    bob = ProjectStore.open(project).user("bob")
    assert (bob.name, bob.role, bob.email) == ("bob", "annotator", None)


def test_adding_a_person_with_an_invalid_email_is_refused(admin, project):
    admin.text_input(key="new_name").input("eve")
    admin.text_input(key="new_password").input("secret")
    admin.text_input(key="new_email").input("eve at example")
    app = press(admin, "Add")
    assert "is not an email address" in app.error[0].value and ProjectStore.open(project).user("eve") is None


def test_the_plain_auth_form_logs_in_with_the_default_provider():
    assert sso_provider(AUTH["auth"]) is None


def test_a_named_provider_section_is_the_one_logged_in_with():
    settings = {
        "redirect_uri": "http://localhost:8501/oauth2callback",
        "cookie_secret": "x" * 32,
        "keycloak": {
            "client_id": "murgat",
            "client_secret": "s",
            "server_metadata_url": "https://idp.example.org/.well-known/openid-configuration",
        },
    }
    assert sso_provider(settings) == "keycloak"


def test_back_from_the_provider_the_project_with_an_account_for_the_email_is_chosen(monkeypatch, tmp_path):
    # Two projects; only the second ("b") has an account with this email.
    tiny_project(tmp_path / "a")
    set_email(tiny_project(tmp_path / "b"), "bob", "bob@example.org")
    app = open_with_sso(monkeypatch, tmp_path, email="bob@example.org", email_verified=True)
    assert app.session_state["user"] == Person("bob", "annotator")
    assert app.session_state["project"] == str(tmp_path / "b")


@pytest.mark.parametrize("claim", ["false", 0, None, "missing", "true"])
def test_only_a_literal_true_email_verified_signs_in(monkeypatch, project, claim):
    identity = {"email": "ann@example.org"} | ({} if claim == "missing" else {"email_verified": claim})
    app = open_with_sso(monkeypatch, project, **identity)
    assert "user" not in app.session_state and "has not verified" in app.warning[-1].value


def test_a_look_alike_address_does_not_sign_in_the_account_it_resembles(monkeypatch, project):
    app = open_with_sso(monkeypatch, project, email="\u212ann@example.org", email_verified=True)
    assert "user" not in app.session_state and "look-alike" in app.warning[-1].value
