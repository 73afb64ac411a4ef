"""Responses carry the model that wrote them: stored in its own column, listed with their ids,
and read from the `model` field older projects kept in `extra`."""

import json

from annotation.protocol.records import Response
from annotation.store.database import FILE_OWNER, Database
from annotation.store.project_store import DB_NAME, MIGRATIONS, ProjectStore


def test_a_response_keeps_the_model_that_wrote_it(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response("m1/q1", "It beeps.", model="m1"), [])])
    assert store.response("m1/q1").model == "m1"


def test_response_models_lists_every_id_with_its_model_in_import_order(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses(
        [
            (Response("b/q1", "One.", model="b"), []),
            (Response("legacy", "Two."), []),
            (Response("a/q1", "Three.", model="a"), []),
        ]
    )
    assert store.response_models() == [("b/q1", "b"), ("legacy", None), ("a/q1", "a")]


def test_a_project_made_before_models_takes_the_model_its_rows_kept_in_extra(tmp_path):
    directory = tmp_path / "old"
    directory.mkdir()
    old = Database(directory / DB_NAME)
    old.migrate(FILE_OWNER, MIGRATIONS[:2])  # the schema before responses had a model
    old.write(
        lambda c: c.executemany(
            "INSERT INTO responses(response_id, position, text, extra, imported_at) VALUES (?, ?, ?, ?, ?)",
            [
                ("r1", 0, "One.", json.dumps({"model": "gpt-x"}), "2025-01-01"),
                ("r2", 1, "Two.", json.dumps({"model": 7}), "2025-01-01"),
                ("r3", 2, "Three.", "{}", "2025-01-01"),
            ],
        )
    )
    old.close()
    store = ProjectStore.open(directory)
    assert store.response_models() == [("r1", "gpt-x"), ("r2", None), ("r3", None)]
