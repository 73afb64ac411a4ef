"""The "Same fact?" question in a real browser (`streamlit run app.py` on 127.0.0.1 and Debian's
Chromium driven by playwright): on a tiny project where two annotators worded two facts in ways the
matcher cannot settle, the adjudicator ada answers the first question with Y, the second appears and
she answers it with N; both answers are rulings in the event log, and then the disputes show."""

from __future__ import annotations

import pytest
from app_support import tiny_project
from browser_support import (
    SHOTS,
    app_server,
    chromium_page,
    needs_chromium,
    sign_in_by_cookie,
    wait_until_idle,
)

from annotation.agreement.same_fact import open_questions
from annotation.protocol.ids import Unit
from annotation.state import project_state

pytestmark = needs_chromium
WORDINGS = {  # response → annotator → wording: each pair in the uncertain band
    "r1": {"ann": "The audience applauds.", "bob": "The crowd applauds."},
    "r2": {"ann": "The boy tosses the ball.", "bob": "The boy throws the ball."},
}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    store = tiny_project(tmp_path_factory.mktemp("e2e-same-fact") / "p", with_media=True)
    for response_id, by_name in WORDINGS.items():
        for name, text in by_name.items():
            store.events.append(name, response_id, Unit.of_sentence(0), "verifiable", True)
            store.events.append(
                name, response_id, Unit.of_sentence(0), "facts", [{"text": text, "citations": [0]}]
            )
            store.events.append(name, response_id, Unit.of_fact(0, text, [0]), "all", True)
    return store


@pytest.fixture(scope="module")
def server(project):
    with app_server(project.directory) as url:
        yield url


def answers(store) -> dict[str, bool]:
    return {
        e.response_id: e.value["value"]
        for e in store.events.current_labels("ada")
        if str(e.task) == "gold.same"
    }


def test_adjudicator_answers_same_fact_by_key_and_the_next_question_appears(project, server):
    first, second = open_questions(project_state(project).gold)
    assert (first.response_id, second.response_id) == ("r1", "r2")
    with chromium_page() as page:
        sign_in_by_cookie(page, server, project, "ada")
        page.get_by_role("heading", name="Disputes").wait_for()
        page.get_by_role("heading", name="Same fact? · response r1 · sentence 1").wait_for()
        page.get_by_text(WORDINGS["r1"]["ann"]).wait_for()
        wait_until_idle(page)
        page.screenshot(path=SHOTS / "31_same_fact_question.png")

        page.keyboard.press("y")
        page.get_by_role("heading", name="Same fact? · response r2 · sentence 1").wait_for()
        page.get_by_text(WORDINGS["r2"]["bob"]).wait_for()
        wait_until_idle(page)
        assert answers(project) == {"r1": True}

        page.keyboard.press("n")
        page.get_by_text("lowest agreement first").wait_for()  # no question left: the dispute list
        wait_until_idle(page)
        page.screenshot(path=SHOTS / "32_same_fact_answered.png")
    assert answers(project) == {"r1": True, "r2": False}
    assert open_questions(project_state(project).gold) == []
