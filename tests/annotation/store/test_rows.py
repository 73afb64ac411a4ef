"""Accounts and media come out of the store as typed rows; an account never shows its hash."""

from __future__ import annotations

from annotation.store.project_store import ProjectStore
from annotation.store.rows import Account, MediaFile, Person


def test_an_account_read_from_the_store_is_a_typed_row_whose_repr_hides_the_hash(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_user("ann", "annotator", "scrypt$secret-hash", "ann@example.org")
    account = store.user("ann")
    assert account == Account("ann", "annotator", "ann@example.org", "scrypt$secret-hash")
    assert "secret-hash" not in repr(account) and "secret-hash" not in str(store.users())
    assert account.person == Person("ann", "annotator")


def test_a_media_row_is_a_typed_row_with_its_probe_facts(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.register_media("clip", "clip.mp4", "ab" * 32, {"duration_s": 6.0, "has_audio": True})
    assert store.media("clip") == MediaFile(
        "clip", "clip.mp4", "ab" * 32, {"duration_s": 6.0, "has_audio": True}
    )
    assert (store.media("clip").duration_s, store.media("clip").has_audio, store.media("nothing")) == (
        6.0,
        True,
        None,
    )
