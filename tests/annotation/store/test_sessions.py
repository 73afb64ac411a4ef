"""Sign-in sessions (annotation/store/sessions.py): signed, expiring, revocable tokens kept in a
server-side table of a real SQLite file."""

import shutil

import pytest

from annotation.store.accounts import add_account
from annotation.store.project_store import ProjectStore
from annotation.store.rows import Person
from annotation.store.sessions import (
    end_session,
    forget_expired,
    revoke_sessions,
    session_user,
    start_session,
)

NOW = 1_800_000_000.0  # a fixed clock (Unix seconds) for expiry


@pytest.fixture(scope="module")
def accounts(tmp_path_factory):
    """A project with dana and ada, made once per module (each account costs a real scrypt hash,
    which no test here checks); each test opens its own copy."""
    directory = tmp_path_factory.mktemp("sessions") / "p"
    store = ProjectStore.open(directory, create=True)
    add_account(store, "dana", "annotator", "dana")
    add_account(store, "ada", "adjudicator", "ada")
    store.close()
    return directory


@pytest.fixture
def store(accounts, tmp_path):
    return ProjectStore.open(shutil.copytree(accounts, tmp_path / "p"))


def test_a_new_session_signs_its_person_in(store):
    token = start_session(store, "dana", now=NOW)
    assert session_user(store, token, now=NOW + 60) == Person("dana", "annotator")


def test_a_session_signs_in_from_another_connection_to_the_same_file(store, tmp_path):
    token = start_session(store, "dana", now=NOW)
    assert session_user(ProjectStore.open(tmp_path / "p"), token, now=NOW).name == "dana"


def test_an_expired_session_signs_nobody_in(store):
    token = start_session(store, "dana", lifetime_s=3600, now=NOW)
    assert session_user(store, token, now=NOW + 3600) is None


def test_sign_out_revokes_the_session(store):
    token = start_session(store, "dana", now=NOW)
    assert end_session(store, token) is True
    assert session_user(store, token, now=NOW) is None


def test_revoking_twice_reports_nothing_revoked(store):
    token = start_session(store, "dana", now=NOW)
    end_session(store, token)
    assert end_session(store, token) is False


def test_revoking_a_persons_sessions_ends_all_of_them_and_no_one_elses(store):
    first, second = start_session(store, "dana", now=NOW), start_session(store, "dana", now=NOW)
    other = start_session(store, "ada", now=NOW)
    assert revoke_sessions(store, "dana") == 2
    assert session_user(store, first, now=NOW) is None and session_user(store, second, now=NOW) is None
    assert session_user(store, other, now=NOW).name == "ada"


def test_a_token_with_a_changed_expiry_is_refused(store):
    session_id, expires, signature = start_session(store, "dana", lifetime_s=60, now=NOW).split(".")
    assert session_user(store, f"{session_id}.{int(expires) + 86400}.{signature}", now=NOW) is None


def test_a_token_signed_by_another_project_is_refused(store, tmp_path):
    other = ProjectStore.open(tmp_path / "other", create=True)
    add_account(other, "dana", "annotator", "dana")
    assert session_user(store, start_session(other, "dana", now=NOW), now=NOW) is None


@pytest.mark.parametrize("token", [None, "", "garbage", "a.b.c", "a..c", "x.123"])
def test_a_malformed_token_signs_nobody_in(store, token):
    assert session_user(store, token, now=NOW) is None


def test_a_session_of_a_removed_account_signs_nobody_in(store):
    token = start_session(store, "dana", now=NOW)
    store.database.write(lambda c: c.execute("DELETE FROM users WHERE name = 'dana'"))
    assert session_user(store, token, now=NOW) is None


def test_a_role_change_shows_in_the_session_at_once(store):
    token = start_session(store, "dana", now=NOW)
    store.set_user("dana", role="adjudicator")
    assert session_user(store, token, now=NOW).role == "adjudicator"


def test_no_session_starts_for_an_unknown_account(store):
    with pytest.raises(ValueError, match="no user 'zoe'"):
        start_session(store, "zoe")


def test_the_table_keeps_no_token_that_could_sign_in(store):
    token = start_session(store, "dana", now=NOW)
    stored = store.database.query("SELECT * FROM sessions")[0]
    assert token.split(".")[0] not in str(stored.values()) and token not in str(stored.values())


def test_expired_sessions_are_forgotten_and_live_ones_kept(store):
    start_session(store, "dana", lifetime_s=10, now=NOW)
    live = start_session(store, "ada", lifetime_s=1000, now=NOW)
    assert forget_expired(store, now=NOW + 100) == 1
    assert session_user(store, live, now=NOW + 100).name == "ada"
