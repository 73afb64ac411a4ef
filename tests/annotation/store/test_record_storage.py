"""Records are stored without what their response already holds (sentence texts, citations,
offsets), counted and filtered in SQL, and a file from before keeps every record, compacted on
open: what goes in comes out equal."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.protocol.citations import Citation
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Response, Sentence
from annotation.store.database import FILE_OWNER, Database
from annotation.store.project_store import DB_NAME, MIGRATIONS, ProjectStore

VISUAL = Citation("visual", 1.0, 2.5)
BROKEN = Citation("audio", None, None, valid=False, raw="audio, 1:99", reason="seconds must be below 60")
SPLIT = [
    Sentence("The man points at the sign.", None, [VISUAL, BROKEN], start=0, end=27),
    Sentence("He smiles.", None, [], start=28, end=38),
]


def judged(source="judge:a_b_c", rid="r1"):
    return EvaluationRecord(
        rid,
        source,
        [
            Sentence(
                "The man points at the sign.",
                True,
                [VISUAL, BROKEN],
                [Fact("A man points.", [0, 1], Entailment(True, [True, False], [None, False]))],
                0,
                27,
            ),
            Sentence("He smiles.", None, [], [], 28, 38),
        ],
    )


def new_store(tmp_path, name="p"):
    store = ProjectStore.open(tmp_path / name, create=True)
    store.add_responses(
        [
            (Response("r1", "The man points at the sign. He smiles."), SPLIT),
            (Response("r2", "Nothing here."), [Sentence("Nothing here.", None, [], start=0, end=13)]),
        ]
    )
    return store


def stored_json(store, source):
    return json.loads(
        store.database.connection.execute("SELECT record FROM records WHERE source = ?", [source]).fetchone()[
            0
        ]
    )


def test_a_judge_record_comes_back_equal_without_its_sentences_texts_and_citations_stored(tmp_path):
    store = new_store(tmp_path)
    store.add_records([judged()])
    assert store.list_records("judge") == [judged()]
    raw = stored_json(store, "judge:a_b_c")
    assert "The man points at the sign." not in json.dumps(raw)
    assert "1:99" not in json.dumps(raw)  # the invalid citation is the response's, kept there
    assert raw["sentences"][0]["facts"][0]["text"] == "A man points."


def test_what_differs_from_the_response_is_stored_and_comes_back(tmp_path):
    store = new_store(tmp_path)
    odd = EvaluationRecord(
        "r1",
        "judge:x",
        [
            Sentence("Another wording.", False, [VISUAL], [], None, None),  # other text, no offsets
            Sentence("He smiles.", None, [BROKEN], [], 28, 38),  # other citations
            Sentence("A third sentence the response lacks.", True, [], [], 40, 50),
        ],
    )
    store.add_records([odd])
    assert store.list_records(source="judge:x") == [odd]
    assert store.list_records(source="judge:x")[0].sentences[0].start is None


def test_records_of_one_response_read_together_each_get_their_own_list_of_its_citations(tmp_path):
    store = new_store(tmp_path)
    store.add_records([judged("judge:a"), judged("judge:b")])
    first, second = store.list_records("judge")
    assert (first, second) == (judged("judge:a"), judged("judge:b"))
    first.sentences[0].citations.pop()
    assert second.sentences[0].citations == [VISUAL, BROKEN]


def test_importing_the_same_record_twice_appends_it_once(tmp_path):
    store = new_store(tmp_path)
    assert store.add_records([judged()]) == 1
    assert store.add_records([judged()]) == 0


def test_within_one_import_a_record_is_compared_with_the_one_in_force_just_before_it(tmp_path):
    store = new_store(tmp_path)
    changed = judged()
    changed.sentences[0].verifiable = False
    # the same twice: once; then another, and the first again: each differs from the one in force
    assert store.add_records([judged(), judged(), changed, judged(), judged("judge:other")]) == 4
    assert store.list_records(source="judge:a_b_c") == [judged()]
    assert store.add_records([judged(), judged("judge:other")]) == 0


def test_records_are_counted_per_source_in_sql(tmp_path):
    store = new_store(tmp_path)
    store.add_records([judged("judge:a"), judged("judge:a", "r2"), judged("judge:b"), judged("human:ann")])
    store.add_records([judged("judge:b")])  # the same record again: still one
    assert store.record_counts("judge") == {"judge:a": 2, "judge:b": 1}
    assert store.record_counts() == {"judge:a": 2, "judge:b": 1, "human:ann": 1}


def test_each_sources_responses_are_listed_by_id_from_the_index_alone(tmp_path):
    store = new_store(tmp_path)
    store.add_records([judged("judge:b", "r2"), judged("judge:a", "r2"), judged("judge:a"), judged("gold")])
    store.add_records([judged("judge:a", "r2")])  # the same record again: still listed once
    assert store.record_responses("judge") == {"judge:a": ["r1", "r2"], "judge:b": ["r2"]}
    plan = " ".join(
        row[-1]
        for row in store.database.connection.execute(
            "EXPLAIN QUERY PLAN SELECT DISTINCT source, response_id FROM records "
            "WHERE source >= ? AND source < ? ORDER BY source, response_id",
            ["judge:", "judge;"],
        )
    )
    assert "COVERING INDEX" in plan and "TEMP B-TREE" not in plan, plan


def test_records_can_be_read_for_a_set_of_responses(tmp_path):
    store = new_store(tmp_path)
    store.add_records([judged("judge:a"), judged("judge:a", "r2"), judged("gold", "r2")])
    assert [(r.source, r.response_id) for r in store.list_records("judge", response_ids={"r2"})] == [
        ("judge:a", "r2")
    ]
    assert [(r.source, r.response_id) for r in store.list_records(response_ids=["r2", "r1"])] == [
        ("gold", "r2"),
        ("judge:a", "r1"),
        ("judge:a", "r2"),
    ]
    assert store.list_records(response_ids=[]) == []


def test_the_record_queries_search_an_index_not_the_table(tmp_path):
    store = new_store(tmp_path)
    conn = store.database.connection
    for where, params in (
        ("response_id IN (SELECT value FROM json_each(?))", ['["r1"]']),
        ("source >= ? AND source < ?", ["judge:", "judge;"]),
    ):
        plan = " ".join(
            row[-1]
            for row in conn.execute(
                f"EXPLAIN QUERY PLAN SELECT MAX(id) FROM records WHERE {where} GROUP BY source, response_id",
                params,
            )
        )
        assert "USING" in plan and "INDEX" in plan, plan


def test_a_file_from_before_keeps_its_records_and_stores_them_compact(tmp_path):
    directory = tmp_path / "old"
    directory.mkdir()
    old = Database(directory / DB_NAME)
    old.migrate(FILE_OWNER, MIGRATIONS[:4])
    old.write(
        lambda c: (
            c.execute(
                "INSERT INTO responses(response_id, position, text, sentences, imported_at) VALUES (?,?,?,?,?)",
                [
                    "r1",
                    0,
                    "The man points at the sign. He smiles.",
                    json.dumps([s.to_dict() for s in SPLIT]),
                    "t",
                ],
            ),
            c.execute(
                "INSERT INTO records(response_id, source, record, created_at) VALUES (?,?,?,?)",
                ["r1", "judge:a_b_c", json.dumps(judged().to_dict()), "t"],
            ),
        )
    )
    old.close()
    store = ProjectStore.open(directory)
    assert store.schema_version() == len(MIGRATIONS)
    assert store.list_records() == [judged()]
    assert "The man points at the sign." not in json.dumps(stored_json(store, "judge:a_b_c"))
    assert store.add_records([judged()]) == 0  # the migrated row is the record in force


# -- any record: what goes in comes out equal ---------------------------------------------------
maybe_bool = st.sampled_from([None, True, False])
citations = st.lists(st.sampled_from([VISUAL, BROKEN, Citation("audio", 3.0, 4.0)]), max_size=3)


@st.composite
def sentences(draw):
    cites = draw(citations)
    facts = [
        Fact(
            draw(st.text(max_size=12)),
            draw(st.lists(st.integers(0, 3), max_size=3)),
            draw(
                st.none()
                | st.builds(
                    Entailment, maybe_bool, st.lists(maybe_bool, max_size=3), st.lists(maybe_bool, max_size=3)
                )
            ),
        )
        for _ in range(draw(st.integers(0, 2)))
    ]
    offsets = draw(st.sampled_from([(None, None), (0, 27), (28, 38)]))
    text = draw(st.sampled_from(["The man points at the sign.", "He smiles.", "Other."]))
    return Sentence(text, draw(maybe_bool), cites, facts, *offsets)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(sentences(), max_size=4), st.sampled_from(["r1", "r2"]))
def test_any_record_comes_back_as_it_went_in(tmp_path_factory, record_sentences, rid):
    store = new_store(tmp_path_factory.mktemp("any"))
    record = EvaluationRecord(rid, "judge:any", record_sentences)
    store.add_records([record])
    assert store.list_records(source="judge:any") == [EvaluationRecord.from_dict(record.to_dict())]


def test_compacting_again_changes_nothing(tmp_path):
    store = new_store(tmp_path)
    store.add_records([judged()])
    before = stored_json(store, "judge:a_b_c")
    store.database.connection.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
    store.close()
    again = ProjectStore.open(tmp_path / "p")
    assert stored_json(again, "judge:a_b_c") == before
    assert again.list_records() == [judged()]
