"""Project settings are checked when written (one check for the admin page, the CLI and the demo
build): a bad value is refused naming the setting and what it allows, and nothing is written; they
are read typed, in one query, with their defaults."""

from __future__ import annotations

from dataclasses import fields

import pytest

from annotation.project_settings import KNOWN, ProjectSettings, SettingError, write_settings
from annotation.store.project_store import ProjectStore


@pytest.fixture
def store(tmp_path):
    return ProjectStore.open(tmp_path / "p", create=True)


def test_an_unknown_gold_rule_is_refused_when_written_and_nothing_changes(store):
    write_settings(store, {"pad_s": 2.0})
    with pytest.raises(SettingError, match=r"gold_rule = 'loudest'.*one of majority, unanimity"):
        write_settings(store, {"pad_s": 0.5, "gold_rule": "loudest"})
    assert store.stored_settings() == {"pad_s": 2.0}


def test_every_bad_value_of_one_write_is_named(store):
    with pytest.raises(SettingError) as refused:
        write_settings(store, {"pad_s": -1, "overlap": 0, "colour": "red", "campaign_mode": "staged"})
    assert refused.value.problems == [
        "project setting pad_s = -1 is refused: it must be a number of seconds from 0 to 10",
        "project setting overlap = 0 is refused: it must be a whole number from 1 to 20",
        f"'colour' is not a project setting (the settings: {', '.join(KNOWN)})",
    ]
    assert store.stored_settings() == {}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("auto_accept_unanimous", 1),  # a number is not true or false
        ("pad_s", True),  # nor true a number of seconds
        ("pad_s", "1"),
        ("overlap", 2.5),
        ("pool", "ann"),  # a name, not a list of names
        ("pool", ["ann", ""]),
        ("campaign_mode", "End to end"),
        ("annotate", "some"),
        ("key_cooldown_ms", 6000),
        ("synthetic", "yes"),
    ],
)
def test_a_value_of_the_wrong_type_or_range_is_refused(store, name, value):
    with pytest.raises(SettingError, match=f"project setting {name} = "):
        write_settings(store, {name: value})
    assert store.stored_settings() == {}


def test_settings_never_set_read_as_their_defaults(store):
    settings = ProjectSettings.of(store)
    assert settings == ProjectSettings()
    assert (settings.gold_rule, settings.pad_s, settings.overlap, settings.campaign_mode) == (
        "majority",
        1.0,
        3,
        "end_to_end",
    )


@pytest.mark.parametrize(
    "pool, says",
    [(["ann", "zed"], "names no account of this project: zed"), ([], "names nobody")],
)
def test_a_pool_naming_no_account_or_nobody_is_refused_and_nothing_changes(store, pool, says):
    # CLI walk: accepted, then the unknown name was skipped, or nobody was assigned, without a word
    store.add_user("ann", "annotator", None)
    with pytest.raises(SettingError, match=says):
        write_settings(store, {"pad_s": 2.0, "pool": pool})
    assert (store.get_setting("pad_s"), store.get_setting("pool")) == (None, None)


def test_written_settings_read_back_typed(store):
    for name in ("ann", "bob"):
        store.add_user(name, "annotator", None)
    write_settings(
        store, {"pad_s": 2, "overlap": 2.0, "pool": ["bob", "ann", "bob"], "gold_rule": "unanimity"}
    )
    settings = ProjectSettings.of(store)
    assert settings.pad_s == 2.0 and isinstance(settings.pad_s, float)
    assert settings.overlap == 2 and isinstance(settings.overlap, int)
    assert settings.pool == ("ann", "bob")
    assert settings.gold == ("unanimity", True)
    assert store.get_setting("pool") == ["ann", "bob"]


def test_settings_are_read_in_one_query(store):
    write_settings(store, {"pad_s": 0.5, "overlap": 2})
    run: list[str] = []
    store.database.connection.set_trace_callback(run.append)
    ProjectSettings.of(store)
    store.database.connection.set_trace_callback(None)
    assert len(run) == 1


def test_a_bad_stored_value_is_named_when_read_and_a_correction_starts_from_its_default(store):
    store.set_setting("overlap", 0)  # as a file edited by hand, or written before the check, holds
    store.set_setting("pad_s", 0.5)
    with pytest.raises(SettingError, match="overlap = 0"):
        ProjectSettings.of(store)
    settings, problems = ProjectSettings.for_correction(store)
    assert (settings.overlap, settings.pad_s) == (3, 0.5)
    assert list(problems) == ["overlap"]


def test_every_known_setting_is_a_field_of_the_typed_settings_and_its_default_passes_its_check():
    assert list(KNOWN) == [f.name for f in fields(ProjectSettings)]
    defaults = ProjectSettings()  # made through the checks
    assert defaults.pool is None and defaults.synthetic is False


def test_a_refusal_names_each_setting_it_refuses_for_a_caller_to_locate(store):
    with pytest.raises(SettingError) as refused:
        write_settings(store, {"pad_s": -1, "overlap": 2, "colour": "red"})
    assert refused.value.names == ["pad_s", "colour"]
    assert refused.value.refused["pad_s"].startswith("project setting pad_s = -1 is refused")


@pytest.mark.parametrize("written", ["media", "MEDIA_ABSOLUTE"])
def test_a_judges_file_path_naming_a_folder_is_refused_and_nothing_changes(store, written):
    # QA walk: judges_toml=/tmp was stored, and the judges page failed on every later visit
    (store.directory / "media").mkdir()
    value = str(store.directory / "media") if written == "MEDIA_ABSOLUTE" else written
    with pytest.raises(SettingError, match=r"judges_toml = .* is a folder: give the path of a file"):
        write_settings(store, {"pad_s": 2.0, "judges_toml": value})
    assert store.stored_settings() == {}


def test_a_judges_file_path_that_does_not_exist_yet_is_accepted(store):
    write_settings(store, {"judges_toml": "judges/new.toml"})  # the judges page writes it there
    assert ProjectSettings.of(store).judges_toml == "judges/new.toml"
