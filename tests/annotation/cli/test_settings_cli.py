"""`python -m annotation settings`: lists the settings, sets them through the same check as the
admin page; one bad value writes nothing and exits 2 naming it."""

from __future__ import annotations

import pytest

from annotation.cli.main import main
from annotation.store.project_store import ProjectStore


@pytest.fixture
def project(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    for name in ("a", "b"):  # a pool names people of the project
        store.add_user(name, "annotator", None)
    store.close()
    return tmp_path / "p"


def test_settings_command_sets_checked_values(project, capsys):
    code = main(
        ["settings", "--project", str(project), "pad_s=0.5", "campaign_mode=staged", 'pool=["b","a"]']
    )
    assert code == 0
    store = ProjectStore.open(project)
    assert [store.get_setting(k) for k in ("pad_s", "campaign_mode", "pool")] == [0.5, "staged", ["a", "b"]]
    assert capsys.readouterr().out.splitlines() == [
        "pad_s = 0.5",
        'campaign_mode = "staged"',
        'pool = ["a", "b"]',
    ]


def test_settings_command_refuses_a_bad_value_and_writes_nothing(project, capsys):
    code = main(["settings", "--project", str(project), "pad_s=0.5", "gold_rule=loudest"])
    assert code == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "error: project setting gold_rule = 'loudest' is refused: it must be one of majority, unanimity",
        "nothing was written",
    ]
    assert ProjectStore.open(project).stored_settings() == {}


def test_settings_command_refuses_an_argument_without_a_value(project, capsys):
    assert main(["settings", "--project", str(project), "pad_s"]) == 2
    assert "write NAME=VALUE" in capsys.readouterr().err


def test_settings_command_lists_each_setting_marking_defaults(project, capsys):
    main(["settings", "--project", str(project), "overlap=2"])
    capsys.readouterr()
    assert main(["settings", "--project", str(project)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith('gold_rule = "majority"  (default)\t# ')
    assert next(line for line in lines if line.startswith("overlap")).startswith("overlap = 2\t# ")


def test_settings_command_refuses_a_folder_as_the_judges_file(project, tmp_path, capsys):
    code = main(["settings", "--project", str(project), f"judges_toml={tmp_path}"])
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: project setting judges_toml = {str(tmp_path)!r} is refused: {tmp_path} is a folder: "
        "give the path of a file",
        "nothing was written",
    ]
    assert ProjectStore.open(project).stored_settings() == {}
