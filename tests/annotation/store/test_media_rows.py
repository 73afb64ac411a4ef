"""Media rows and the media root stored relative (issue 12): a project found from any working
directory keeps its media and proxies; rows written before are migrated."""

from __future__ import annotations

from annotation.protocol.records import EvaluationRecord, Response, Sentence
from annotation.store.project_store import MIGRATIONS, ProjectStore

SHA = "ab" * 32


def test_a_media_root_inside_the_project_is_stored_relative(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.set_media_root(tmp_path / "p" / "videos")
    assert (store.get_setting("media_root"), store.media_root) == ("videos", tmp_path / "p" / "videos")


def test_a_media_root_outside_the_project_is_stored_absolute(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.set_media_root(tmp_path / "elsewhere")
    assert store.get_setting("media_root") == str(tmp_path / "elsewhere")


def test_a_proxy_is_stored_relative_and_read_back_in_full(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.register_media("clip", "clip.mp4", SHA, {"duration_s": 1.0})
    store.set_proxy("clip", tmp_path / "p" / "cache" / "proxies" / "x.mp4")
    stored = store.database.connection.execute("SELECT proxy_path FROM media").fetchone()[0]
    assert (stored, store.media("clip").proxy_path) == (
        "cache/proxies/x.mp4",
        str(tmp_path / "p" / "cache" / "proxies" / "x.mp4"),
    )


def test_rows_from_before_relative_paths_are_migrated(tmp_path):
    directory = tmp_path / "old"
    old = ProjectStore.open(directory, create=True)
    conn = old.database.connection
    relative_paths = next(i for i, m in enumerate(MIGRATIONS) if "cache/proxies/" in m)
    conn.execute(f"PRAGMA user_version = {relative_paths}")  # just before the relative-path migration
    rows = [
        ("clip", "/data/videos/clip.mp4", "proj/cache/proxies/whatever.mp4"),
        ("set1/a.mp4", "/data/videos/set1/a.mp4", None),
        ("odd", "/somewhere/else.mp4", None),
    ]
    for name, path, proxy in rows:
        conn.execute(
            "INSERT INTO media(name, path, sha256, info, proxy_path, probed_at) VALUES (?, ?, ?, '{}', ?, 'then')",
            [name, path, SHA, proxy],
        )
    old.close()
    store = ProjectStore.open(directory)
    got = store.database.connection.execute(
        "SELECT name, path, proxy_path FROM media ORDER BY name"
    ).fetchall()
    assert got == [
        ("clip", "clip.mp4", f"cache/proxies/{SHA[:20]}.mp4"),
        ("odd", "/somewhere/else.mp4", None),
        ("set1/a.mp4", "set1/a.mp4", None),
    ]
    assert store.schema_version() == len(MIGRATIONS)


def test_a_record_equal_to_the_one_in_force_is_not_appended_again(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response("r1", "Text."), [Sentence("Text.")])])
    record = EvaluationRecord("r1", "judge:j", [Sentence("Text.", True)])
    assert [store.add_records([record]), store.add_records([record])] == [1, 0]
    assert store.database.connection.execute("SELECT COUNT(*) FROM records").fetchone()[0] == 1


def test_a_record_that_returns_to_an_earlier_value_is_appended(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_responses([(Response("r1", "Text."), [Sentence("Text.")])])
    yes, no = (EvaluationRecord("r1", "judge:j", [Sentence("Text.", v)]) for v in (True, False))
    assert [store.add_records([r]) for r in (yes, no, yes)] == [1, 1, 1]
    [latest] = store.list_records(source="judge:j")
    assert latest.sentences[0].verifiable is True


def test_a_user_is_found_by_a_name_in_another_case(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_user("Ann", "annotator", None)
    assert store.user_ignoring_case("aNN").name == "Ann"


def test_two_names_differing_only_in_case_find_neither_unless_exact(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_user("Ann", "annotator", None)
    store.add_user("ANN", "annotator", None)
    assert (store.user_ignoring_case("ann"), store.user_ignoring_case("ANN").name) == (None, "ANN")
