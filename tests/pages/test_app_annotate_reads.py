"""A key press on the annotate page reads the person's labels once and plans the response once
(issue 24 §5): the answer returns the person's work after it, and the run it causes shows that
work as it is. Counted by wrapping the real event log and the real planner."""

from collections import Counter

import pytest
from app_support import click, highlighted, signed_in_app, tiny_project

from annotation.store.event_log import EventLog
from annotation.work import session


@pytest.fixture
def project(tmp_path):
    tiny_project(tmp_path / "p")
    return tmp_path / "p"


def counting(monkeypatch) -> Counter:
    """Counts of labels reads per response ('labels', rid) and of plans ('plan')."""
    counts = Counter()
    read, planner = EventLog.current_labels, session.plan

    def current_labels(self, who=None, response_id=None):
        counts["labels", response_id] += 1
        return read(self, who, response_id)

    def plan(*args, **kwargs):
        counts["plan"] += 1
        return planner(*args, **kwargs)

    monkeypatch.setattr(EventLog, "current_labels", current_labels)
    monkeypatch.setattr(session, "plan", plan)
    return counts


def test_each_key_press_reads_the_persons_labels_once_and_plans_once(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "ann")
    counts = counting(monkeypatch)
    # r1: three sentences (stage 1), two fact lists (stage 2), three one-citation facts (stage 3)
    keys = ["answer:True", "answer:True", "answer:False", "draft:r1:s0:confirm", "draft:r1:s1:confirm"]
    keys += ["answer:True", "answer:True"]
    for key in keys:
        counts.clear()
        app = click(app, key)
        assert counts == {("labels", "r1"): 1, "plan": 1}, key
    counts.clear()
    app = click(app, "answer:True")  # the last decision of r1: r1 done, r2 opens (read and planned once)
    assert counts == {("labels", "r1"): 1, ("labels", "r2"): 1, "plan": 2}
    assert highlighted(app) == "A red light blinks (visual, 0:04-0:05)."


def test_a_run_without_an_answer_reads_and_plans_the_response_once(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "ann")
    counts = counting(monkeypatch)
    app.run()
    assert counts == {("labels", "r1"): 1, "plan": 1}


def test_a_second_click_on_an_answered_question_changes_nothing_and_says_so(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "ann")
    [stale] = [b for b in app.button if str(b.key).startswith("answer:True:")]
    app = click(app, "answer:True")
    app = stale.click().run()  # the first sentence's button, as if still on screen
    assert "already made" in app.toast[0].value
    assert highlighted(app).startswith("He says hello")
