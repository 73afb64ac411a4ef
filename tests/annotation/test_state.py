"""The project state (annotation/state.py): one derivation per revision, the same gold, annotator
and judge records as the functions it replaced, and a revision that moves with every change."""

from __future__ import annotations

import pytest

from annotation.agreement.adjudication import adjudicate, rulings_from_events
from annotation.agreement.gold import derive_gold, imported_gold_values
from annotation.protocol.citations import Citation
from annotation.protocol.ids import Unit
from annotation.protocol.records import EvaluationRecord, Response, Sentence
from annotation.store.project_store import ProjectStore
from annotation.work.labels import annotator_records

TEXT = "The man points (visual, 0:01; audio, 0:02-0:04)."
CITES = [Citation("visual", 1.0, 1.0), Citation("audio", 2.0, 4.0)]


# -- the reference: how gold, annotators and judges were read before the project state ----------
def records_as_before(store):
    """(gold values by response, gold records, annotator records, judge records) exactly as
    `gold_from_store`, `gold_records` and `project_records` derived them before the state."""
    labels = store.events.current_labels()
    spent = {(e.who, e.response_id, e.unit, e.task): e.spent_ms for e in labels}
    rulings = rulings_from_events(labels)
    rule = store.get_setting("gold_rule", "majority")
    settings = {
        "rule": rule,
        "auto_accept_unanimous": bool(store.get_setting("auto_accept_unanimous", True)),
        "spent_ms": spent,
    }
    own = annotator_records(store)
    first = derive_gold(own, rulings, **settings)
    about_gold = annotator_records(store, None, {r.response_id: r for r in first.records})
    gold = first if about_gold == own else derive_gold(own, rulings, answers=about_gold, **settings)
    have = {r.response_id for r in gold.records}
    order = {rid: n for n, rid in enumerate(store.response_ids())}
    imported = [r for r in store.list_records("gold") if r.response_id not in have]
    records = sorted(gold.records + imported, key=lambda r: order.get(r.response_id, 0))
    humans = annotator_records(store, gold_by_response={r.response_id: r for r in records})
    by_response: dict[str, list] = {}
    for value in gold.values:
        by_response.setdefault(value.response_id, []).append(value)
    for record in imported:  # since the state: an imported gold record's values are listed too
        by_response[record.response_id] = imported_gold_values(record)
    return by_response, records, humans, store.list_records("judge")


def records_of_state(state):
    by_response: dict[str, list] = {}
    for value in state.gold.values:
        by_response.setdefault(value.response_id, []).append(value)
    return by_response, state.gold.records, state.annotators, state.judges


@pytest.fixture
def demo(demo_copy):
    store = ProjectStore.open(demo_copy)
    yield store
    store.close()


def staged_campaign(directory) -> ProjectStore:
    """Two responses, three annotators; on r1 alice's own split differs from the gold fact bob and
    carol state, and she answers stage 3 about the gold fact (a staged campaign's second pass);
    ada rules on r1's second sentence; r9 nobody labelled has imported gold; r2 has an imported
    annotator record only; there is one judge record."""
    store = ProjectStore.open(directory, create=True)
    second = Sentence("So B is right.", None, [])
    store.add_responses(
        [
            (Response("r1", TEXT + " So B is right."), [Sentence(TEXT, None, CITES), second]),
            (Response("r2", "Plain."), [Sentence("Plain.", None, [])]),
            (Response("r9", "Unlabelled."), [Sentence("Unlabelled.", None, [])]),
        ]
    )
    for name, role in (
        ("alice", "annotator"),
        ("bob", "annotator"),
        ("carol", "annotator"),
        ("ada", "adjudicator"),
    ):
        store.add_user(name, role, None)
    gold_fact = {"text": "A man points.", "citations": [0]}
    for name in ("alice", "bob", "carol"):
        store.events.append(name, "r1", "s0", "verifiable", True, spent_ms=1500)
        store.events.append(name, "r1", "s1", "verifiable", name == "carol", spent_ms=2500)
    store.events.append("alice", "r1", "s0", "facts", [{"text": "Someone gestures.", "citations": [0]}])
    store.events.append("bob", "r1", "s0", "facts", [gold_fact])
    store.events.append("carol", "r1", "s0", "facts", [gold_fact])
    unit = Unit.of_fact(0, gold_fact["text"], [0])
    for name, answer in (("alice", False), ("bob", False), ("carol", True)):
        store.events.append(name, "r1", unit, "all", answer)
    adjudicate(store, "ada", "r1", "s1", "verifiable", True, "annotator error")
    store.add_records(
        [
            EvaluationRecord("r9", "gold", [Sentence("Unlabelled.", False)]),
            EvaluationRecord("r2", "human:dana", [Sentence("Plain.", False)]),
            EvaluationRecord(
                "r1", "judge:j1", [Sentence(TEXT, True, CITES), Sentence("So B is right.", False)]
            ),
        ]
    )
    return store


@pytest.fixture
def staged(tmp_path):
    store = staged_campaign(tmp_path / "staged")
    yield store
    store.close()


def test_the_demo_state_holds_the_gold_annotators_and_judges_read_before(demo):
    from annotation.state import project_state

    before = records_as_before(demo)
    assert records_of_state(project_state(demo)) == before
    assert len(before[1]) == 24 and len(before[2]) == 72 and before[3]


def test_a_staged_campaign_state_counts_the_second_pass_as_before(staged):
    from annotation.state import project_state

    before = records_as_before(staged)
    state = project_state(staged)
    assert records_of_state(state) == before
    (answered,) = [v for v in state.gold.values if v.question == "all"]
    assert answered.values == {"alice": False, "bob": False, "carol": True}  # alice's is the second pass
    assert [r.response_id for r in state.gold.records] == ["r1", "r2", "r9"]


def test_the_same_revision_gives_the_same_state_object(staged):
    from annotation.state import project_state

    first = project_state(staged)
    again = ProjectStore.open(staged.directory)  # another store object on the same file
    assert project_state(staged) is first and project_state(again) is first


def test_a_project_read_once_is_in_memory_whatever_its_revision(staged):
    from annotation.state import project_state, state_in_memory

    assert not state_in_memory(staged)  # a new project file: the first read reads every response
    project_state(staged)
    assert state_in_memory(staged)
    staged.events.append("alice", "r1", Unit.of_sentence(0), "verifiable", True)
    assert state_in_memory(staged)  # a newer revision derives from the one held


def test_a_label_a_setting_and_an_import_each_move_the_revision(staged):
    from annotation.state import project_state

    seen = [project_state(staged).revision]
    staged.events.append("dana", "r2", "s0", "verifiable", True)
    seen.append(project_state(staged).revision)
    staged.set_setting("pad_s", 2.0)
    seen.append(project_state(staged).revision)
    staged.add_records([EvaluationRecord("r2", "judge:j1", [Sentence("Plain.", False)])])
    seen.append(project_state(staged).revision)
    staged.add_responses([(Response("r3", "New."), [Sentence("New.", None, [])])])
    seen.append(project_state(staged).revision)
    assert len(set(seen)) == 5
    assert project_state(staged).settings.pad_s == 2.0


def test_a_new_label_rederives_only_its_response_and_equals_a_cold_derivation(demo):
    from annotation.state import derive_state, project_state

    before = project_state(demo)
    rid = demo.response_ids()[0]
    demo.events.append("alice", rid, "s0", "verifiable", False)
    after = project_state(demo)
    assert after is not before
    untouched = [r for r in after.responses if r != rid]
    assert all(after.responses[r] is before.responses[r] for r in untouched)
    assert after.responses[rid] is not before.responses[rid]
    assert records_of_state(after) == records_of_state(derive_state(demo))
    assert records_of_state(after) == records_as_before(demo)


def test_a_changed_gold_rule_rederives_every_response(staged):
    from annotation.state import project_state

    before = project_state(staged)
    staged.set_setting("gold_rule", "unanimity")
    after = project_state(staged)
    assert after.gold.rule == "unanimity"
    assert all(after.responses[r] is not before.responses[r] for r in after.responses)
    assert records_of_state(after) == records_as_before(staged)


def test_an_unknown_gold_rule_is_refused_naming_the_setting(staged):
    from annotation.state import project_state

    staged.set_setting("gold_rule", "loudest")
    with pytest.raises(ValueError, match="gold_rule = 'loudest'"):
        project_state(staged)


def test_an_undo_takes_the_label_out_of_the_state(staged):
    from annotation.state import project_state

    staged.events.append("dana", "r2", "s0", "verifiable", True)
    assert any(e.who == "dana" for e in project_state(staged).labels)
    staged.events.undo_last("dana")
    state = project_state(staged)
    assert not any(e.who == "dana" for e in state.labels)
    assert records_of_state(state) == records_as_before(staged)


def test_one_imported_gold_record_and_no_labels_is_the_gold_of_every_reader(tmp_path):
    from annotation.formats.gold_csv import read_gold_csv, write_gold_csv
    from annotation.project import export_records
    from annotation.state import project_state
    from calibration.sweep.inputs import inputs_from_project

    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response("r9", "Unlabelled."), [Sentence("Unlabelled.", None, [])])])
    imported = EvaluationRecord("r9", "gold", [Sentence("Unlabelled.", False)])
    store.add_records([imported])
    assert project_state(store).gold.records == [imported]  # what `annotation gold` writes
    assert export_records(store, "gold") == [imported]
    assert inputs_from_project(store).gold == [imported]
    # its values too (QA: the CSV of a gold imported alone was empty while its JSONL held the records)
    assert write_gold_csv(project_state(store).gold.values, tmp_path / "gold.csv") == 1
    [row] = read_gold_csv(tmp_path / "gold.csv")
    assert (row["response_id"], row["question"], row["value"], row["provenance"]) == (
        "r9", "verifiable", "false", "imported"
    )  # fmt: skip


def test_exporting_gold_from_a_project_without_gold_gives_no_record(tmp_path):
    from annotation.project import export_records

    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response("r1", "Plain."), [Sentence("Plain.", None, [])])])
    store.add_records([EvaluationRecord("r1", "judge:j1", [Sentence("Plain.", False)])])
    assert export_records(store, "gold") == []
    assert export_records(store, "human") == []
    assert [r.source for r in export_records(store, "all")] == ["judge:j1"]


def test_threads_reading_one_revision_share_one_state(staged):
    from concurrent.futures import ThreadPoolExecutor

    from annotation.state import project_state

    staged.events.append("dana", "r2", "s0", "verifiable", True)  # a revision nobody has read yet
    with ThreadPoolExecutor(max_workers=4) as pool:  # each thread has its own sqlite connection
        states = list(pool.map(lambda _: project_state(staged), range(8)))
    assert all(state is states[0] for state in states)
    assert any(e.who == "dana" for e in states[0].labels)
