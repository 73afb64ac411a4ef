"""The admin page: people and roles, queue and campaign settings, progress."""

import pytest
from app_support import open_page_as, press, shown_text, tiny_project

from annotation.store.accounts import authenticate
from annotation.store.project_store import ProjectStore
from annotation.store.rows import Person
from pages.widgets.context import literal


@pytest.fixture
def project(tmp_path):
    tiny_project(tmp_path / "p")
    return tmp_path / "p"


@pytest.fixture
def admin(monkeypatch, project):
    return open_page_as(monkeypatch, project, "boss", "pages/admin.py")


def test_admin_adds_a_person_who_can_then_sign_in(admin, project):
    admin.text_input(key="new_name").input("eve")
    admin.selectbox(key="new_role").select("adjudicator")
    admin.text_input(key="new_password").input("secret")
    press(admin, "Add")
    assert authenticate(ProjectStore.open(project), "eve", "secret") == Person("eve", "adjudicator")


def test_existing_name_is_refused_with_a_message(admin):
    admin.text_input(key="new_name").input("ann")
    admin.text_input(key="new_password").input("secret")
    app = press(admin, "Add")
    assert "already exists" in app.error[0].value


def test_a_name_with_a_zero_width_space_is_refused_naming_the_character(admin, project):
    admin.text_input(key="new_name").input("eve\u200b")
    admin.text_input(key="new_password").input("secret")
    app = press(admin, "Add")
    assert literal("U+200B (ZERO WIDTH SPACE) at character 4") in app.error[0].value  # as Markdown shows it
    assert ProjectStore.open(project).user("eve\u200b") is None


def test_admin_changes_a_role(admin, project):
    admin.selectbox(key="edit_name").select("bob").run()
    admin.selectbox(key="edit_role:bob").select("adjudicator")
    press(admin, "Save")
    assert ProjectStore.open(project).user("bob").role == "adjudicator"


def test_changing_only_a_password_keeps_the_role(admin, project):
    store = ProjectStore.open(project)
    store.set_user("bob", role="adjudicator")
    admin.run()
    admin.selectbox(key="edit_name").select("bob").run()
    assert admin.selectbox(key="edit_role:bob").value == "adjudicator"
    admin.text_input(key="edit_password").input("new-secret")
    press(admin, "Save")
    assert authenticate(ProjectStore.open(project), "bob", "new-secret") == Person("bob", "adjudicator")


def test_last_admin_cannot_be_demoted(admin, project):
    admin.selectbox(key="edit_name").select("boss").run()
    admin.selectbox(key="edit_role:boss").select("annotator")
    app = press(admin, "Save")
    assert "at least one admin" in app.error[0].value
    assert ProjectStore.open(project).user("boss").role == "admin"


def test_queue_settings_are_saved(admin, project):
    admin.number_input(key="overlap_input").set_value(1)
    admin.checkbox(key="pool_everyone").uncheck()
    admin.multiselect(key="pool_input").set_value(["ann"])
    admin.radio(key="mode_input").set_value("staged")
    admin.number_input(key="pad_input").set_value(0.5)
    press(admin, "Save queue settings")
    store = ProjectStore.open(project)
    assert [store.get_setting(k) for k in ("overlap", "pool", "campaign_mode", "pad_s")] == [
        1,
        ["ann"],
        "staged",
        0.5,
    ]


def test_saving_other_queue_settings_keeps_the_pool_open_to_annotators_added_later(admin, project):
    admin.number_input(key="pad_input").set_value(0.5)
    press(admin, "Save queue settings")
    store = ProjectStore.open(project)
    assert (store.get_setting("pad_s"), store.get_setting("pool")) == (0.5, None)  # None: every annotator


def test_an_annotator_added_in_this_session_is_kept_when_the_pool_is_closed(admin, project):
    admin.text_input(key="new_name").input("newp3")
    admin.selectbox(key="new_role").select("annotator")
    admin.text_input(key="new_password").input("secret")
    press(admin, "Add")
    assert admin.multiselect(key="pool_input").value == ["ann", "bob", "newp3"]
    admin.checkbox(key="pool_everyone").uncheck()
    press(admin, "Save queue settings")
    assert ProjectStore.open(project).get_setting("pool") == ["ann", "bob", "newp3"]


def test_a_pool_chosen_before_someone_else_added_a_person_is_not_saved(admin, project):
    admin.checkbox(key="pool_everyone").uncheck()
    store = ProjectStore.open(project)
    store.add_user("cy", "annotator", "hash")  # another admin's session, while this form is open
    app = press(admin, "Save queue settings")
    assert "Nothing was saved" in app.warning[0].value
    assert store.get_setting("pool") is None
    assert app.multiselect(key="pool_input").value == ["ann", "bob", "cy"]


def test_the_queue_form_shows_the_stored_pool_again_after_another_page(admin):
    admin.switch_page("pages/agreement.py").run()
    app = admin.switch_page("pages/admin.py").run()
    assert app.checkbox(key="pool_everyone").value is True
    assert app.multiselect(key="pool_input").value == ["ann", "bob"]


def test_the_queue_settings_can_be_saved_twice_in_a_row(admin, project):
    admin.checkbox(key="pool_everyone").uncheck()
    admin.multiselect(key="pool_input").set_value(["ann"])
    app = press(admin, "Save queue settings")
    app.multiselect(key="pool_input").set_value(["ann", "bob"])
    app = press(app, "Save queue settings")
    assert not app.warning
    assert ProjectStore.open(project).get_setting("pool") == ["ann", "bob"]


def test_annotators_left_out_of_a_closed_pool_are_named(monkeypatch, project):
    ProjectStore.open(project).set_setting("pool", ["ann"])
    app = open_page_as(monkeypatch, project, "boss", "pages/admin.py")
    assert "bob receives no responses" in shown_text(app)


def test_progress_shows_done_of_assigned(monkeypatch, project):
    ProjectStore.open(project).events.append("ann", "r1", "response", "done", True)
    app = open_page_as(monkeypatch, project, "boss", "pages/admin.py")
    assert app.metric[0].value == "1 / 4"  # ann and bob each have r1 and r2


def test_a_bad_stored_setting_is_named_and_the_form_starts_at_its_default(monkeypatch, project):
    store = ProjectStore.open(project)
    store.set_setting("pad_s", -3)  # a file edited by hand: the admin page is where it is put right
    app = open_page_as(monkeypatch, project, "boss", "pages/admin.py")
    assert r"pad\_s = -3 is refused" in app.error[0].value  # shown literally (Markdown escaped)
    assert app.number_input(key="pad_input").value == 1.0
    press(app, "Save queue settings")
    assert store.get_setting("pad_s") == 1.0
