"""The annotate page, driven through streamlit's AppTest on tiny projects built in code."""

import json

import pytest
from app_support import (
    APP,
    FIRST_TEXT,
    click,
    components,
    highlighted,
    shown_text,
    signed_in_app,
    tiny_project,
)

from annotation.protocol.ids import Task, Unit
from annotation.protocol.records import EvaluationRecord, Fact, Sentence
from annotation.state import project_state
from annotation.work.drafts import load_draft
from annotation.work.flags import answer_flag
from annotation.work.labels import labels_by_unit
from annotation.work.session import flag_for_guidelines
from pages.widgets.response_view import highlighted_html

FIRST_SENTENCE_TWO = "He says hello and waves (audio, 0:01-0:03; visual, 0:03)."


@pytest.fixture
def project(tmp_path):
    tiny_project(tmp_path / "p")
    return tmp_path / "p"


@pytest.fixture
def store(project):
    from annotation.store.project_store import ProjectStore

    return ProjectStore.open(project)


def signed_in(monkeypatch, project, name="ann"):
    return signed_in_app(monkeypatch, project, name)


def labels(store, who="ann", rid="r1"):
    return labels_by_unit(store.events.current_labels(who, rid))


def through_stage_one(app, answers=(True, True, False)):
    for value in answers:
        click(app, f"answer:{value}")
    return app


def test_first_sentence_of_first_response_is_highlighted(monkeypatch, project):
    app = signed_in(monkeypatch, project)
    assert highlighted(app) == "The man points at the screen (visual, 0:02)."


def test_question_and_options_are_in_view(monkeypatch, project):
    text = shown_text(signed_in(monkeypatch, project))
    assert "What happens first?" in text and "A. He points<br>B. He waves" in text


def test_verifiable_click_is_logged_at_once_with_time_spent(monkeypatch, project, store):
    click(signed_in(monkeypatch, project), "answer:True")
    event = store.events.current_labels("ann", "r1")[0]
    assert (str(event.unit), str(event.task), event.value) == (
        "s0",
        "verifiable",
        True,
    ) and event.spent_ms >= 0


def test_decision_advances_to_the_next_sentence(monkeypatch, project):
    app = click(signed_in(monkeypatch, project), "answer:False")
    assert highlighted(app).startswith("He says hello and waves")


def test_stage_two_proposes_a_rule_based_split(monkeypatch, project):
    app = through_stage_one(signed_in(monkeypatch, project))
    assert app.text_input(key="draft:r1:s0:text:0").value == "The man points at the screen."


def test_confirmed_facts_are_logged_as_one_list(monkeypatch, project, store):
    app = through_stage_one(signed_in(monkeypatch, project))
    click(app, "draft:r1:s0:confirm")
    assert labels(store)[(Unit.of_sentence(0), Task.parse("facts"))] == [
        {"text": "The man points at the screen.", "citations": [0]}
    ]


def test_the_second_sentence_is_proposed_as_two_facts_each_with_its_own_citation(monkeypatch, project):
    app = through_stage_one(signed_in(monkeypatch, project))
    click(app, "draft:r1:s0:confirm")
    assert [app.text_input(key=f"draft:r1:s1:text:{row}").value for row in (0, 1)] == [
        "He says hello.",
        "He waves.",
    ]
    assert [app.checkbox(key=f"draft:r1:s1:cite:0:{c}").value for c in (0, 1)] == [True, False]
    assert [app.checkbox(key=f"draft:r1:s1:cite:1:{c}").value for c in (0, 1)] == [False, True]


def test_fact_list_editing_on_the_second_sentence(monkeypatch, project, store):
    app = through_stage_one(signed_in(monkeypatch, project))
    click(app, "draft:r1:s0:confirm")
    app.text_input(key="draft:r1:s1:text:0").input("A man says hello.").run()
    app.text_input(key="draft:r1:s1:text:1").input("A man waves.").run()
    click(app, "draft:r1:s1:add")  # a third fact, ticking every valid citation
    app.text_input(key="draft:r1:s1:text:2").input("Hello is heard.").run()
    app.checkbox(key="draft:r1:s1:cite:2:1").uncheck().run()  # heard: audio only
    click(app, "draft:r1:s1:up:1")
    click(app, "draft:r1:s1:confirm")
    assert labels(store)[(Unit.of_sentence(1), Task.parse("facts"))] == [
        {"text": "A man waves.", "citations": [1]},
        {"text": "A man says hello.", "citations": [0]},
        {"text": "Hello is heard.", "citations": [0]},
    ]


def test_deleted_fact_is_not_saved(monkeypatch, project, store):
    app = through_stage_one(signed_in(monkeypatch, project))
    click(app, "draft:r1:s0:add")
    app.text_input(key="draft:r1:s0:text:1").input("Extra.").run()
    click(app, "draft:r1:s0:delete:0")
    click(app, "draft:r1:s0:confirm")
    assert labels(store)[(Unit.of_sentence(0), Task.parse("facts"))] == [{"text": "Extra.", "citations": [0]}]


def test_fact_citing_nothing_is_refused(monkeypatch, project, store):
    app = through_stage_one(signed_in(monkeypatch, project))
    app.checkbox(key="draft:r1:s0:cite:0:0").uncheck().run()
    app = click(app, "draft:r1:s0:confirm")
    assert (Unit.of_sentence(0), Task.parse("facts")) not in labels(store)
    assert "tick at least one citation" in " ".join(w.value for w in app.warning)


def test_one_citation_fact_is_one_click(monkeypatch, project, store):
    app = through_stage_one(signed_in(monkeypatch, project))
    click(app, "draft:r1:s0:confirm")
    click(app, "draft:r1:s1:confirm")
    click(app, "answer:True")  # 'all' of the one-citation fact, and nothing else about it
    unit = Unit.of_fact(0, "The man points at the screen.", [0])
    assert labels(store)[(unit, Task.parse("all"))] is True
    assert "He says hello." in fact_shown(app)


def decision_header(app) -> dict:
    """The words of the decision on screen (drawn with its keys, as one element)."""
    [header] = [
        json.loads(e.proto.json)["header"]
        for e in app.get("bidi_component")
        if e.proto.component_name == "murgat_keys" and json.loads(e.proto.json).get("header")
    ]
    return header


def fact_shown(app):
    header = decision_header(app)
    assert header["subject_class"] == "murgat-fact"
    return header["subject"]


def test_whole_response_through_three_stages_is_done_and_the_next_one_opens(monkeypatch, project, store):
    app = through_stage_one(signed_in(monkeypatch, project))
    click(app, "draft:r1:s0:confirm")
    click(app, "draft:r1:s1:confirm")
    for _ in range(3):  # one citation per fact: `all` of each of the three facts
        click(app, "answer:True")
    assert labels(store)[(Unit.response(), Task.parse("done"))] is True
    assert highlighted(app) == "A red light blinks (visual, 0:04-0:05)."


def test_undo_reopens_the_last_decision(monkeypatch, project, store):
    app = click(signed_in(monkeypatch, project), "answer:True")
    app = click(app, "undo")
    assert labels(store) == {} and highlighted(app).startswith("The man points")


def test_undo_after_finishing_a_response_goes_back_into_it(monkeypatch, project, store):
    store.events.append("ann", "r2", "s0", "verifiable", False)
    app = click(signed_in(monkeypatch, project, "ann"), "undo")
    assert highlighted(app) == "A red light blinks (visual, 0:04-0:05)."


def opened(app, popover: str):
    """Open a popover (its content is drawn only while it is open)."""
    app.session_state[popover] = True
    return app.run()


def test_skip_needs_a_reason(monkeypatch, project, store):
    app = opened(signed_in(monkeypatch, project), "skip_popover")
    app = next(b for b in app.button if b.label == "Set it aside").click().run()
    assert store.events.log("ann", kind="skip") == [] and "say why" in " ".join(t.value for t in app.toast)


def test_skip_with_a_reason_moves_to_the_next_response(monkeypatch, project, store):
    app = opened(signed_in(monkeypatch, project), "skip_popover")
    app.text_input(key="skip_reason").input("no picture")
    app = next(b for b in app.button if b.label == "Set it aside").click().run()
    assert store.events.log("ann", kind="skip")[0].value == {"reason": "no picture"}
    assert highlighted(app).startswith("A red light blinks")


def test_flag_for_guidelines_is_logged(monkeypatch, project, store):
    app = opened(signed_in(monkeypatch, project), "flag_popover")
    app.text_area(key="flag_text").input("Is waving an action?")
    next(b for b in app.button if b.label == "Send the flag").click().run()
    assert store.events.log("ann", kind="flag")[0].value == {"text": "Is waving an action?"}


def test_a_flag_is_about_the_sentence_whose_question_is_on_screen(monkeypatch, project, store):
    app = opened(signed_in(monkeypatch, project), "flag_popover")
    app.text_area(key="flag_text").input("Is waving an action?")
    next(b for b in app.button if b.label == "Send the flag").click().run()
    (flag,) = store.events.log("ann", kind="flag")
    assert str(flag.unit) == "s0"  # the first question of a fresh response is about its first sentence


def test_an_annotator_without_flags_has_no_flags_popover(monkeypatch, project):
    app = signed_in(monkeypatch, project)
    assert "own_flags_popover" not in [p.key for p in app.get("popover")]


def test_an_annotator_reads_the_answers_to_their_own_flags_only(monkeypatch, project, store):
    asked = flag_for_guidelines(store, "ann", "r1", "Is **waving** an action?")
    flag_for_guidelines(store, "ann", "r2", "Which clip counts?")
    flag_for_guidelines(store, "bob", "r1", "BOB'S QUESTION")
    answer_flag(store, "ada", asked, "Yes: <b>see</b> guideline 2.")
    app = signed_in(monkeypatch, project)
    (popover,) = [p for p in app.get("popover") if p.key == "own_flags_popover"]
    assert popover.proto.popover.label == "Your flags (1 answered)"
    shown = [h.value for h in opened(app, "own_flags_popover").get("html")]
    assert '<div class="murgat-text">Is **waving** an action?</div>' in shown
    assert '<div class="murgat-text">Yes: &lt;b&gt;see&lt;/b&gt; guideline 2.</div>' in shown
    assert '<div class="murgat-text">Which clip counts?</div>' in shown
    assert "Waiting for an answer." in [c.value for c in app.caption]
    assert "BOB'S QUESTION" not in shown_text(app)


def test_returning_annotator_resumes_at_the_same_question(monkeypatch, project):
    through_stage_one(signed_in(monkeypatch, project))
    again = signed_in(monkeypatch, project)
    assert again.text_input(key="draft:r1:s0:text:0").value == "The man points at the screen."


def test_annotator_never_sees_another_annotators_labels(monkeypatch, project, store):
    store.events.append("bob", "r1", "s0", "verifiable", True)
    store.events.append("bob", "r1", "s0", "facts", [{"text": "BOB'S PRIVATE FACT", "citations": [0]}])
    app = through_stage_one(signed_in(monkeypatch, project))
    assert "BOB'S PRIVATE FACT" not in shown_text(app)
    assert (Unit.of_sentence(0), Task.parse("facts")) not in labels(store, "ann")


def test_queue_done_says_so(monkeypatch, project, store):
    for rid in ("r1", "r2"):
        store.events.append("ann", rid, "response", "done", True)
    assert "Your queue is done" in shown_text(signed_in(monkeypatch, project))


def test_person_outside_the_pool_is_told_to_ask_an_admin(monkeypatch, project):
    # an adjudicator lands on Disputes; ada opens Annotate herself
    app = signed_in(monkeypatch, project, "ada").switch_page("pages/annotate.py").run()
    assert "an admin adds you to the pool" in shown_text(app)


def test_response_text_is_shown_as_text_not_html(monkeypatch, tmp_path):
    hostile = "<script>alert(1)</script> A <b>bold</b> [link](javascript:x) claim (visual, 0:01).\nAnswer: A"
    tiny_project(tmp_path / "p", texts=(hostile,))
    page = "\n".join(h.value for h in signed_in(monkeypatch, tmp_path / "p").html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>" not in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page


def gold_for_first(facts):
    return EvaluationRecord(
        "r1",
        "gold",
        [
            Sentence("The man points at the screen (visual, 0:02).", True, facts=facts),
            Sentence("He says hello and waves (audio, 0:01-0:03; visual, 0:03).", False),
            Sentence("So B is right.", False),
        ],
    )


def test_staged_campaign_waits_for_gold_after_stage_one(monkeypatch, tmp_path):
    tiny_project(tmp_path / "p", texts=(FIRST_TEXT,), campaign_mode="staged")
    app = through_stage_one(signed_in(monkeypatch, tmp_path / "p"))
    assert "wait for the adjudicated labels" in shown_text(app)


def test_staged_campaign_judges_the_gold_facts(monkeypatch, tmp_path):
    store = tiny_project(tmp_path / "p", texts=(FIRST_TEXT,), campaign_mode="staged")
    store.add_records([gold_for_first([Fact("GOLD: a man points.", [0])])])
    app = through_stage_one(signed_in(monkeypatch, tmp_path / "p"), answers=(False, False, False))
    click(app, "draft:r1:s0:confirm")  # own facts for the gold-verifiable sentence
    assert fact_shown(app) == "GOLD: a man points."


def test_staged_campaign_asks_about_a_sentences_gold_facts_while_another_sentence_awaits_a_ruling(
    monkeypatch, tmp_path
):
    store = tiny_project(tmp_path / "p", texts=(FIRST_TEXT,), campaign_mode="staged")
    points = [{"text": "A man points at the screen.", "citations": [0]}]
    for who, second in (("ann", "He says hello."), ("bob", "He waves.")):
        for unit, verifiable in (("s0", True), ("s1", True), ("s2", False)):
            store.events.append(who, "r1", unit, "verifiable", verifiable)
        store.events.append(who, "r1", "s0", "facts", points)
        # one fact each, no fact both stated: no gold fact list for sentence 2 until it is ruled
        store.events.append(who, "r1", "s1", "facts", [{"text": second, "citations": [0, 1]}])
    assert project_state(store).gold.awaiting["r1"].undecided == ("sentence 1: facts",)
    assert fact_shown(signed_in(monkeypatch, tmp_path / "p")) == "A man points at the screen."


def test_broken_gold_shows_a_friendly_message_not_a_traceback(monkeypatch, tmp_path):
    store = tiny_project(tmp_path / "p", texts=(FIRST_TEXT,), campaign_mode="staged")
    store.add_records([gold_for_first([Fact("points at nothing", [7])])])
    app = signed_in(monkeypatch, tmp_path / "p")
    assert not app.exception and "Something went wrong" in app.error[0].value


def test_the_decision_says_where_the_person_is(monkeypatch, project):
    header = decision_header(signed_in(monkeypatch, project))
    assert header["stage"] == "Stage 1 · verifiable sentences"
    # stage 2 and 3 questions are not known yet: the total says so rather than grow later
    assert header["where"] == "r1 · sentence 1/3 · 0 of at least 3 decisions · 0 of 2 responses done"
    assert header["subject"] == "The man points at the screen (visual, 0:02)."


def test_a_closed_popover_sends_no_form(monkeypatch, project):
    app = signed_in(monkeypatch, project)
    assert "skip_reason" not in [w.key for w in app.text_input] and "flag_text" not in [
        w.key for w in app.text_area
    ]


def test_the_guidelines_are_drawn_when_opened(monkeypatch, project):
    app = signed_in(monkeypatch, project)
    assert "Guidelines for annotators" not in shown_text(app)
    assert "verifiable" in shown_text(opened(app, "guidelines_popover")).lower()


def test_an_edited_fact_is_saved_as_a_draft_not_a_label(monkeypatch, project, store):
    app = through_stage_one(signed_in(monkeypatch, project))
    app.text_input(key="draft:r1:s0:text:0").input("A man points at a screen.").run()
    assert load_draft(store, "ann", "r1", "s0") == [{"text": "A man points at a screen.", "citations": [0]}]
    assert (Unit.of_sentence(0), Task.parse("facts")) not in labels(store)


def test_a_new_page_restores_the_unconfirmed_draft(monkeypatch, project):
    app = through_stage_one(signed_in(monkeypatch, project))
    app.text_input(key="draft:r1:s0:text:0").input("A man points at a screen.").run()
    click(app, "draft:r1:s0:add")
    again = signed_in(monkeypatch, project)  # a reload: a new session, the same person
    assert again.text_input(key="draft:r1:s0:text:0").value == "A man points at a screen."
    assert again.text_input(key="draft:r1:s0:text:1").value == ""


def test_a_tick_travels_with_the_next_edit_into_the_draft(monkeypatch, project, store):
    app = through_stage_one(signed_in(monkeypatch, project))
    click(app, "draft:r1:s0:add")
    app.checkbox(key="draft:r1:s0:cite:1:0").uncheck()  # staged in the browser, no rerun
    app.text_input(key="draft:r1:s0:text:1").input("Extra.").run()
    assert load_draft(store, "ann", "r1", "s0")[1] == {"text": "Extra.", "citations": []}


def test_a_typed_draft_survives_an_undo_of_the_sentence_before(monkeypatch, project, store):
    # the undo's run draws the sentence before, and Streamlit drops the values of fields it does not draw
    app = through_stage_one(signed_in(monkeypatch, project), answers=(True, True, True))
    click(app, "draft:r1:s0:confirm")
    app.text_input(key="draft:r1:s1:text:0").input("A man says hello.").run()
    click(app, "undo")
    click(app, "draft:r1:s0:confirm")
    assert app.text_input(key="draft:r1:s1:text:0").value == "A man says hello."
    assert load_draft(store, "ann", "r1", "s1")[0]["text"] == "A man says hello."


def test_the_stage_two_legend_says_a_key_acts_once_out_of_the_fact_field(monkeypatch, project):
    # the first fact field has the focus: U typed "u" into the fact where the legend promised undo
    app = through_stage_one(signed_in(monkeypatch, project))
    [data] = [d for d in components(app, "murgat_keys") if d.get("legend")]
    pairs = [key for key, _ in data["legend"]]
    assert pairs[:3] == ["Ctrl+Enter", "Esc", "U"]


def test_an_admin_outside_the_pool_is_told_how_to_join_it(monkeypatch, project):
    # the admin lands on Annotate; "an admin adds you to the pool" was written for annotators
    assert "name the pool with yourself in it" in shown_text(signed_in(monkeypatch, project, "boss"))


def test_showing_a_proposal_saves_no_draft(monkeypatch, project, store):
    through_stage_one(signed_in(monkeypatch, project))
    assert load_draft(store, "ann", "r1", "s0") is None


def test_thinking_is_folded_away_and_the_answer_line_shown(monkeypatch, tmp_path):
    text = "<think>Maybe B? (visual, 0:01)</think>\nReasoning: A man waves (visual, 0:01).\nAnswer: B"
    tiny_project(tmp_path / "p", texts=(text,))
    page = "\n".join(h.value for h in signed_in(monkeypatch, tmp_path / "p").html)
    folded = '<details class="murgat-think"><summary>Thinking (folded)</summary>&lt;think&gt;Maybe B?'
    assert folded in page and "&lt;/think&gt;</details>" in page and "Answer: B" in page
    assert '<mark class="murgat-current">A man waves (visual, 0:01).</mark>' in page


def test_a_marked_sentence_inside_thinking_opens_its_fold():
    html = highlighted_html("<think>I see it.</think> Done.", 7, 16)
    assert html.startswith('<details class="murgat-think" open>')


def test_text_without_thinking_has_no_fold():
    assert highlighted_html("A man waves.", 0, 12) == '<mark class="murgat-current">A man waves.</mark>'


def test_the_response_is_shown_whole_not_in_a_scrolling_box():
    css = (APP.parent / "assets" / "styles.css").read_text()
    rule = css.split(".murgat-response {", 1)[1].split("}", 1)[0]
    assert "max-height" not in rule and "overflow" not in rule


def test_a_judges_merged_fact_is_proposed_as_atomic_facts(monkeypatch, project, store):
    merged = Sentence(FIRST_SENTENCE_TWO, True, facts=[Fact("A man says hello and waves.", [0, 1])])
    judge = EvaluationRecord(
        "r1", "judge:x", [Sentence("The man points at the screen (visual, 0:02).", True), merged]
    )
    store.add_records([judge])
    app = through_stage_one(signed_in(monkeypatch, project))
    click(app, "draft:r1:s0:confirm")
    assert app.text_input(key="draft:r1:s1:text:0").value == "A man says hello."
    assert app.text_input(key="draft:r1:s1:text:1").value == "A man waves."


def test_once_every_fact_is_known_the_decision_total_is_exact(monkeypatch, project):
    app = through_stage_one(signed_in(monkeypatch, project))
    click(app, "draft:r1:s0:confirm")
    click(app, "draft:r1:s1:confirm")
    # 3 verifiable + 2 fact lists, then 1 question for the one-citation fact and 3 (all, alone ×2)
    # for each of the two-citation facts 'He says hello.' (audio) and 'He waves.' (visual)... as planned
    where = decision_header(app)["where"]
    assert " of at least " not in where and "5/" in where


def test_a_stage_three_question_can_be_answered_cant_tell_with_a_reason(monkeypatch, project, store):
    app = through_stage_one(signed_in(monkeypatch, project))
    click(app, "draft:r1:s0:confirm")
    click(app, "draft:r1:s1:confirm")
    click(app, "cant_tell")
    click(app, "cant_tell_reason:1")
    fact = Unit.of_fact(0, "The man points at the screen.", [0])
    assert labels(store)[(fact, Task.parse("all"))] == {"cant_tell": "the audio is inaudible"}
