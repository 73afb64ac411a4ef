"""A record's score form (annotation/store/record_form.py): what scoring reads of a record, stored
beside it on import, read back as it went in; a record the scorer rejects has none and names where;
a file from before forms were stored keeps its records and gets forms for new ones."""

from __future__ import annotations

import json

import pytest

from annotation.protocol.citations import Citation
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Response, Sentence
from annotation.store.database import FILE_OWNER, Database
from annotation.store.project_store import DB_NAME, MIGRATIONS, ProjectStore, compact_record
from annotation.store.record_form import (
    FORM_VERSION,
    fact_code,
    fact_of_code,
    form_text,
    read_form,
    record_form,
)

VISUAL = Citation("visual", 1.0, 2.5)
AUDIO = Citation("audio", 3.0, 3.0)
BROKEN = Citation("audio", None, None, valid=False, raw="audio, 1:99", reason="seconds must be below 60")


def fact(indices, everything=None, alone=(), without=(), text="a fact"):
    return Fact(text, list(indices), Entailment(everything, list(alone), list(without)))


def odd_record(response_id="r1", source="judge:x"):
    """Every kind of sentence and fact the scorer tells apart."""
    return EvaluationRecord(
        response_id,
        source,
        [
            Sentence("Reasoning.", False, [VISUAL], [fact([0], True, [True], [False])]),  # not verifiable
            Sentence("Not labelled yet.", None, [VISUAL], []),  # verifiable null: not verifiable
            Sentence("Only a broken citation.", True, [BROKEN], [fact([0], True)]),  # no valid citation
            Sentence("Cited, no facts.", True, [VISUAL], []),
            Sentence(
                "Mixed.",
                True,
                [VISUAL, BROKEN, AUDIO],
                [
                    fact([0, 1], True, [True, None], [None, None]),  # an invalid citation among valid
                    fact([1], True, [True], [False]),  # every citation invalid: not scored
                    Fact("not judged", [0, 2], None),  # stage 3 not done
                    fact([2], None, [None], [None], text="can't tell"),  # nulls everywhere
                    fact([0, 2], False),  # empty lists: not judged
                ],
            ),
            Sentence("", True, [], []),  # an empty sentence: verifiable, nothing cited
        ],
    )


def test_the_form_keeps_what_scoring_reads_one_item_a_sentence():
    assert record_form(odd_record()) == [
        0,
        0,
        1,
        [],
        ["tf|t|tn|nn", "tt", "t|n|n|n", "tt|f||"],
        1,
    ]


def test_every_fact_code_gives_back_a_fact_of_the_same_code():
    for item in record_form(odd_record()):
        for code in item if isinstance(item, list) else []:
            assert fact_code(*fact_of_code(code)) == code


def test_a_stored_form_reads_back_as_it_was_written():
    text = form_text(odd_record())
    assert json.loads(text)[0] == FORM_VERSION
    assert read_form(text) == record_form(odd_record())


@pytest.mark.parametrize(
    "text",
    [None, "", "not json", "{}", "[]", json.dumps([FORM_VERSION + 1, 0]), json.dumps([True, 0])],
)
def test_what_is_not_a_form_of_this_version_reads_as_none(text):
    assert read_form(text) is None


@pytest.mark.parametrize(
    ("bad_fact", "message"),
    [
        (fact([3], True), "citation index 3 is out of range"),
        (fact([0], True, [True, False]), "'alone' has 2 entries but the fact has 1 citations"),
        (fact([0], 1), "'all' holds 1, not true, false or null"),
        (fact([0], True, [0]), "'alone' holds 0, not true, false or null"),
    ],
)
def test_a_fact_the_scorer_rejects_is_named_and_its_record_gets_no_form(bad_fact, message):
    record = EvaluationRecord(
        "ws-7", "judge:x", [Sentence("a", False, []), Sentence("b", True, [VISUAL], [bad_fact])]
    )
    with pytest.raises(ValueError, match=r"response 'ws-7' \(judge:x\), sentence 1, fact 0: .*") as raised:
        record_form(record)
    assert message in str(raised.value)
    assert form_text(record) is None


def test_a_rejected_fact_outside_what_is_scored_does_not_matter():
    record = EvaluationRecord("r", "judge:x", [Sentence("a", False, [VISUAL], [fact([5], 1)])])
    assert record_form(record) == [0]


SPLIT = [
    Sentence("Reasoning.", None, [VISUAL], start=0, end=10),
    Sentence("Not labelled yet.", None, [VISUAL], start=11, end=28),
    Sentence("Only a broken citation.", None, [BROKEN], start=29, end=52),
    Sentence("Cited, no facts.", None, [VISUAL], start=53, end=69),
    Sentence("Mixed.", None, [VISUAL, BROKEN, AUDIO], start=70, end=76),
    Sentence("", None, [], start=77, end=77),
]


def response_store(directory):
    store = ProjectStore.open(directory, create=True)
    store.add_responses([(Response("r1", "the text"), SPLIT), (Response("r2", "the text"), SPLIT)])
    return store


def test_a_stored_record_has_its_form_beside_it(tmp_path):
    store = response_store(tmp_path / "p")
    store.add_records([odd_record(), odd_record("r2")])
    ids = store.latest_record_ids("judge:x")
    forms = store.record_forms(ids.values())
    assert forms == {ids["r1"]: ("r1", "judge:x", record_form(odd_record())), ids["r2"]: forms[ids["r2"]]}
    assert forms[ids["r2"]] == ("r2", "judge:x", record_form(odd_record("r2")))
    assert store.list_records("judge") == [odd_record(), odd_record("r2")]  # the record itself unchanged


def test_a_record_the_scorer_rejects_is_stored_without_a_form(tmp_path):
    store = response_store(tmp_path / "p")
    rejected = EvaluationRecord("r1", "judge:x", [Sentence("Reasoning.", True, [VISUAL], [fact([0], 1)])])
    store.add_records([rejected])
    (record_id,) = store.latest_record_ids("judge:x").values()
    assert store.record_forms([record_id]) == {record_id: ("r1", "judge:x", None)}
    assert store.records_by_id([record_id])[record_id] == rejected


def test_a_file_from_before_forms_keeps_its_records_and_new_records_get_forms(tmp_path):
    directory = tmp_path / "old"
    directory.mkdir()
    old = Database(directory / DB_NAME)
    old.connection.create_function("compact_record", 2, compact_record)  # what an open registers
    old.migrate(FILE_OWNER, MIGRATIONS)  # the file's own tables only: no record_forms table
    old.write(
        lambda c: (
            c.execute(
                "INSERT INTO responses(response_id, position, text, sentences, imported_at) VALUES (?,?,?,?,?)",
                ["r1", 0, "the text", json.dumps([s.to_dict() for s in SPLIT]), "t"],
            ),
            c.execute(
                "INSERT INTO records(response_id, source, record, created_at) VALUES (?,?,?,?)",
                [
                    "r1",
                    "judge:x",
                    compact_record(
                        json.dumps(odd_record().to_dict()), json.dumps([s.to_dict() for s in SPLIT])
                    ),
                    "t",
                ],
            ),
        )
    )
    old.close()
    store = ProjectStore.open(directory)
    (before,) = store.latest_record_ids("judge:x").values()
    assert store.record_forms([before]) == {before: ("r1", "judge:x", None)}  # decoded when scored
    assert store.list_records("judge") == [odd_record()]
    store.add_records([odd_record(source="judge:y")])
    (after,) = store.latest_record_ids("judge:y").values()
    assert store.record_forms([after])[after] == ("r1", "judge:y", record_form(odd_record()))


@pytest.mark.parametrize("code", ["", "f", "x", "t|t", "t|y||", "tt|t|t|", "t|t|n|n|n", "t|tt||"])
def test_a_text_that_is_no_fact_code_is_refused(code):
    with pytest.raises(ValueError, match="is not a fact code"):
        fact_of_code(code)
