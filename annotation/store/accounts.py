"""Passwords, roles, emails and sign-in. scrypt from hashlib; the hash string carries its parameters.
An account's email is how a single sign-on identity finds it (`account_for_identity`).

Sign-in is throttled in three buckets: per name and client together (the owner elsewhere is
never held by someone else's failures; waits grow to LONGEST_WAIT_S), per name across clients and
per client across names (both capped at SHARED_WAIT_S, so failures made by others slow a person
down but never lock them out for long). An attempt is counted *before* its password is hashed, in
the same transaction that checks the wait, so parallel attempts cannot all slip past the check;
at most MAX_HASHES_IN_FLIGHT scrypt hashes (≈128 MiB each) run at once in a process. An unknown
name costs the same scrypt as a wrong password, so names cannot be found by timing. Names are
compared without regard to case or surrounding space. The `sign_in_failures` table (owned and
migrated here) keeps only SHA-256 digests of names and clients, and forgets rows older than
FORGET_AFTER_S whenever an attempt is counted.

A new name (`check_new_account_name`, which every way of creating an account goes through) is
what a person can type into the one-line Name field and tell apart from every other name: no
whitespace, no control, format (zero-width, direction marks) or other invisible characters, already
in NFKC form, and not equal to an existing name once case and compatibility forms are folded (as
the sign-in throttle folds them; sign-in itself ignores case). Accounts made before these rules
keep their names and keep working.

Changing a person's password, email or role, or removing the account, ends their sessions
(`annotation.store.sessions`): whoever held an old session must sign in again.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import os
import re
import threading
import time
import unicodedata

from annotation.protocol.citations import shown
from annotation.store.database import declare_tables
from annotation.store.project_store import ROLES, ProjectStore
from annotation.store.rows import Account, Person
from annotation.store.sessions import forget_sessions, revoke_sessions

# OWASP's scrypt guidance (2023): N = 2^17, r = 8, p = 1; it needs 128 MiB, above hashlib's
# default 32 MiB limit, so the limit is raised for this (and any older, smaller) hash.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**17, 8, 1
_MAX_MEMORY = 256 * 1024 * 1024
# Deliberately loose (the identity provider is the authority on addresses): one '@', something on
# each side, a dot in the domain, no spaces.
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+")
# ':' ends a source's kind ('human:<name>'); '/' separates the parts of ids and paths.
_NAME_SEPARATORS = ":/"
# Unicode's "other" characters (category C*), none of which a person can see or type in a name.
_UNSEEN_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "a format character (it shows as nothing)",
    "Cs": "a lone surrogate (no character at all)",
    "Co": "a private-use character (each font draws it differently, or not at all)",
    "Cn": "an unassigned code point (it shows as nothing or a box)",
}

OWNER = "sign_in"
MIGRATIONS = [
    """
    CREATE TABLE sign_in_failures (
        kind TEXT NOT NULL CHECK (kind IN ('account', 'client')),
        subject TEXT NOT NULL,
        failures INTEGER NOT NULL,
        last_at REAL NOT NULL,
        PRIMARY KEY (kind, subject));
    """,
    # Issue 23: three buckets, subjects stored as SHA-256 digests (a 20 MB name grew the file by
    # 40 MB); the old rows are transient counts and are simply dropped.
    """
    DROP TABLE sign_in_failures;
    CREATE TABLE sign_in_failures (
        kind TEXT NOT NULL CHECK (kind IN ('account', 'name', 'client')),
        subject TEXT NOT NULL CHECK (length(subject) = 64),
        failures INTEGER NOT NULL,
        last_at REAL NOT NULL,
        PRIMARY KEY (kind, subject));
    CREATE INDEX sign_in_failures_by_age ON sign_in_failures(last_at);
    """,
]
TABLES = declare_tables(OWNER, MIGRATIONS)
# Free failures before the first wait, per bucket: 'account' is one name from one client, 'name'
# that name from anywhere, 'client' one client under any name (many people may share an address).
FREE_FAILURES = {"account": 3, "name": 10, "client": 20}
FIRST_WAIT_S = 1.0  # then 2, 4, 8 … seconds
LONGEST_WAIT_S = 15 * 60.0  # the ceiling for one name from one client
SHARED_WAIT_S = 60.0  # the ceiling for the buckets other people's failures also fill
CEILING_S = {"account": LONGEST_WAIT_S, "name": SHARED_WAIT_S, "client": SHARED_WAIT_S}
FORGET_AFTER_S = 24 * 3600.0  # failures this old no longer count (and their rows are deleted)
# Each scrypt at N = 2^17 holds 128 MiB; more attempts than this wait for a free slot.
MAX_HASHES_IN_FLIGHT = 2
_hash_slots = threading.BoundedSemaphore(MAX_HASHES_IN_FLIGHT)
_in_flight_lock = threading.Lock()
_in_flight = {"now": 0, "peak": 0}


def hash_password(password: str, *, n: int = SCRYPT_N) -> str:
    """'scrypt$N$r$p$salt$hash' (base64); a new random salt each call. `n` is for reading
    hashes made with older parameters in tests; new accounts always get SCRYPT_N."""
    salt = os.urandom(16)
    digest = _scrypt(password, salt, n, SCRYPT_R, SCRYPT_P, 32)
    b64 = base64.b64encode
    return f"scrypt${n}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    with _hash_slots:
        with _in_flight_lock:
            _in_flight["now"] += 1
            _in_flight["peak"] = max(_in_flight["peak"], _in_flight["now"])
        try:
            return hashlib.scrypt(
                password.encode("utf-8", "surrogatepass"),
                salt=salt,
                n=n,
                r=r,
                p=p,
                dklen=length,
                maxmem=_MAX_MEMORY,
            )
        finally:
            with _in_flight_lock:
                _in_flight["now"] -= 1


def peak_hashes_in_flight(reset: bool = False) -> int:
    """The most scrypt hashes this process has run at once (since the last reset)."""
    with _in_flight_lock:
        peak = _in_flight["peak"]
        if reset:
            _in_flight["peak"] = _in_flight["now"]
        return peak


def verify_password(password: str, stored: str | None) -> bool:
    """True when `password` matches `stored`; False for any malformed or missing hash (which
    then costs a scrypt at the current parameters, like a real check)."""
    try:
        _, n, r, p, salt, digest = (stored or "").split("$")
        n, r, p = int(n), int(r), int(p)
        expected = base64.b64decode(digest, validate=True)
        salt_bytes = base64.b64decode(salt, validate=True)
        if not (
            stored.startswith("scrypt$")
            and 2 <= n <= SCRYPT_N
            and n & (n - 1) == 0
            and r == SCRYPT_R
            and p == SCRYPT_P
        ):
            raise ValueError("not a hash of ours")
    except (ValueError, TypeError):
        _equal_cost(password)
        return False
    return hmac.compare_digest(_scrypt(password, salt_bytes, n, r, p, len(expected)), expected)


def needs_rehash(stored: str | None) -> bool:
    """Whether a stored hash was made with parameters weaker than the current ones."""
    return not (stored or "").startswith(f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}$")


@functools.cache
def _decoy_hash() -> str:
    return hash_password(base64.b64encode(os.urandom(18)).decode())


def _equal_cost(password: str) -> None:
    """Spend what checking a real password costs, so a refusal's timing tells nothing."""
    verify_password(password, _decoy_hash())


def normalise_email(email: str) -> str:
    """`email` stripped, NFKC-normalised and case-folded (how emails are stored and compared);
    ValueError naming it when it is not an address."""
    normalised = unicodedata.normalize("NFKC", (email or "").strip()).casefold()
    if not _EMAIL.fullmatch(normalised):
        raise ValueError(f"'{(email or '').strip()}' is not an email address (expected name@example.org)")
    return normalised


def account_by_email(store: ProjectStore, email: str) -> Account | None:
    """The account whose stored email normalises to the same address as `email` (stored
    emails made before issue 23 were only lower-cased, so both sides are normalised here)."""
    wanted = normalise_email(email)
    return next(
        (user for user in store.users() if user.email and _normalised_or_none(user.email) == wanted), None
    )


def _normalised_or_none(email: str) -> str | None:
    try:
        return normalise_email(email)
    except ValueError:
        return None


def verified_identity_email(identity: dict | None) -> tuple[str | None, str]:
    """The email a single sign-on identity may sign in with, and why not when None: the
    provider must say `email_verified` is literally true (not "false", 0, null or absent), and
    the address must already be in NFKC form: a compatibility look-alike (the Kelvin sign 'K'
    for 'K') names another mailbox, which must not open the account of the one it resembles.
    Reasons: 'no email', 'unverified', 'look-alike'."""
    identity = identity or {}
    email = str(identity.get("email") or "").strip()
    if not email:
        return None, "no email"
    if identity.get("email_verified") is not True:
        return None, "unverified"
    if not unicodedata.is_normalized("NFKC", email):
        return None, "look-alike"
    return email, ""


def _check_email_free(store: ProjectStore, email: str, name: str) -> None:
    owner = account_by_email(store, email)
    if owner is not None and owner.name != name:
        raise ValueError(
            f"the email {email} already belongs to '{owner.name}' (emails are unique per project)"
        )


def _code_point(ch: str) -> str:
    """'U+200B (ZERO WIDTH SPACE)'; just 'U+000A' for a character without a name."""
    label = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" ({label})" if label else "")


def _name_character_problem(name: str) -> str | None:
    """Why the characters of `name` (already stripped) cannot make a new account's name, naming
    the first offending character by code point and position; None when they can."""
    if not name:
        return "a user name must not be empty"
    for position, ch in enumerate(name, start=1):
        category = unicodedata.category(ch)
        if ch in _NAME_SEPARATORS:
            why = "a user name cannot contain ':' or '/'"
        elif ch.isspace():
            why = "whitespace; a user name cannot contain any"
        elif category in _UNSEEN_CATEGORIES:
            why = f"{_UNSEEN_CATEGORIES[category]}; a user name cannot contain one"
        else:
            continue
        return f"the user name '{shown(name)}' has {_code_point(ch)} at character {position}: {why}"
    plain = unicodedata.normalize("NFKC", name)
    if plain != name:
        start = len(os.path.commonprefix([name, plain]))
        end = len(os.path.commonprefix([name[start:][::-1], plain[start:][::-1]]))
        was, becomes = name[start : len(name) - end], plain[start : len(plain) - end]
        return (
            f"the user name '{shown(name)}' is not in its plain (NFKC) form: "
            f"{' '.join(f'U+{ord(c):04X}' for c in was)} at character {start + 1} would be "
            f"{' '.join(f'U+{ord(c):04X}' for c in becomes)}; type it as '{shown(plain)}'"
        )
    return None


def check_new_account_name(store: ProjectStore, name: str) -> str:
    """`name` without surrounding whitespace, when it may name a new account in `store`: what a
    person can type and see (see the module's doc) and not equal to any existing name once case and
    compatibility forms are folded (sign-in ignores case, so two such names would be one person).
    ValueError naming the offending character (as U+XXXX) or the existing account otherwise."""
    name = name.strip()
    problem = _name_character_problem(name)
    if problem:
        raise ValueError(problem)
    if store.user(name) is not None:
        raise ValueError(f"user '{name}' already exists")
    # Every account, not `user_ignoring_case`: that finds none when older accounts already clash.
    key = _name_key(name)
    existing = next((user.name for user in store.users() if _name_key(user.name) == key), None)
    if existing is not None:
        same = (
            "ignore case at sign-in"
            if existing.casefold() == name.casefold()
            else "differ only in case or compatibility forms"
        )
        raise ValueError(f"user '{name}' already exists as '{shown(existing)}' (the two names {same})")
    return name


def add_account(store: ProjectStore, name: str, role: str, password: str, email: str = "") -> None:
    """Create an account; its name passes `check_new_account_name` (surrounding whitespace is
    dropped), its role is one of ROLES, an email (optional) is a valid address no other account
    has. Bad input raises ValueError with the reason."""
    name = check_new_account_name(store, name)
    if role not in ROLES:
        raise ValueError(f"role '{role}' is not one of {', '.join(ROLES)}")
    email = normalise_email(email) if email.strip() else None
    if email:
        _check_email_free(store, email, name)
    password_hash = hash_password(password)
    with store.database.transaction():
        # Sessions left by an earlier account of this name (removed outside `remove_account`)
        # must not sign the new one in.
        forget_sessions(store, name)
        store.add_user(name, role, password_hash, email)


def set_email(store: ProjectStore, name: str, email: str) -> str | None:
    """Give account `name` this email (empty removes it); returns the stored, normalised email.
    A changed email ends the person's sessions. ValueError for an unknown account, an invalid
    address or one another account has."""
    user = store.user(name)
    if user is None:
        raise ValueError(f"there is no user '{name}'")
    email = normalise_email(email) if email.strip() else None
    if email:
        _check_email_free(store, email, name)
    if email != user.email:
        with store.database.transaction():
            store.set_user(name, email=email or "")
            revoke_sessions(store, name)
    return email


def set_password(store: ProjectStore, name: str, password: str) -> None:
    """Give account `name` a new password and end its sessions (ValueError for an unknown one)."""
    if store.user(name) is None:
        raise ValueError(f"there is no user '{name}'")
    password_hash = hash_password(password)
    with store.database.transaction():
        store.set_user(name, password_hash=password_hash)
        revoke_sessions(store, name)


def set_role(store: ProjectStore, name: str, role: str) -> None:
    """Give account `name` this role; a change ends its sessions. ValueError for an unknown
    account, an unknown role, or taking the role of the project's last admin."""
    user = store.user(name)
    if user is None:
        raise ValueError(f"there is no user '{name}'")
    if role not in ROLES:
        raise ValueError(f"role '{role}' is not one of {', '.join(ROLES)}")
    if role == user.role:
        return
    _keep_an_admin(store, name, role)
    with store.database.transaction():
        store.set_user(name, role=role)
        revoke_sessions(store, name)


def _keep_an_admin(store: ProjectStore, name: str, new_role: str | None) -> None:
    admins = [u.name for u in store.users() if u.role == "admin"]
    if admins == [name] and new_role != "admin":
        raise ValueError("the project needs at least one admin")


def remove_account(store: ProjectStore, name: str) -> None:
    """Delete account `name` and its sessions (its labels stay: the event log is append-only).
    ValueError for an unknown account or the project's last admin."""
    if store.user(name) is None:
        raise ValueError(f"there is no user '{name}'")
    _keep_an_admin(store, name, None)
    with store.database.transaction() as conn:
        forget_sessions(store, name)
        conn.execute("DELETE FROM users WHERE name = ?", [name])


def account_for_identity(store: ProjectStore, email: str | None) -> Person | None:
    """The person whose account's email is `email` (case and surrounding spaces ignored), or
    None when there is none or `email` is empty or not an address."""
    try:
        user = account_by_email(store, email or "")
    except ValueError:
        return None
    return None if user is None else user.person


def sign_in_client(peer: str | None, forwarded_for: str | None, proxy_configured: bool) -> str | None:
    """Who a sign-in attempt comes from, for the throttle. `peer` is the address the server
    reports; Streamlit's server (uvicorn) takes it from an `X-Forwarded-For` header whenever the
    connection comes from 127.0.0.1, so unless the deployment configured which proxies to trust
    (`proxy_configured`), a request carrying that header is put in one shared 'forwarded' bucket
    instead of under the address it claims (anyone can write that header)."""
    if forwarded_for and not proxy_configured:
        return "forwarded"
    return peer or None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _name_key(name: str) -> str:
    return unicodedata.normalize("NFKC", name.strip()).casefold()


def _subjects(name: str, client: str | None) -> list[tuple[str, str]]:
    key = _name_key(name)
    subjects = [("account", _digest(f"{key}\0{client or ''}")), ("name", _digest(key))]
    return subjects + ([("client", _digest(client))] if client else [])


def _wait_s(failures: int, kind: str) -> float:
    over = failures - FREE_FAILURES[kind]
    return 0.0 if over < 0 else min(CEILING_S[kind], FIRST_WAIT_S * 2 ** min(over, 30))


def _remaining_wait_s(conn, name: str, client: str | None, now: float) -> float:
    wait = 0.0
    for kind, subject in _subjects(name, client):
        row = conn.execute(
            "SELECT failures, last_at FROM sign_in_failures WHERE kind = ? AND subject = ?", [kind, subject]
        ).fetchone()
        delay = 0.0 if row is None or now - row[1] >= FORGET_AFTER_S else _wait_s(row[0], kind)
        if delay:
            wait = max(wait, row[1] + delay - now)
    return max(0.0, wait)


def sign_in_wait_s(
    store: ProjectStore, name: str, *, client: str | None = None, now: float | None = None
) -> float:
    """Seconds before the next sign-in attempt for this name (known or not) from this client is
    heard; 0 when it may be made now. `client` identifies where attempts come from (an address,
    see `sign_in_client`); `now` is a time.time() value (default: now)."""
    TABLES.ready(store.database)
    now = time.time() if now is None else now
    return _remaining_wait_s(store.database.connection, name, client, now)


def _count_attempt(store: ProjectStore, name: str, client: str | None, now: float) -> bool:
    """In one transaction: forget old failures, check the wait, and (when none) count this
    attempt as a failure before any hashing; False when the attempt must wait."""
    TABLES.ready(store.database)

    def count(conn) -> bool:
        conn.execute("DELETE FROM sign_in_failures WHERE last_at <= ?", [now - FORGET_AFTER_S])
        if _remaining_wait_s(conn, name, client, now) > 0:
            return False
        for kind, subject in _subjects(name, client):
            conn.execute(
                "INSERT INTO sign_in_failures(kind, subject, failures, last_at) VALUES (?, ?, 1, ?) "
                "ON CONFLICT(kind, subject) DO UPDATE SET failures = failures + 1, last_at = excluded.last_at",
                [kind, subject, now],
            )
        return True

    return store.database.write(count)


def _uncount_success(store: ProjectStore, name: str, client: str | None) -> None:
    """A right password: the name's failures are forgotten, the client's count takes back this attempt."""
    subjects = dict(_subjects(name, client))

    def uncount(conn) -> None:
        conn.execute(
            "DELETE FROM sign_in_failures WHERE (kind = 'account' AND subject = ?) OR (kind = 'name' AND subject = ?)",
            [subjects["account"], subjects["name"]],
        )
        if "client" in subjects:
            conn.execute(
                "UPDATE sign_in_failures SET failures = max(0, failures - 1) WHERE kind = 'client' AND subject = ?",
                [subjects["client"]],
            )

    store.database.write(uncount)


def authenticate(
    store: ProjectStore, name: str, password: str, *, client: str | None = None, now: float | None = None
) -> Person | None:
    """The person when name (case and surrounding space ignored) and password match, else
    None. None without hashing while `sign_in_wait_s` says to wait (ask it why); the attempt is
    counted against the buckets before the password is hashed, so parallel attempts are
    throttled like sequential ones; an unknown name costs what a wrong password does. A success
    forgets the name's failures and re-hashes a password stored with weaker scrypt parameters."""
    now = time.time() if now is None else now
    if not _count_attempt(store, name, client, now):
        return None
    user = store.user_ignoring_case(name.strip())
    stored = None if user is None else user.password_hash
    if not verify_password(password, stored):
        return None
    _uncount_success(store, name, client)
    if needs_rehash(stored):
        store.set_user(user.name, password_hash=hash_password(password))
    return user.person
