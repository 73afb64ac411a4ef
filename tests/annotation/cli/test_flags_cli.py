"""`python -m annotation flags`: the annotators' flags printed newest first, and written as CSV."""

from __future__ import annotations

import pytest
from cli_support import run_in_process

from annotation.formats.spreadsheet_csv import read_csv_rows
from annotation.protocol.ids import Unit
from annotation.protocol.records import Response, Sentence
from annotation.store.project_store import ProjectStore
from annotation.work.flags import answer_flag
from annotation.work.session import flag_for_guidelines


@pytest.fixture
def project(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    two = [Sentence("A man waves."), Sentence("So B.")]
    store.add_responses(
        [(Response("r1", "A man waves. So B."), two), (Response("r2", "A man waves. So B."), two)]
    )
    flag_for_guidelines(store, "ann", "r1", "Is waving an action?\nThe guidelines say nothing.")
    flag_for_guidelines(store, "bob", "r2", '=HYPERLINK("http://evil.example")', unit=Unit.of_sentence(1))
    return tmp_path / "p"


def test_flags_prints_every_flag_newest_first_with_who_where_and_its_text(project):
    done = run_in_process("annotation", "flags", "--project", project)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "2 flags (2 open), newest first"
    assert (
        lines[2].endswith(" UTC · bob · r2, sentence 2 · event 2")
        and lines[3] == '  =HYPERLINK("http://evil.example")'
    )
    assert lines[5].endswith(" UTC · ann · r1 · event 1")
    assert lines[6:8] == ["  Is waving an action?", "  The guidelines say nothing."]


def test_flags_csv_has_one_row_per_flag_with_formula_like_text_shielded(project, tmp_path):
    out = tmp_path / "flags.csv"
    done = run_in_process("annotation", "flags", "--project", project, "--csv", out)
    assert done.returncode == 0 and done.stdout.endswith(f"wrote 2 row(s) to {out}\n")
    rows = read_csv_rows(out)
    assert [(r["event_id"], r["who"], r["response_id"], r["unit"], r["sentence"]) for r in rows] == [
        ("2", "bob", "r2", "s1", "1"),
        ("1", "ann", "r1", "response", ""),
    ]
    assert rows[0]["text"] == '=HYPERLINK("http://evil.example")' and "'=HYPERLINK" in out.read_text()


def test_typed_escape_sequences_cannot_drive_the_terminal(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response("r1", "A man waves."), [Sentence("A man waves.")])])
    flag_for_guidelines(store, "ann", "r1", "red \x1b[31mtext")
    done = run_in_process("annotation", "flags", "--project", tmp_path / "p")
    assert "  red <U+001B>[31mtext" in done.stdout.splitlines() and "\x1b" not in done.stdout


def test_flags_of_a_missing_project_exit_2_and_print_nothing(tmp_path):
    done = run_in_process("annotation", "flags", "--project", tmp_path / "nowhere")
    assert done.returncode == 2 and done.stdout == "" and "nowhere" in done.stderr


def test_flags_print_the_answer_under_its_flag_and_open_lists_only_the_unanswered(project):
    store = ProjectStore.open(project)
    store.add_user("judy", "adjudicator", None)
    answer_flag(store, "judy", 1, "Yes: waving is an action.\nGuideline 2 now says so.")
    lines = run_in_process("annotation", "flags", "--project", project).stdout.splitlines()
    assert lines[0] == "2 flags (1 open), newest first"
    assert lines[8].startswith("  answered ") and lines[8].endswith(" UTC by judy:")
    assert lines[9:11] == ["    Yes: waving is an action.", "    Guideline 2 now says so."]
    waiting = run_in_process("annotation", "flags", "--project", project, "--open").stdout.splitlines()
    assert waiting[0] == "1 open flag, newest first" and waiting[2].endswith(
        " · bob · r2, sentence 2 · event 2"
    )
    assert not any("ann" in line for line in waiting)


def test_flags_csv_carries_the_answer_in_force_and_leaves_an_open_flags_cells_empty(project, tmp_path):
    store = ProjectStore.open(project)
    store.add_user("judy", "adjudicator", None)
    answer_flag(store, "judy", 1, "@see guideline 2")
    out = tmp_path / "flags.csv"
    assert run_in_process("annotation", "flags", "--project", project, "--csv", out).returncode == 0
    still_open, answered = read_csv_rows(out)
    assert (answered["answered_by"], answered["answer"]) == ("judy", "@see guideline 2")
    assert answered["answered_at"].endswith("+00:00") and "'@see" in out.read_text()
    assert (still_open["answered_at"], still_open["answered_by"], still_open["answer"]) == ("", "", "")
