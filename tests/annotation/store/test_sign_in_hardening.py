"""Issue 23, findings 1–6: who single sign-on lets in, sessions that end when they should, and a
sign-in throttle that cannot be raced or turned against the people it protects."""

from __future__ import annotations

import functools
import threading

import pytest

from annotation.store import accounts
from annotation.store.accounts import (
    FIRST_WAIT_S,
    FORGET_AFTER_S,
    FREE_FAILURES,
    MAX_HASHES_IN_FLIGHT,
    SHARED_WAIT_S,
    account_for_identity,
    add_account,
    authenticate,
    hash_password,
    peak_hashes_in_flight,
    remove_account,
    set_email,
    set_password,
    set_role,
    sign_in_client,
    sign_in_wait_s,
    verified_identity_email,
)
from annotation.store.project_store import ProjectStore
from annotation.store.rows import Person
from annotation.store.sessions import live_sessions, session_user, start_session

T0 = 1_000_000.0
CHEAP_N = 2**4


@functools.cache
def cheap_hash(password: str) -> str:
    return hash_password(password, n=CHEAP_N)


@pytest.fixture
def store(tmp_path, monkeypatch):
    # A refused made-up name is checked against the process's decoy hash, at full strength ≈0.5 s
    # each (one test makes 41 such attempts): here the decoy is a CHEAP_N hash like the accounts'.
    # That an unknown name costs a full scrypt is test_accounts_sign_in.py's subject.
    monkeypatch.setattr(accounts, "_decoy_hash", functools.partial(cheap_hash, "decoy"))
    # A success would re-hash the cheap hash at full strength (≈ 0.5 s): CHEAP_N is the current
    # strength here. The re-hash is test_accounts_sign_in.py's subject.
    monkeypatch.setattr(accounts, "SCRYPT_N", CHEAP_N)
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_user("carol", "annotator", cheap_hash("carols"), "kim@example.org")
    store.add_user("boss", "admin", cheap_hash("boss"))
    return store


# --- 1. single sign-on ---------------------------------------------------------------------------


@pytest.mark.parametrize("claim", [False, "false", "true", 0, 1, None, "missing"])
def test_only_a_literal_true_email_verified_claim_lets_an_identity_sign_in(claim):
    identity = {"email": "kim@example.org"} | ({} if claim == "missing" else {"email_verified": claim})
    assert verified_identity_email(identity) == (None, "unverified")


def test_a_verified_identity_email_may_sign_in():
    assert verified_identity_email({"email": " kim@example.org", "email_verified": True}) == (
        "kim@example.org",
        "",
    )


def test_a_compatibility_look_alike_address_is_refused_even_when_verified(store):
    # U+212A KELVIN SIGN looks like K; Python's lower() turns it into 'k', so it signed in as kim.
    assert verified_identity_email({"email": "\u212aim@example.org", "email_verified": True}) == (
        None,
        "look-alike",
    )


def test_stored_emails_are_compared_after_nfkc_and_casefold(store):
    # A row stored before issue 23 keeps whatever case and compatibility form it had.
    store.set_user("boss", email="Stra\ufb00e@Example.org")  # U+FB00 LATIN SMALL LIGATURE FF
    assert account_for_identity(store, "straffe@example.org") == Person("boss", "admin")


def test_a_new_email_is_stored_in_nfkc_casefolded_form(store):
    assert set_email(store, "boss", "Bo\ufb00@Example.ORG") == "boff@example.org"
    assert store.user("boss").email == "boff@example.org"


# --- 2. sessions that end --------------------------------------------------------------------------


def test_a_password_change_ends_the_persons_sessions(store):
    token = start_session(store, "carol")
    set_password(store, "carol", "new-password")
    assert session_user(store, token) is None


def test_an_email_change_ends_the_persons_sessions(store):
    token = start_session(store, "carol")
    set_email(store, "carol", "carol@example.org")
    assert session_user(store, token) is None


def test_setting_the_same_email_again_keeps_the_sessions(store):
    token = start_session(store, "carol")
    set_email(store, "carol", "KIM@example.org")
    assert session_user(store, token).name == "carol"


def test_a_role_change_ends_the_persons_sessions_and_no_one_elses(store):
    token, other = start_session(store, "carol"), start_session(store, "boss")
    set_role(store, "carol", "adjudicator")
    assert session_user(store, token) is None and session_user(store, other).name == "boss"


def test_removing_an_account_deletes_its_sessions(store):
    start_session(store, "carol")
    remove_account(store, "carol")
    assert store.user("carol") is None and "carol" not in live_sessions(store)


def test_an_account_made_anew_under_an_old_name_does_not_inherit_its_sessions(store):
    token = start_session(store, "carol")
    store.database.write(lambda c: c.execute("DELETE FROM users WHERE name = 'carol'"))
    add_account(store, "carol", "admin", "another")
    assert session_user(store, token) is None


def test_the_last_admin_cannot_be_removed_or_demoted(store):
    with pytest.raises(ValueError, match="at least one admin"):
        remove_account(store, "boss")
    with pytest.raises(ValueError, match="at least one admin"):
        set_role(store, "boss", "annotator")


def test_expired_sessions_are_deleted_when_a_session_starts(store):
    start_session(store, "carol", lifetime_s=10, now=T0)
    start_session(store, "boss", now=T0 + 20)
    rows = store.database.connection.execute("SELECT name FROM sessions").fetchall()
    assert rows == [("boss",)]


# --- 3. the race ------------------------------------------------------------------------------------


def in_parallel(attempts: list) -> list:
    """Run every attempt in its own thread, all released at once; their results in order."""
    results, start = [None] * len(attempts), threading.Barrier(len(attempts))

    def run(i):
        start.wait()
        results[i] = attempts[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(attempts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_thirty_two_parallel_attempts_are_heard_only_up_to_the_free_failures(store):
    results = in_parallel(
        [functools.partial(authenticate, store, "carol", "wrong", client="10.0.0.9", now=T0)] * 32
    )
    heard = store.database.connection.execute(
        "SELECT failures FROM sign_in_failures WHERE kind = 'account'"
    ).fetchone()[0]
    assert results == [None] * 32 and heard == FREE_FAILURES["account"]
    assert sign_in_wait_s(store, "carol", client="10.0.0.9", now=T0) == pytest.approx(FIRST_WAIT_S)


def test_no_more_than_the_cap_of_scrypt_hashes_run_at_once(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    peak_hashes_in_flight(reset=True)
    in_parallel([functools.partial(authenticate, store, f"n{i}", "x", now=T0) for i in range(6)])
    assert peak_hashes_in_flight() == MAX_HASHES_IN_FLIGHT


# --- 4. one address, one bucket ----------------------------------------------------------------------


def fail(store, name, client, times, now=T0):
    for _ in range(times):
        now += sign_in_wait_s(store, name, client=client, now=now) + 0.001
        assert authenticate(store, name, "wrong", client=client, now=now) is None
    return now


def test_failures_under_made_up_names_hold_a_shared_address_back_at_most_a_minute(store):
    last = fail(store, "made-up", "10.0.0.1", 0)
    for i in range(40):
        last = fail(store, f"made-up-{i}", "10.0.0.1", 1, now=last)
    assert 0 < sign_in_wait_s(store, "carol", client="10.0.0.1", now=last) <= SHARED_WAIT_S
    assert authenticate(store, "carol", "carols", client="10.0.0.1", now=last + SHARED_WAIT_S) is not None


def test_a_forwarded_for_header_is_ignored_unless_proxies_are_configured():
    assert sign_in_client("203.0.113.5", "203.0.113.5", proxy_configured=False) == "forwarded"
    assert sign_in_client("203.0.113.5", "203.0.113.5", proxy_configured=True) == "203.0.113.5"
    assert sign_in_client("198.51.100.2", None, proxy_configured=False) == "198.51.100.2"


# --- 5. no lock-out ----------------------------------------------------------------------------------


def test_someone_elses_failures_on_a_name_never_lock_its_owner_out_for_long(store):
    last = fail(store, "carol", "10.6.6.6", 60)  # a wrong try as often as the throttle allows
    assert sign_in_wait_s(store, "carol", client="10.6.6.6", now=last) > SHARED_WAIT_S
    assert sign_in_wait_s(store, "carol", client="192.0.2.7", now=last) <= SHARED_WAIT_S
    assert authenticate(store, "carol", "carols", client="192.0.2.7", now=last + SHARED_WAIT_S) is not None


# --- 6. failed names stored bounded and purged ---------------------------------------------------------


def test_a_huge_failed_name_is_stored_as_a_fixed_size_digest(store):
    authenticate(store, "x" * 5_000_000, "wrong", client="10.0.0.1", now=T0)
    lengths = store.database.connection.execute("SELECT length(subject) FROM sign_in_failures").fetchall()
    assert {n for (n,) in lengths} == {64}


def test_failures_older_than_a_day_are_deleted_when_an_attempt_is_counted(store):
    fail(store, "someone", "10.0.0.1", 2)
    authenticate(store, "carol", "wrong", client="10.0.0.2", now=T0 + FORGET_AFTER_S + 1)
    rows = store.database.connection.execute("SELECT count(*) FROM sign_in_failures").fetchone()[0]
    assert rows == 3  # carol's own buckets (name+client, name, client) only
