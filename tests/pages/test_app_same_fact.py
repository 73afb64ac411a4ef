"""The "Same fact?" question on the disputes page, driven through streamlit's AppTest on a tiny project:
ann and bob word r1's and r2's one fact in ways the matcher cannot settle; the page counts the
questions apart from the disputes, shows both wordings, and an answer (or its undo) is a ruling in the
event log."""

import pytest
from app_support import click, open_page_as, shown_text, tiny_project

from annotation.protocol.ids import Unit
from annotation.store.project_store import ProjectStore

PAGE = "pages/disputes.py"
WORDINGS = {"ann": "The audience applauds.", "bob": "The crowd applauds."}
SECOND = {"ann": "The boy tosses the ball.", "bob": "The boy throws the ball."}


@pytest.fixture
def project(tmp_path):
    store = tiny_project(tmp_path / "p")
    for response_id, wordings in (("r1", WORDINGS), ("r2", SECOND)):
        for name, text in wordings.items():
            store.events.append(name, response_id, Unit.of_sentence(0), "verifiable", True)
            store.events.append(
                name, response_id, Unit.of_sentence(0), "facts", [{"text": text, "citations": [0]}]
            )
            store.events.append(name, response_id, Unit.of_fact(0, text, [0]), "all", True)
    return tmp_path / "p"


def metric(app, label: str) -> str:
    return next(m.value for m in app.metric if m.label == label)


def disputes_count(app) -> str:
    """The number of disputes on the page's counts line ("**N** disputes = …")."""
    line = next(m.value for m in app.markdown if " need a ruling + " in m.value)
    return line.split("**")[1]


def same_answers(project) -> list[bool]:
    labels = ProjectStore.open(project).events.current_labels("ada")
    return [e.value["value"] for e in labels if str(e.task) == "gold.same"]


def test_the_questions_are_counted_apart_and_their_wording_is_no_dispute(monkeypatch, project):
    app = open_page_as(monkeypatch, project, "ada", PAGE)
    assert (metric(app, "Same fact? questions"), disputes_count(app)) == ("2", "0")
    text = shown_text(app)
    assert WORDINGS["ann"] in text and WORDINGS["bob"] in text


def test_an_answer_is_a_ruling_and_the_next_question_follows(monkeypatch, project):
    app = click(open_page_as(monkeypatch, project, "ada", PAGE), "same:True")
    assert same_answers(project) == [True]
    assert metric(app, "Same fact? questions") == "1"
    assert SECOND["bob"] in shown_text(app)


def test_undo_takes_the_answer_back_and_asks_again(monkeypatch, project):
    app = click(open_page_as(monkeypatch, project, "ada", PAGE), "same:True")
    app = click(app, "same:undo")
    assert same_answers(project) == []
    assert metric(app, "Same fact? questions") == "2"


def test_undo_with_no_answer_yet_leaves_the_adjudicators_other_rulings_alone(monkeypatch, project):
    from annotation.agreement.adjudication import adjudicate

    store = ProjectStore.open(project)
    adjudicate(store, "ada", "r1", Unit.of_sentence(1), "verifiable", False)
    click(open_page_as(monkeypatch, project, "ada", PAGE), "same:undo")
    ruled = [(e.response_id, str(e.unit), str(e.task)) for e in store.events.current_labels("ada")]
    assert ruled == [("r1", "s1", "gold.verifiable")]


def test_a_no_leaves_a_dispute_in_substance(monkeypatch, project):
    app = click(open_page_as(monkeypatch, project, "ada", PAGE), "same:False")
    assert same_answers(project) == [False]
    assert disputes_count(app) == "1"
