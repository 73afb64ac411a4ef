"""A CSV a person opens in a spreadsheet shows what people typed as text, never runs it."""

from __future__ import annotations

import csv
import io

import pytest

from annotation.formats.spreadsheet_csv import cell_as_written, csv_text, read_csv_rows, spreadsheet_cell

# what annotators and imported files really put in a cell, written by hand
TYPED_LIKE_FORMULAS = [
    '=HYPERLINK("http://example.com/x", "see the clip")',
    "=1+1",
    "+ a second tone follows",
    "- A red square appears on the left",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(A1:A9)",
    "\tindented by a pasted tab",
    "\rcarriage return first",
    "'=a cell someone quoted already",
    "''+twice",
]
LEFT_AS_THEY_ARE = [
    "A man points at the screen.",
    "The count reaches 3 = three beeps",
    "gen-12",
    "-0.25",
    "+1",
    "1e-3",
    "'tis a quoted word",
    "",
]


@pytest.mark.parametrize("typed", TYPED_LIKE_FORMULAS)
def test_a_cell_typed_like_a_formula_starts_with_a_quote_and_reads_back_as_typed(typed):
    written = spreadsheet_cell(typed)
    assert written == "'" + typed
    assert cell_as_written(written) == typed


@pytest.mark.parametrize("typed", LEFT_AS_THEY_ARE)
def test_text_and_numbers_that_start_no_formula_are_written_unchanged(typed):
    assert spreadsheet_cell(typed) == typed
    assert cell_as_written(typed) == typed


def test_numbers_and_empty_values_keep_their_cells():
    text = csv_text([{"model": "m", "score": -0.25, "n": 3, "low": None, "reachable": True}])
    assert text.splitlines() == ["model,score,n,low,reachable", "m,-0.25,3,,True"]


def test_the_file_round_trips_every_cell_and_no_cell_begins_a_formula(tmp_path):
    rows = [{"fact": typed, "id": str(n)} for n, typed in enumerate(TYPED_LIKE_FORMULAS + LEFT_AS_THEY_ARE)]
    path = tmp_path / "out.csv"
    path.write_text(csv_text(rows), encoding="utf-8", newline="")
    assert read_csv_rows(path) == rows
    raw = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    assert [r["fact"] for r in raw if r["fact"].startswith(("=", "+", "-", "@", "\t", "\r"))] == [
        "-0.25",
        "+1",
    ]


def test_rows_without_a_header_make_an_empty_file_and_a_header_can_be_given():
    assert csv_text([]) == ""
    assert csv_text([], ["a", "b"]).splitlines() == ["a,b"]
