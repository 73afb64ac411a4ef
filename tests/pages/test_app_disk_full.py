"""Issue 23, finding 11 in the app: a decision made while the project's disk is full says so at
the top of the page, writes nothing, and shows no generic error (browser: tests/e2e/test_disk_full.py)."""

import pytest
from app_support import click, signed_in_app, tiny_project
from disk_support import fill, mounted_tmpfs

from annotation.store.project_store import ProjectStore
from pages.widgets.context import DISK_FULL


@pytest.fixture
def small_disk(tmp_path):
    yield from mounted_tmpfs(tmp_path / "disk", "2m")


def test_a_decision_on_a_full_disk_is_reported_as_such_and_nothing_is_written(monkeypatch, small_disk):
    tiny_project(small_disk / "p")
    app = signed_in_app(monkeypatch, small_disk / "p", "ann")
    fill(small_disk)
    click(app, "answer:True")
    assert DISK_FULL in [e.value for e in app.error]
    assert "Something went wrong" not in " ".join(e.value for e in app.error)
    assert ProjectStore.open(small_disk / "p").events.log(who="ann") == []
