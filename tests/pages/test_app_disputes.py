"""The disputes page, driven through streamlit's AppTest on a tiny project whose labels are
written in code: ann and bob disagree on r1's first sentence (stage 1) and on whether r2's one
fact is supported (stage 3); ada adjudicates, boss is the admin."""

import json

import pytest
from app_support import click, open_app, sign_in, tiny_project

from annotation.agreement.gold import gold_from_store, gold_records
from annotation.protocol.ids import fact_unit
from annotation.store.project_store import ProjectStore

PAGE = "pages/disputes.py"
LIGHT = [{"text": "A red light blinks.", "citations": [0]}]
STAGE_ONE = "r1|s0|verifiable"
STAGE_THREE = f"r2|{fact_unit(0, 'A red light blinks.', [0])}|all"


def write_labels(store) -> None:
    store.events.append("ann", "r1", "s0", "verifiable", True, spent_ms=1500)
    store.events.append("bob", "r1", "s0", "verifiable", False, spent_ms=5000)
    for who, supported in (("ann", True), ("bob", False)):
        store.events.append(who, "r2", "s0", "verifiable", True, spent_ms=4000)
        store.events.append(who, "r2", "s0", "facts", LIGHT, spent_ms=6000)
        store.events.append(who, "r2", fact_unit(0, LIGHT[0]["text"], [0]), "all", supported, spent_ms=3000)


@pytest.fixture
def project(tmp_path):
    write_labels(tiny_project(tmp_path / "p"))
    return tmp_path / "p"


def store_of(project):
    return ProjectStore.open(project)


def disputes_page(monkeypatch, project, name="ada"):
    return sign_in(open_app(monkeypatch, project), name).switch_page(PAGE).run()


def gold_value(project, response_id, sentence, question):
    return next(
        v
        for v in gold_from_store(store_of(project)).values
        if (v.response_id, v.sentence, v.question) == (response_id, sentence, question)
    )


def test_annotator_cannot_open_the_disputes_page(monkeypatch, project):
    app = sign_in(open_app(monkeypatch, project), "ann")
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        app.switch_page(PAGE)


def test_disputes_page_refuses_an_annotator_who_reaches_it(monkeypatch, project):
    # Streamlit's legacy mode can run a script under pages/ directly; the page guards itself.
    app = sign_in(open_app(monkeypatch, project), "ann").run()
    app.switch_page(PAGE).run()
    assert "not available to your role" in app.error[0].value
    assert not [b for b in app.button if b.key and b.key.startswith("rule")]


def test_adjudicator_opens_the_disputes_page_on_the_first_dispute(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    assert [t.value for t in app.title] == ["Disputes"]
    assert app.selectbox(key="dispute_choice").options == [
        "r1 · sentence 1 · verifiable · 50% agree · ⚡ ann",
        "r2 · sentence 1 · all · 50% agree",
    ]


def test_disputes_come_lowest_agreement_first(monkeypatch, project):
    store = store_of(project)
    store.add_user("cy", "annotator", None)
    store.events.append("cy", "r1", "s0", "verifiable", True)  # r1: 2 of 3 agree; r2 stays at 1 of 2
    app = disputes_page(monkeypatch, project)
    assert [o.split(" · ")[0] for o in app.selectbox(key="dispute_choice").options] == ["r2", "r1"]


def test_each_annotators_value_is_shown_with_their_time_on_the_item(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    boxes = [m.value for m in app.markdown]
    assert (
        boxes.index("**ann**")
        < boxes.index("Verifiable")
        < boxes.index("**bob**")
        < boxes.index("Not verifiable")
    )
    captions = [c.value for c in app.caption]
    assert "1.5 s on this item · ⚡ under 2 s" in captions and "5.0 s on this item" in captions


def test_only_decisions_under_two_seconds_are_flagged(monkeypatch, project):
    captions = [c.value for c in disputes_page(monkeypatch, project).caption]
    assert sum("under 2 s" in c for c in captions) == 1


def test_dispute_plays_its_cited_frame_and_clip_with_the_annotation_player(monkeypatch, tmp_path):
    write_labels(tiny_project(tmp_path / "m", with_media=True))
    app = disputes_page(monkeypatch, tmp_path / "m")
    [players] = [
        json.loads(e.proto.json)
        for e in app.get("bidi_component")
        if e.proto.component_name == "murgat_players"
    ]
    [player] = players["players"]  # a visual point: a clip around it, its frame as the poster
    assert player["kind"] == "video" and player["poster"]
    assert (player["clip_start_s"], player["cited_start_s"], player["clip_end_s"]) == pytest.approx(
        (1.0, 2.0, 3.0)
    )


def test_ruling_made_on_the_page_is_in_gold_with_adjudicator_and_reason(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    app.button_group(key="ruling_reason").select("annotator error").run()
    click(app, "rule:True")
    ruled = gold_value(project, "r1", 0, "verifiable")
    assert (ruled.value, ruled.provenance) == (True, "adjudicated:ada:annotator error")


def test_ruling_reaches_the_gold_record_provenance(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    app.button_group(key="ruling_reason").select("ambiguous media").run()
    click(app, "rule:False")
    record = next(r for r in gold_from_store(store_of(project)).records if r.response_id == "r1")
    assert record.sentences[0].verifiable is False
    assert record.sentences[0].provenance["verifiable"] == "adjudicated:ada:ambiguous media"


def test_ruling_without_a_reason_names_the_adjudicator_only(monkeypatch, project):
    click(disputes_page(monkeypatch, project), "rule:False")
    assert gold_value(project, "r1", 0, "verifiable").provenance == "adjudicated:ada"


def test_reason_tag_does_not_carry_over_to_the_next_ruling(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    app.button_group(key="ruling_reason").select("guideline gap").run()
    click(app, "rule:True")
    click(app, "rule:True")  # r2's fact, now shown
    assert gold_value(project, "r2", 0, "all").provenance == "adjudicated:ada"


def test_a_second_click_on_a_rulings_button_never_rules_the_dispute_shown_next(monkeypatch, project):
    # The button from the first dispute, clicked again as the page moves on (a double click).
    app = disputes_page(monkeypatch, project)
    first = next(b for b in app.button if b.label == "Rule: Verifiable")
    click(app, "rule:True")
    assert app.selectbox(key="dispute_choice").value == STAGE_THREE
    first.click().run()
    assert not gold_value(project, "r2", 0, "all").provenance.startswith("adjudicated")


def test_ruled_dispute_leaves_the_list_and_the_next_one_is_shown(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    click(app, "rule:True")
    assert app.selectbox(key="dispute_choice").value == STAGE_THREE
    assert "Ruled “Verifiable” on r1, sentence 1, verifiable." in [t.value for t in app.toast]


def test_ruled_disputes_come_back_when_asked_for(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    click(app, "rule:True")
    app.toggle(key="show_ruled").set_value(True).run()
    assert (
        "r1 · sentence 1 · verifiable · 50% agree · ⚡ ann · ruled"
        in app.selectbox(key="dispute_choice").options
    )


def test_stage_filter_keeps_only_that_stages_disputes(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    app.selectbox(key="stage").select("entailment_all").run()
    assert app.selectbox(key="dispute_choice").options == ["r2 · sentence 1 · all · 50% agree"]


def test_response_filter_keeps_only_that_responses_disputes(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    app.selectbox(key="dispute_response").select("r2").run()
    assert [o.split(" · ")[0] for o in app.selectbox(key="dispute_choice").options] == ["r2"]


def decomposition_dispute(monkeypatch, project):
    """ann and bob split r1's second sentence differently; the page shows that dispute."""
    store = store_of(project)
    for who, text in (("ann", "A man points."), ("bob", "A man points at the screen.")):
        store.events.append(who, "r1", "s1", "verifiable", True)
        store.events.append(who, "r1", "s1", "facts", [{"text": text, "citations": [0]}])
    app = disputes_page(monkeypatch, project)
    app.selectbox(key="stage").select("decomposition").run()
    return store, app


def test_fact_list_ruling_takes_the_chosen_annotators_facts(monkeypatch, project):
    store, app = decomposition_dispute(monkeypatch, project)
    click(app, "rule_facts:bob")
    record = next(r for r in gold_from_store(store).records if r.response_id == "r1")
    assert [(f.text, f.citations) for f in record.sentences[1].facts] == [
        ("A man points at the screen.", [0])
    ]
    assert record.sentences[1].provenance["facts"] == "adjudicated:ada"


def test_fact_list_edited_on_the_page_is_ruled_with_its_reason(monkeypatch, project):
    store, app = decomposition_dispute(monkeypatch, project)
    app.button_group(key="ruling_reason").select("guideline gap").run()
    draft = "gold_draft:r1|s1|facts:ann"
    app.text_input(key=f"{draft}:text:0").input("A man points with his hand.").run()
    app.button(key=f"{draft}:confirm").click().run()
    record = next(r for r in gold_from_store(store).records if r.response_id == "r1")
    assert [f.text for f in record.sentences[1].facts] == ["A man points with his hand."]
    assert record.sentences[1].provenance["facts"] == "adjudicated:ada:guideline gap"


def test_a_ruling_reaches_the_projects_gold_records_without_a_publish_step(monkeypatch, project):
    app = disputes_page(monkeypatch, project, "boss")
    click(app, "rule:True")
    current = {r.response_id: r for r in gold_records(store_of(project))}
    assert sorted(current) == ["r1", "r2"]
    assert current["r1"].sentences[0].provenance["verifiable"] == "adjudicated:boss"
    assert store_of(project).list_records("gold") == []  # derived when read, never stored
    assert "publish_gold" not in [b.key for b in app.button]


def test_unknown_gold_rule_is_explained_not_crashed_on(monkeypatch, project):
    store_of(project).set_setting("gold_rule", "coin toss")
    app = disputes_page(monkeypatch, project)
    assert "coin toss" in app.error[0].value and "Gold settings" in app.error[0].value


def test_no_open_disputes_says_so(monkeypatch, tmp_path):
    tiny_project(tmp_path / "empty")
    app = disputes_page(monkeypatch, tmp_path / "empty")
    assert "No disputes" in app.success[0].value


def test_gold_settings_are_for_admins_only(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    assert "auto_accept_input" not in [t.key for t in app.toggle]
    assert "gold_rule_input" not in [r.key for r in app.radio]


def test_admin_turning_off_auto_acceptance_sends_unanimous_units_to_disputes(monkeypatch, project):
    store = store_of(project)
    store.events.append("ann", "r1", "s2", "verifiable", False)
    store.events.append("bob", "r1", "s2", "verifiable", False)
    app = disputes_page(monkeypatch, project, "boss")
    app.toggle(key="auto_accept_input").set_value(False).run()
    assert store.get_setting("auto_accept_unanimous") is False
    assert "r1 · sentence 3 · verifiable · 100% agree" in app.selectbox(key="dispute_choice").options


def test_admin_sets_the_gold_rule(monkeypatch, project):
    app = disputes_page(monkeypatch, project, "boss")
    app.radio(key="gold_rule_input").set_value("unanimity").run()
    assert store_of(project).get_setting("gold_rule") == "unanimity"


def test_page_lists_every_dispute_in_a_table(monkeypatch, project):
    table = disputes_page(monkeypatch, project).dataframe[0].value
    assert list(table["response"]) == ["r1", "r2"]
    assert list(table["values"]) == ["ann: Verifiable, bob: Not verifiable", "ann: Yes, supported, bob: No"]
