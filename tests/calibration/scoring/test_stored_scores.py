"""Stored records' scores (calibration/scoring/stored_scores.py) on the demo: equal to scoring the
records in force, kept once per record and mode and read back, a newer record scored anew."""

from __future__ import annotations

import shutil

import pytest

from annotation.store.project_store import ProjectStore
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
    assert kept_rows(store) == len(PRECISION_MODES) * len(records)  # the first read kept all three
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
