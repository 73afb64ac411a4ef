"""Sign-in (issue 12): throttled per account and per client with growing waits, an unknown name
costing what a wrong password costs, scrypt at N = 2^17 with a re-hash of weaker hashes, and names
compared without regard to case or surrounding space (issue 14)."""

from __future__ import annotations

import functools
import hashlib
import tempfile
from pathlib import Path

import pytest

from annotation.store import accounts
from annotation.store.accounts import (
    FIRST_WAIT_S,
    FORGET_AFTER_S,
    FREE_FAILURES,
    LONGEST_WAIT_S,
    SCRYPT_N,
    add_account,
    authenticate,
    hash_password,
    needs_rehash,
    sign_in_wait_s,
    verify_password,
)
from annotation.store.project_store import ProjectStore
from annotation.store.rows import Person

T0 = 1_000_000.0  # a fixed clock: the throttle is tested by the times it is given, never by sleeping
CHEAP_N = 2**4  # the throttle does not depend on the hash's cost; these accounts check fast


@functools.cache
def cheap_hash(password: str) -> str:
    return hash_password(password, n=CHEAP_N)


@pytest.fixture
def store(tmp_path, monkeypatch):
    # A refused unknown name is checked against the process's decoy hash (≈ 0.5 s at full strength):
    # for the throttle's tests, a CHEAP_N one like the accounts'. That an unknown name costs a full
    # scrypt is tested below without this store (test_an_unknown_name_costs_the_same_scrypt_…).
    monkeypatch.setattr(accounts, "_decoy_hash", functools.partial(cheap_hash, "decoy"))
    # A success re-hashes a weaker hash at full strength (≈ 0.5 s, and as much for every later
    # check): here CHEAP_N is the current strength. The re-hash is tested below at SCRYPT_N.
    monkeypatch.setattr(accounts, "SCRYPT_N", CHEAP_N)
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_user("Alice", "annotator", cheap_hash("right"))
    store.add_user("bob", "adjudicator", cheap_hash("bobs"))
    return store


def fail(store, name: str, times: int, *, client: str | None = None, start: float = T0) -> float:
    """`times` counted failures, each made as soon as the throttle hears it; the last one's time."""
    now = start
    for i in range(times):
        now += sign_in_wait_s(store, name, client=client, now=now) + (0.001 if i else 0)
        assert authenticate(store, name, "wrong", client=client, now=now) is None
    return now


def test_the_first_failures_cost_no_wait(store):
    fail(store, "Alice", FREE_FAILURES["account"] - 1)
    assert sign_in_wait_s(store, "Alice", now=T0 + 1) == 0


def test_after_the_free_failures_the_account_waits_a_second(store):
    last = fail(store, "Alice", FREE_FAILURES["account"])
    assert sign_in_wait_s(store, "Alice", now=last) == pytest.approx(FIRST_WAIT_S)


def test_each_further_failure_doubles_the_wait(store):
    last = fail(store, "Alice", FREE_FAILURES["account"] + 2)
    assert sign_in_wait_s(store, "Alice", now=last) == pytest.approx(4 * FIRST_WAIT_S)


def test_the_wait_never_exceeds_the_longest(store):
    last = fail(store, "Alice", FREE_FAILURES["account"] + 14)
    assert sign_in_wait_s(store, "Alice", now=last) == LONGEST_WAIT_S


def test_while_waiting_even_the_right_password_is_refused(store):
    last = fail(store, "Alice", FREE_FAILURES["account"])
    assert authenticate(store, "Alice", "right", now=last + 0.5) is None


def test_once_the_wait_is_over_the_right_password_signs_in(store):
    last = fail(store, "Alice", FREE_FAILURES["account"])
    assert authenticate(store, "Alice", "right", now=last + FIRST_WAIT_S) == Person("Alice", "annotator")


def test_a_success_forgets_the_accounts_failures(store):
    fail(store, "Alice", FREE_FAILURES["account"] - 1)
    authenticate(store, "Alice", "right", now=T0 + 1)
    fail(store, "Alice", FREE_FAILURES["account"] - 1, start=T0 + 2)
    assert sign_in_wait_s(store, "Alice", now=T0 + 3) == 0


def test_failures_older_than_a_day_are_forgotten(store):
    last = fail(store, "Alice", FREE_FAILURES["account"] + 5)
    assert sign_in_wait_s(store, "Alice", now=last + FORGET_AFTER_S) == 0


def test_the_throttle_of_one_name_leaves_another_alone(store):
    fail(store, "Alice", FREE_FAILURES["account"] + 3)
    assert authenticate(store, "bob", "bobs", now=T0 + 0.1) == Person("bob", "adjudicator")


def test_an_unknown_name_is_throttled_like_a_known_one(store):
    last = fail(store, "nobody", FREE_FAILURES["account"])
    assert sign_in_wait_s(store, "nobody", now=last) == pytest.approx(FIRST_WAIT_S)


def test_a_client_trying_many_names_is_throttled_across_them(store):
    now = T0
    for i in range(FREE_FAILURES["client"]):  # each attempt waits out its name's own throttle
        now = fail(store, ("Alice", "bob")[i % 2], 1, client="10.0.0.7", start=now + 0.001)
    assert sign_in_wait_s(store, "someone-else", client="10.0.0.7", now=now) == pytest.approx(FIRST_WAIT_S)
    assert sign_in_wait_s(store, "someone-else", client="10.0.0.8", now=now) == 0


def test_a_throttled_client_cannot_sign_in_even_with_the_right_password(store):
    last = fail(store, "Alice", FREE_FAILURES["client"], client="10.0.0.7")
    assert authenticate(store, "bob", "bobs", client="10.0.0.7", now=last + 0.5) is None


# --- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["alice", "ALICE", "  Alice ", "aLiCe"])
def test_names_are_compared_without_case_and_surrounding_space(store, typed):
    assert authenticate(store, typed, "right", now=T0) == Person("Alice", "annotator")


def test_a_name_differing_only_in_case_cannot_be_added(store):
    with pytest.raises(ValueError, match="already exists as 'Alice'"):
        add_account(store, "ALICE", "annotator", "pw")


# --- hashing ------------------------------------------------------------------------------------


def test_new_passwords_are_hashed_with_scrypt_n_2_17_r_8_p_1():
    stored = hash_password("secret")
    assert stored.split("$")[:4] == ["scrypt", str(2**17), "8", "1"]
    assert verify_password("secret", stored) and not verify_password("Secret", stored)


def test_a_weaker_hash_is_replaced_on_the_next_successful_sign_in(store, monkeypatch):
    monkeypatch.setattr(accounts, "SCRYPT_N", SCRYPT_N)  # the store's fixture lowered it
    assert needs_rehash(store.user("Alice").password_hash)
    authenticate(store, "Alice", "right", now=T0)
    stored = store.user("Alice").password_hash
    assert (stored.split("$")[1], verify_password("right", stored)) == (str(SCRYPT_N), True)


def test_a_failed_sign_in_keeps_the_weaker_hash(store, monkeypatch):
    monkeypatch.setattr(accounts, "SCRYPT_N", SCRYPT_N)  # the store's fixture lowered it
    before = store.user("Alice").password_hash
    authenticate(store, "Alice", "wrong", now=T0)
    assert store.user("Alice").password_hash == before


def recorded_scrypt_calls(monkeypatch) -> list[tuple]:
    """The parameters of every scrypt the code runs (the real one still runs). The decoy hash a
    refusal is checked against is made once per process, on first need: made here first, so the
    count does not depend on which test ran before in this process (pytest -n 2)."""
    with tempfile.TemporaryDirectory() as scratch:
        store = ProjectStore.open(Path(scratch) / "p", create=True)
        authenticate(store, "nobody", "wrong", now=T0)
        store.close()
    calls, real = [], hashlib.scrypt

    def recording(password, *, salt, n, r, p, dklen, maxmem=0):
        calls.append((n, r, p, dklen))
        return real(password, salt=salt, n=n, r=r, p=p, dklen=dklen, maxmem=maxmem)

    monkeypatch.setattr(hashlib, "scrypt", recording)
    return calls


def test_an_unknown_name_costs_the_same_scrypt_as_a_wrong_password(tmp_path, monkeypatch):
    store = ProjectStore.open(tmp_path / "p", create=True)
    add_account(store, "carol", "annotator", "carols")
    calls = recorded_scrypt_calls(monkeypatch)  # which makes the process's decoy hash first
    authenticate(store, "carol", "wrong", now=T0)
    wrong_password = list(calls)
    calls.clear()
    authenticate(store, "nobody", "wrong", now=T0)
    assert calls == wrong_password == [(SCRYPT_N, 8, 1, 32)]


def test_an_account_without_a_password_costs_the_same_scrypt_as_a_wrong_password(tmp_path, monkeypatch):
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_user("sso-only", "annotator", None, "sso@example.org")
    calls = recorded_scrypt_calls(monkeypatch)
    assert authenticate(store, "sso-only", "", now=T0) is None
    assert calls == [(SCRYPT_N, 8, 1, 32)]
