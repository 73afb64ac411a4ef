"""Derived results kept in the project file (annotation/store/derived_results.py): a new process
reads what the last one derived, and every change a response's gold depends on makes it derive
that response again — never a stale result."""

from __future__ import annotations

import collections
import os
import pickle
import signal
import subprocess
import sys
import types
from pathlib import Path

import pytest
from test_state import TEXT, records_of_state, staged_campaign

from annotation.agreement.adjudication import adjudicate
from annotation.agreement.same_fact import SAME_TASK, pair_unit
from annotation.protocol.ids import Task, Unit
from annotation.protocol.records import EvaluationRecord, Sentence
from annotation.state import derive_state
from annotation.store import derived_results
from annotation.store.project_store import ProjectStore

ROOT = Path(__file__).resolve().parents[2]


def new_process_state(store):
    """What a new process reads: no state in memory, the kept results read from the file."""
    return derive_state(store)


def state_as_derived(store):
    """The state derived from the labels alone, kept results neither read nor written."""
    return derive_state(store, kept=False)


def everything(state):
    """Gold values, gold records, annotator records, judge records and current labels."""
    return (*records_of_state(state), state.labels)


def kept_rows(store) -> dict[str, str]:
    return dict(store.database.connection.execute("SELECT response_id, key FROM derived_results"))


@pytest.fixture
def staged(tmp_path):
    store = staged_campaign(tmp_path / "staged")
    yield store
    store.close()


def test_a_new_process_reads_the_kept_results_and_gets_the_state_derived_anew(demo_copy):
    store = ProjectStore.open(demo_copy)  # made before the table existed: it is made on first use
    first = new_process_state(store)
    assert len(kept_rows(store)) == 24  # every labelled response
    writes = store.database.connection.total_changes
    again = new_process_state(store)
    assert store.database.connection.total_changes == writes  # all read from the file: none derived
    assert everything(again) == everything(state_as_derived(store)) == everything(first)


def test_a_state_derived_from_nothing_holds_no_label_events_until_asked(staged):
    state = state_as_derived(staged)
    assert all(part.labels is None for part in state.responses.values())  # let go once derived
    assert state.labels == tuple(staged.events.current_labels())  # one read on first use
    assert all(part.labels is not None for part in state.responses.values())


GOLD_FACT_UNIT = Unit.of_fact(0, "A man points.", [0])


def relabel(store):
    store.events.append("carol", "r1", GOLD_FACT_UNIT, "all", False)


def undo(store):
    store.events.undo_last("carol", "r1")


def rule(store):
    adjudicate(store, "ada", "r1", GOLD_FACT_UNIT, "all", True)


def same_fact_answer(store):
    adjudicate(store, "ada", "r1", pair_unit(0, "Someone gestures.", "A man points."), SAME_TASK, True)


def gold_rule(store):
    store.set_setting("gold_rule", "unanimity")


def auto_accept(store):
    store.set_setting("auto_accept_unanimous", False)


def imported_human_record(store):
    store.add_records(
        [EvaluationRecord("r1", "human:dana", [Sentence(TEXT, False), Sentence("So B is right.", True)])]
    )


def imported_record_replaced(store):
    store.add_records([EvaluationRecord("r2", "human:dana", [Sentence("Plain.", True)])])


@pytest.mark.parametrize(
    "change",
    [
        relabel,
        undo,
        rule,
        same_fact_answer,
        gold_rule,
        auto_accept,
        imported_human_record,
        imported_record_replaced,
    ],
)
def test_each_change_a_response_depends_on_changes_what_a_new_process_reads(staged, change):
    before = new_process_state(staged)
    assert kept_rows(staged)  # something was kept that could go stale
    change(staged)
    after = new_process_state(staged)
    assert everything(after) == everything(state_as_derived(staged))
    assert records_of_state(after) != records_of_state(before)


def test_a_result_kept_under_another_deriving_code_is_derived_again(staged):
    new_process_state(staged)
    staged.database.connection.execute("UPDATE derived_results SET key = key || 'older code'")
    writes = staged.database.connection.total_changes
    new_process_state(staged)
    assert staged.database.connection.total_changes - writes == len(kept_rows(staged))  # each derived
    assert all(key.endswith(derived_results.deriver()) for key in kept_rows(staged).values())


class RunsACommand:
    """Pickles as a call of os.system: what a hostile project file could hold."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_row_naming_anything_but_annotation_dataclasses_is_never_loaded(staged, tmp_path):
    new_process_state(staged)
    marker = tmp_path / "ran"
    hostile = derived_results.encode(RunsACommand(marker))
    staged.database.connection.execute("UPDATE derived_results SET result = ?", [hostile])
    assert everything(new_process_state(staged)) == everything(state_as_derived(staged))
    assert not marker.exists()


def test_a_damaged_row_is_derived_again(staged):
    new_process_state(staged)
    rows = dict(staged.database.connection.execute("SELECT response_id, result FROM derived_results"))
    first, second, *_ = sorted(rows)
    cut = rows[first][: len(rows[first]) // 2]  # a row cut short
    staged.database.connection.execute(
        "UPDATE derived_results SET result = ? WHERE response_id = ?", [cut, first]
    )
    staged.database.connection.execute(
        "UPDATE derived_results SET result = ? WHERE response_id = ?", [b"not a result", second]
    )
    writes = staged.database.connection.total_changes
    assert everything(new_process_state(staged)) == everything(state_as_derived(staged))
    assert staged.database.connection.total_changes - writes == 2  # both derived and kept again


def test_a_kept_result_may_name_the_unit_and_task_value_types_and_no_other_named_tuple():
    ruled = (Unit.of_sentence(2), Task("alone", 1).as_ruling, Unit.response())
    assert derived_results.decode(derived_results.encode(ruled)) == ruled
    other = collections.namedtuple("Unit", "sentence fact")  # a look-alike from another module
    other.__module__ = "annotation.protocol.fake_ids"
    sys.modules["annotation.protocol.fake_ids"] = types.SimpleNamespace(Unit=other)
    try:
        with pytest.raises(pickle.UnpicklingError):
            derived_results.decode(derived_results.encode(other(1, None)))
    finally:
        del sys.modules["annotation.protocol.fake_ids"]


# A process that writes results inside one open transaction and waits there to be killed
WRITER = """
import sys, time
from annotation.state import derive_state
from annotation.store import derived_results
from annotation.store.project_store import ProjectStore
store = ProjectStore.open(sys.argv[1])
state = derive_state(store, kept=False)
results = {rid: ("key", (part.annotators, part.gold)) for rid, part in state.responses.items()}
with store.database.transaction():
    print(derived_results.write_results(store, results), flush=True)
    time.sleep(60)
"""


def test_results_are_kept_all_or_nothing_when_the_writer_is_killed(staged):
    derived_results.kept(staged)  # the table exists; nothing kept yet
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(staged.directory)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert int(writer.stdout.readline()) == 2  # both labelled responses written, not committed
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    assert kept_rows(ProjectStore.open(staged.directory)) == {}
