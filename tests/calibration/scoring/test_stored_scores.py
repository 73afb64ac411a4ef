"""Stored records' scores (calibration/scoring/stored_scores.py) on the demo: equal to scoring the
records in force, kept once per record and mode and read back, a newer record scored anew."""

from __future__ import annotations

import json
import shutil

import pytest

from annotation.store.project_store import ProjectStore
from annotation.store.record_form import FORM_VERSION
from calibration.scoring.murgat_s import PRECISION_MODES, score_records
from calibration.scoring.stored_scores import scorer, stored_scores


@pytest.fixture
def store(module_demo, tmp_path):
    shutil.copytree(module_demo, tmp_path / "demo")
    opened = ProjectStore.open(tmp_path / "demo")
    yield opened
    opened.close()


def kept_rows(store) -> int:
    return store.database.connection.execute("SELECT COUNT(*) FROM record_scores").fetchone()[0]


def test_stored_scores_equal_the_scores_of_the_records_in_force_and_are_kept_once_in_every_mode(store):
    source = store.record_sources()[-1]
    records = store.list_records(source=source)
    for mode in ("individual", "alce"):
        expected = {s.response_id: s for s in score_records(records, [mode])}
        assert stored_scores(store, source, mode) == expected  # scored now (every mode), kept
        assert stored_scores(store, source, mode) == expected  # read back
    assert kept_rows(store) == 2 * len(records)  # scored from their forms: the two modes asked
    some = [r.response_id for r in records[:3]]
    assert stored_scores(store, source, "individual", some) == {
        s.response_id: s for s in score_records(records[:3], ["individual"])
    }


def test_a_kept_score_is_read_back_and_a_newer_record_is_scored_anew(store):
    source = store.record_sources()[-1]
    first, second = store.list_records(source=source)[:2]
    stored_scores(store, source, "individual")
    store.database.write(  # mark one kept row: what comes back is the row, not a new scoring
        lambda c: c.execute(
            "UPDATE record_scores SET coverage = 0.125 WHERE scorer = ? AND record_id = ?",
            [scorer(), store.latest_record_ids(source, [first.response_id])[first.response_id]],
        )
    )
    assert stored_scores(store, source, "individual")[first.response_id].coverage == 0.125
    changed = second.sentences[0]
    changed.verifiable = not changed.verifiable
    store.add_records([second])
    scores = stored_scores(store, source, "individual")
    assert scores[second.response_id] == score_records([second], ["individual"])[0]
    assert scores[first.response_id].coverage == 0.125


def forms_kept(store) -> int:
    return store.database.connection.execute("SELECT COUNT(*) FROM record_forms").fetchone()[0]


def test_scores_from_the_stored_forms_equal_the_scores_of_the_decoded_records(store):
    source = store.record_sources()[-1]
    records = store.list_records(source=source)
    expected = {mode: {s.response_id: s for s in score_records(records, [mode])} for mode in PRECISION_MODES}
    assert forms_kept(store) > 0  # the demo's import stored a form beside each record
    assert {mode: stored_scores(store, source, mode) for mode in PRECISION_MODES} == expected
    store.database.write(lambda c: c.execute("DELETE FROM record_scores"))
    store.database.write(lambda c: c.execute("DELETE FROM record_forms"))  # as in a file from before
    assert stored_scores(store, source, "alce") == expected["alce"]
    assert kept_rows(store) == len(PRECISION_MODES) * len(records)  # decoded: every mode kept at once
    assert {mode: stored_scores(store, source, mode) for mode in PRECISION_MODES} == expected


def test_a_stored_form_is_what_is_scored_and_one_that_is_not_a_form_is_decoded_instead(store):
    source = store.record_sources()[-1]
    first, second = store.list_records(source=source)[:2]
    ids = store.latest_record_ids(source, [first.response_id, second.response_id])

    def set_form(record_id: int, text: str) -> None:
        store.database.write(
            lambda c: c.execute("UPDATE record_forms SET form = ? WHERE record_id = ?", [text, record_id])
        )

    third = store.list_records(source=source)[2]
    ids.update(store.latest_record_ids(source, [third.response_id]))
    # one sentence not verifiable and one verifiable but uncited: a form, though not this record's
    set_form(ids[first.response_id], json.dumps([FORM_VERSION, 0, 1]))
    set_form(ids[second.response_id], "[1, 'not json")
    set_form(ids[third.response_id], '[1, "tt", [[0]], {}]')  # JSON, but no form
    scores = stored_scores(store, source, "individual")
    assert (scores[first.response_id].n_verifiable, scores[first.response_id].murgat_s) == (1, 0.0)
    assert scores[second.response_id] == score_records([second], ["individual"])[0]
    assert scores[third.response_id] == score_records([third], ["individual"])[0]
