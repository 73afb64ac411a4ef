"""The disputes page, driven through streamlit's AppTest on a tiny project whose labels are
written in code: ann and bob disagree on r1's first sentence (stage 1) and on whether r2's one
fact is supported (stage 3); ada adjudicates, boss is the admin."""

import json

import pytest
from app_support import click, components, press, shown_text, signed_in_app, tiny_project

from annotation.agreement.adjudication import adjudicate
from annotation.protocol.ids import Unit
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from annotation.work.flags import answer_flag, project_flags
from annotation.work.session import flag_for_guidelines

PAGE = "pages/disputes.py"
LIGHT = [{"text": "A red light blinks.", "citations": [0]}]
STAGE_ONE = "r1|s0|verifiable"
STAGE_THREE = f"r2|{Unit.of_fact(0, 'A red light blinks.', [0])}|all"


def write_labels(store) -> None:
    store.events.append("ann", "r1", "s0", "verifiable", True, spent_ms=1500)
    store.events.append("bob", "r1", "s0", "verifiable", False, spent_ms=5000)
    for who, supported in (("ann", True), ("bob", False)):
        store.events.append(who, "r2", "s0", "verifiable", True, spent_ms=4000)
        store.events.append(who, "r2", "s0", "facts", LIGHT, spent_ms=6000)
        store.events.append(
            who, "r2", Unit.of_fact(0, LIGHT[0]["text"], [0]), "all", supported, spent_ms=3000
        )
    # the other sentences, reasoning to both: a response gets a gold record once all of it is decided
    for who in ("ann", "bob"):
        for response_id, unit in (("r1", "s1"), ("r1", "s2"), ("r2", "s1")):
            store.events.append(who, response_id, unit, "verifiable", False, spent_ms=800)


@pytest.fixture
def project(tmp_path):
    write_labels(tiny_project(tmp_path / "p"))
    return tmp_path / "p"


def store_of(project):
    return ProjectStore.open(project)


def disputes_page(monkeypatch, project, name="ada"):
    return signed_in_app(monkeypatch, project, name).switch_page(PAGE).run()


def gold_value(project, response_id, sentence, question):
    return next(
        v
        for v in project_state(store_of(project)).gold.values
        if (v.response_id, v.sentence, v.question) == (response_id, sentence, question)
    )


def dispute_list(app):
    return app.radio(key="dispute_choice")


def listed(app) -> list[tuple[str, str]]:
    """(response, question) of every line of the dispute list."""
    return [(line.split(" · ")[0], line.split(" · ")[2]) for line in dispute_list(app).options]


def opened(app) -> str:
    return app.session_state["dispute_open"]


def choose(app, key: str):
    """A choice in the list (a click on a line, or the arrow keys), then the rerun it causes."""
    return dispute_list(app).set_value(key).run()


def header(app) -> dict:
    """The open dispute's words as the key legend shows them."""
    [legend] = [d for d in components(app, "murgat_keys") if d.get("header")]
    return legend["header"]


def place(app) -> str:
    return f"{header(app)['stage']} · {header(app)['where'].split(' · ')[0]} · {header(app)['where'].split(' · ')[1]}"


def test_annotator_cannot_open_the_disputes_page(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "ann")
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        app.switch_page(PAGE)


def test_disputes_page_refuses_an_annotator_who_reaches_it(monkeypatch, project):
    # Streamlit's legacy mode can run a script under pages/ directly; the page guards itself.
    app = signed_in_app(monkeypatch, project, "ann").run()
    app.switch_page(PAGE).run()
    assert "not available to your role" in app.error[0].value
    assert not [b for b in app.button if b.key and b.key.startswith("rule")]


def test_an_adjudicator_lands_on_the_disputes_page(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "ada")
    assert [t.value for t in app.title] == ["Disputes"]


def test_adjudicator_opens_the_disputes_page_on_the_first_dispute(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    assert listed(app) == [("r1", "verifiable"), ("r2", "all")]
    assert opened(app) == STAGE_ONE and dispute_list(app).value == STAGE_ONE
    assert place(app) == "Stage 1 · verifiable · response r1 · sentence 1"


def test_a_choice_in_the_list_opens_that_dispute(monkeypatch, project):
    app = choose(disputes_page(monkeypatch, project), STAGE_THREE)
    assert opened(app) == STAGE_THREE
    assert place(app) == "Stage 3 · all · response r2 · sentence 1"
    assert header(app)["subject"] == "A red light blinks." and header(app)["wording"] == (
        "Do the cited segments, taken together, support the fact?"
    )


def test_the_list_names_each_disputes_state(monkeypatch, project):
    assert dispute_list(disputes_page(monkeypatch, project)).options == [
        "r1 · sentence 1 · verifiable · 50% · needs a ruling",
        "r2 · sentence 1 · all · 50% · needs a ruling",
    ]


def test_disputes_come_lowest_agreement_first(monkeypatch, project):
    store = store_of(project)
    store.add_user("cy", "annotator", None)
    store.events.append("cy", "r1", "s0", "verifiable", True)  # r1: 2 of 3 agree; r2 stays at 1 of 2
    app = disputes_page(monkeypatch, project)
    assert [response for response, _ in listed(app)] == ["r2", "r1"]


def counts(app) -> str:
    return next(m.value for m in app.markdown if " need a ruling + " in m.value)


def test_the_counts_add_up_disputes_needing_a_ruling_settled_by_a_majority_and_ruled(monkeypatch, project):
    store = store_of(project)
    store.add_user("cy", "annotator", None)
    store.events.append("cy", "r1", "s0", "verifiable", True)  # r1: settled 2 of 3; r2: 1 of 2
    app = disputes_page(monkeypatch, project)
    assert counts(app) == (
        "**2** disputes = **1** need a ruling + **1** settled by a majority, not yet ruled + **0** ruled"
    )
    click(app, "rule:False")  # r1 (lowest agreement first: r2 at 50 % comes first) — r2 is ruled
    assert counts(app) == (
        "**2** disputes = **0** need a ruling + **1** settled by a majority, not yet ruled + **1** ruled"
    )


def test_the_list_can_keep_only_the_disputes_that_need_a_ruling(monkeypatch, project):
    store = store_of(project)
    store.add_user("cy", "annotator", None)
    store.events.append("cy", "r1", "s0", "verifiable", True)  # r1: settled 2 of 3; r2: 1 of 2
    app = disputes_page(monkeypatch, project)
    app.toggle(key="needing_ruling").set_value(True).run()
    assert [response for response, _ in listed(app)] == ["r2"]

    store.events.append("cy", "r2", "s0", "verifiable", True)  # cy settles r2 too
    store.events.append("cy", "r2", "s0", "facts", LIGHT)
    store.events.append("cy", "r2", Unit.of_fact(0, LIGHT[0]["text"], [0]), "all", True)
    app.run()
    assert [s.value for s in app.success] == [
        "None of the disputes here needs a ruling: a majority settles each."
    ]


def values_table(app) -> str:
    return next(h.value for h in app.html if 'class="murgat-values"' in h.value)


def test_each_annotators_value_is_shown_with_their_time_on_the_item(monkeypatch, project):
    table = values_table(disputes_page(monkeypatch, project))
    assert "<tr><th>ann</th><td>Verifiable</td><td>1.5 s on this item · ⚡ under 2 s</td>" in table
    assert "<tr><th>bob</th><td>Not verifiable</td><td>5.0 s on this item</td>" in table
    assert table.index("<th>ann</th>") < table.index("<th>bob</th>")


def test_only_decisions_under_two_seconds_are_flagged(monkeypatch, project):
    assert values_table(disputes_page(monkeypatch, project)).count("under 2 s") == 1


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


def test_an_audio_dispute_has_the_sound_view_of_the_annotate_page(monkeypatch, tmp_path):
    store = tiny_project(tmp_path / "s", with_media=True)
    for who, answer in (("ann", True), ("bob", False)):
        store.events.append(who, "r1", "s1", "verifiable", answer)  # r1's second sentence cites audio
    app = disputes_page(monkeypatch, tmp_path / "s")
    players = [p for data in components(app, "murgat_players") for p in data["players"]]
    audio = next(p for p in players if p["kind"] == "audio")
    assert max(audio["sound"]["maxs"]) > 0.1  # the generated 440 Hz tone


def test_ruling_buttons_carry_their_keys(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    keys = {b.label: b.proto.shortcut.upper() for b in app.button if str(b.key).startswith("rule:")}
    assert keys == {"Rule: Verifiable": "V", "Rule: Not verifiable": "N"}
    app = choose(app, STAGE_THREE)
    keys = {b.label: b.proto.shortcut.upper() for b in app.button if str(b.key).startswith("rule:")}
    assert keys == {"Rule: Yes, supported": "Y", "Rule: No": "N"}


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
    record = next(r for r in project_state(store_of(project)).gold.records if r.response_id == "r1")
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
    assert opened(app) == STAGE_THREE
    first.click().run()
    assert not gold_value(project, "r2", 0, "all").provenance.startswith("adjudicated")


def test_after_a_ruling_the_next_dispute_opens_with_the_notice_beside_it_not_in_a_toast(monkeypatch, project):
    app = click(disputes_page(monkeypatch, project), "rule:True")
    assert opened(app) == STAGE_THREE and listed(app) == [("r2", "all")]
    assert "Ruled ann's version: Verifiable — r1, sentence 1, verifiable." in [s.value for s in app.success]
    assert not app.toast


def test_a_ruling_no_annotator_gave_says_so(monkeypatch, project):
    store_of(project).events.append("bob", "r1", "s0", "verifiable", True)  # both say verifiable now
    store_of(project).set_setting("auto_accept_unanimous", False)  # so r1 still waits for a ruling
    app = click(disputes_page(monkeypatch, project), "rule:False")
    assert "Ruled a version no annotator gave: Not verifiable — r1, sentence 1, verifiable." in [
        s.value for s in app.success
    ]


def test_ruled_disputes_come_back_when_asked_for(monkeypatch, project):
    app = click(disputes_page(monkeypatch, project), "rule:True")
    app.toggle(key="show_ruled").set_value(True).run()
    assert [line.rsplit(" · ", 1)[1] for line in dispute_list(app).options] == ["ruled", "needs a ruling"]
    assert listed(app) == [("r1", "verifiable"), ("r2", "all")]


def test_stages_are_offered_in_protocol_order(monkeypatch, project):
    assert disputes_page(monkeypatch, project).selectbox(key="stage").options == [
        "All stages",
        "Stage 1 · verifiable",
        "Stage 2 · atomic facts",
        "Stage 3 · all",
        "Stage 3 · alone",
        "Stage 3 · without",
    ]


def test_stage_filter_keeps_only_that_stages_disputes_and_puts_its_stable_id_in_the_url(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    app.selectbox(key="stage").select("s3-all").run()
    assert listed(app) == [("r2", "all")]
    assert app.query_params["stage"] == "s3-all"


def test_a_url_with_a_stage_id_opens_that_stages_disputes(monkeypatch, project):
    app = signed_in_app(monkeypatch, project, "boss").switch_page(PAGE)  # an admin lands on Annotate
    app.query_params["stage"] = "s1"
    app.run()
    assert listed(app) == [("r1", "verifiable")]


def test_response_filter_keeps_only_that_responses_disputes_and_the_url_holds_its_id(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    app.selectbox(key="dispute_response").select("r2").run()
    assert [response for response, _ in listed(app)] == ["r2"]
    assert app.query_params["response"] == "r2"


def decomposition_dispute(monkeypatch, project, texts=("A man points.", "A man points at the door.")):
    """ann and bob split r1's second sentence as `texts` say; the page shows the facts disputes.
    r1's first sentence is ruled (not verifiable), so a ruled fact list gives r1 its gold record."""
    store = store_of(project)
    adjudicate(store, "ada", "r1", "s0", "verifiable", False)
    for who, text in zip(("ann", "bob"), texts, strict=True):
        store.events.append(who, "r1", "s1", "verifiable", True)
        store.events.append(who, "r1", "s1", "facts", [{"text": text, "citations": [0]}])
    app = disputes_page(monkeypatch, project)
    app.selectbox(key="stage").select("s2").run()
    return store, app


def test_a_rewording_is_not_a_dispute(monkeypatch, project):
    _, app = decomposition_dispute(monkeypatch, project, ("A man points.", "The man is pointing."))
    assert "No open disputes here." in [s.value for s in app.success]


def test_a_facts_dispute_shows_the_wordings_side_by_side_with_their_authors(monkeypatch, project):
    _, app = decomposition_dispute(monkeypatch, project)
    table = next(d.value for d in app.dataframe if "stated by" in d.value.columns).to_dict("records")
    assert [(row["fact"], row["ann"], row["bob"], row["stated by"]) for row in table] == [
        ("A man points.", "A man points.", "—", "1 of 2"),
        ("A man points at the door.", "—", "A man points at the door.", "1 of 2"),
    ]


def test_a_stage_3_dispute_shows_each_annotators_own_wording(monkeypatch, project):
    store = store_of(project)
    for who, text, answer in (("ann", "A man points.", True), ("bob", "The man is pointing.", False)):
        store.events.append(who, "r1", "s1", "verifiable", True)
        store.events.append(who, "r1", "s1", "facts", [{"text": text, "citations": [0]}])
        store.events.append(who, "r1", Unit.of_fact(1, text, [0]), "all", answer)
    app = disputes_page(monkeypatch, project)
    app.selectbox(key="dispute_response").select("r1").run()
    app.selectbox(key="stage").select("s3-all").run()
    assert "in their words: The man is pointing." in shown_text(app)


def test_fact_list_ruling_takes_the_chosen_annotators_facts_by_its_key(monkeypatch, project):
    store, app = decomposition_dispute(monkeypatch, project)
    assert {b.proto.shortcut.upper() for b in app.button if str(b.key).startswith("rule_facts:")} == {
        "1",
        "2",
    }
    click(app, "rule_facts:bob")
    record = next(r for r in project_state(store).gold.records if r.response_id == "r1")
    assert [(f.text, f.citations) for f in record.sentences[1].facts] == [("A man points at the door.", [0])]
    assert record.sentences[1].provenance["facts"] == "adjudicated:ada"


def test_fact_list_edited_on_the_page_is_ruled_with_its_reason(monkeypatch, project):
    store, app = decomposition_dispute(monkeypatch, project)
    app.button_group(key="ruling_reason").select("guideline gap").run()
    draft = "gold_draft:r1|s1|facts:ann"
    app.text_input(key=f"{draft}:text:0").input("A man points with his hand.").run()
    app.button(key=f"{draft}:confirm").click().run()
    record = next(r for r in project_state(store).gold.records if r.response_id == "r1")
    assert [f.text for f in record.sentences[1].facts] == ["A man points with his hand."]
    assert record.sentences[1].provenance["facts"] == "adjudicated:ada:guideline gap"


def test_a_fact_list_chosen_again_to_start_from_still_holds_its_facts(monkeypatch, project):
    # Streamlit drops the values of fields a run does not draw: choosing bob's list dropped ann's
    store, app = decomposition_dispute(monkeypatch, project)
    draft = "gold_draft:r1|s1|facts:ann"
    app.text_input(key=f"{draft}:text:0").input("A man points with his hand.").run()
    for name in ("bob", "ann"):
        app.selectbox(key="ruling_start").select(name).run()
    assert app.text_input(key=f"{draft}:text:0").value == "A man points with his hand."
    assert app.checkbox(key=f"{draft}:cite:0:0").value is True


def test_typed_facts_are_shown_as_text_never_as_markup(monkeypatch, project):
    typed = "A man **points** <img src=x onerror=alert(1)>."
    store = store_of(project)
    for who, answer in (("ann", True), ("bob", False)):
        store.events.append(who, "r1", "s1", "verifiable", True)
        store.events.append(who, "r1", "s1", "facts", [{"text": typed, "citations": [0]}])
        store.events.append(who, "r1", Unit.of_fact(1, typed, [0]), "all", answer)
    app = disputes_page(monkeypatch, project)
    app.selectbox(key="dispute_response").select("r1").run()
    app.selectbox(key="stage").select("s3-all").run()
    assert not any("<img" in m.value or "**points**" in m.value for m in [*app.markdown, *app.caption])
    assert header(app)["subject"] == typed  # set as text (textContent) by assets/keys.js


def test_a_ruling_reaches_the_projects_gold_records_without_a_publish_step(monkeypatch, project):
    app = disputes_page(monkeypatch, project, "boss")
    click(app, "rule:False")
    current = {r.response_id: r for r in project_state(store_of(project)).gold.records}
    assert sorted(current) == ["r1", "r2"]
    assert current["r1"].sentences[0].provenance["verifiable"] == "adjudicated:boss"
    assert store_of(project).list_records("gold") == []  # derived when read, never stored
    assert "publish_gold" not in [b.key for b in app.button]


def test_unknown_gold_rule_is_explained_not_crashed_on(monkeypatch, project):
    store_of(project).set_setting("gold_rule", "coin toss")
    app = disputes_page(monkeypatch, project)
    assert "Gold settings" in app.error[0].value and "coin toss" in shown_text(app)


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
    assert "r1 · sentence 3 · verifiable · 100% · needs a ruling" in dispute_list(app).options


def test_admin_sets_the_gold_rule(monkeypatch, project):
    app = disputes_page(monkeypatch, project, "boss")
    app.radio(key="gold_rule_input").set_value("unanimity").run()
    assert store_of(project).get_setting("gold_rule") == "unanimity"


def test_page_lists_every_dispute(monkeypatch, project):
    assert [line.split(" · ")[0] for line in dispute_list(disputes_page(monkeypatch, project)).options] == [
        "r1",
        "r2",
    ]


def test_disputes_filter_by_model(monkeypatch, tmp_path):
    write_labels(tiny_project(tmp_path / "m", models=("omni-large", "omni-tiny")))
    app = disputes_page(monkeypatch, tmp_path / "m")
    app.multiselect(key="dispute_models").set_value(["omni-tiny"]).run()
    assert [response for response, _ in listed(app)] == ["r2"]


def test_a_project_without_models_shows_no_model_filter(monkeypatch, project):
    app = disputes_page(monkeypatch, project)
    assert "dispute_models" not in [m.key for m in app.multiselect]


def test_the_downloads_say_how_many_labelled_responses_have_no_gold_record_yet(monkeypatch, project):
    assert sorted(project_state(store_of(project)).gold.awaiting) == ["r1"]  # its first sentence
    assert (
        "Gold records: 1 labelled response(s) await a ruling or labels on stage 1 or 2 (Disputes): "
        "no gold record yet, left out."
    ) in shown_text(disputes_page(monkeypatch, project))


# -- the annotators' flags ----------------------------------------------------------------------


def flags_expander(app):
    return next(e for e in app.expander if e.label.startswith("Flags from annotators"))


def test_an_adjudicator_sees_an_annotators_flag_as_text_with_who_and_where(monkeypatch, project):
    typed = "Is **waving** <b>an action</b>? [x](http://evil.example)"
    flag_for_guidelines(store_of(project), "ann", "r1", typed, unit=Unit.of_sentence(1))
    app = disputes_page(monkeypatch, project)
    panel = flags_expander(app)
    assert panel.label == "Flags from annotators (1 flag, 1 open)"
    [caption] = [c.value for c in panel.caption]
    assert caption.startswith("ann · ") and caption.endswith(" UTC · r1, sentence 2")
    [text] = [h.value for h in panel.get("html")]
    assert (
        text
        == '<div class="murgat-text">Is **waving** &lt;b&gt;an action&lt;/b&gt;? [x](http://evil.example)</div>'
    )


def test_an_admin_sees_every_flag_newest_first(monkeypatch, project):
    store = store_of(project)
    flag_for_guidelines(store, "ann", "r1", "Is waving an action?")
    flag_for_guidelines(store, "bob", "r2", "Which clip counts?")
    panel = flags_expander(disputes_page(monkeypatch, project, "boss"))
    assert panel.label == "Flags from annotators (2 flags, 2 open)"
    assert [h.value for h in panel.get("html")] == [
        '<div class="murgat-text">Which clip counts?</div>',
        '<div class="murgat-text">Is waving an action?</div>',
    ]


def test_an_adjudicator_answers_a_flag_and_it_shows_with_its_answer_as_text(monkeypatch, project):
    flag_id = flag_for_guidelines(store_of(project), "ann", "r1", "Is waving an action?")
    app = disputes_page(monkeypatch, project)
    flags_expander(app).text_area(key=f"flag_answer_{flag_id}").input("Yes: **see** guideline 2.")
    app = press(app, "Mark answered")
    (flag,) = project_flags(store_of(project))
    assert (flag.answer.who, flag.answer.text) == ("ada", "Yes: **see** guideline 2.")
    panel = flags_expander(app)
    assert panel.label == "Flags from annotators (1 flag, 0 open)"
    assert [c.value for c in panel.caption][1].startswith("Answered by ada · ")
    assert [h.value for h in panel.get("html")][
        1
    ] == '<div class="murgat-text">Yes: **see** guideline 2.</div>'
    assert not [b for b in app.button if b.label == "Mark answered"]  # nothing left to answer


def test_open_flags_come_before_answered_ones(monkeypatch, project):
    store = store_of(project)
    flag_for_guidelines(store, "ann", "r1", "Is waving an action?")
    newer = flag_for_guidelines(store, "bob", "r2", "Which clip counts?")
    answer_flag(store, "ada", newer, "The first.")
    panel = flags_expander(disputes_page(monkeypatch, project))
    assert panel.label == "Flags from annotators (2 flags, 1 open)"
    assert [h.value for h in panel.get("html")] == [
        '<div class="murgat-text">Is waving an action?</div>',
        '<div class="murgat-text">Which clip counts?</div>',
        '<div class="murgat-text">The first.</div>',
    ]
    assert [b.label for b in panel.get("button")] == ["Mark answered"]  # the open one's


def test_an_annotator_sees_no_one_elses_flags(monkeypatch, project):
    flag_for_guidelines(store_of(project), "bob", "r1", "Bob asks: is waving an action?")
    app = signed_in_app(monkeypatch, project, "ann").run()  # lands on Annotate
    assert "Bob asks" not in shown_text(app)
    assert not [e for e in app.expander if e.label.startswith("Flags from annotators")]
    app.switch_page(PAGE).run()  # reached anyway (legacy mode): refused, nothing of the flags drawn
    assert "not available to your role" in app.error[0].value and "Bob asks" not in shown_text(app)
    assert not [e for e in app.expander if e.label.startswith("Flags from annotators")]
