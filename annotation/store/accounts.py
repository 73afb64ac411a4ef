"""Passwords, roles, emails and sign-in. scrypt from hashlib; the hash string carries its parameters.
An account's email is how a single sign-on identity finds it (`account_for_identity`).

Sign-in is throttled per account name and per client: after a few failures each further attempt
must wait, twice as long after every failure (`sign_in_wait_s`); an unknown name costs the same
scrypt as a wrong password, so names cannot be found by timing. Names are compared without
regard to case or surrounding space. Failures are kept in the `sign_in_failures` table, which
this module owns and migrates.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import os
import re
import time

from annotation.store.project_store import ROLES, ProjectStore

# OWASP's scrypt guidance (2023): N = 2^17, r = 8, p = 1; it needs 128 MiB, above hashlib's
# default 32 MiB limit, so the limit is raised for this (and any older, smaller) hash.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**17, 8, 1
_MAX_MEMORY = 256 * 1024 * 1024
# Deliberately loose (the identity provider is the authority on addresses): one '@', something on
# each side, a dot in the domain, no spaces.
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+")

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
]
# Free failures before the first wait, per kind (a client may be many people behind one address).
FREE_FAILURES = {"account": 3, "client": 10}
FIRST_WAIT_S = 1.0  # then 2, 4, 8 … seconds
LONGEST_WAIT_S = 15 * 60.0
FORGET_AFTER_S = 24 * 3600.0  # failures this old no longer count


def hash_password(password: str, *, n: int = SCRYPT_N) -> str:
    """'scrypt$N$r$p$salt$hash' (base64); a new random salt each call. `n` is for reading
    hashes made with older parameters in tests; new accounts always get SCRYPT_N."""
    salt = os.urandom(16)
    digest = _scrypt(password, salt, n, SCRYPT_R, SCRYPT_P, 32)
    b64 = base64.b64encode
    return f"scrypt${n}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8", "surrogatepass"), salt=salt, n=n, r=r, p=p, dklen=length, maxmem=_MAX_MEMORY
    )


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
    """`email` stripped and lower-cased; ValueError naming it when it is not an address."""
    normalised = (email or "").strip().lower()
    if not _EMAIL.fullmatch(normalised):
        raise ValueError(f"'{(email or '').strip()}' is not an email address (expected name@example.org)")
    return normalised


def _check_email_free(store: ProjectStore, email: str, name: str) -> None:
    owner = store.user_by_email(email)
    if owner is not None and owner["name"] != name:
        raise ValueError(
            f"the email {email} already belongs to '{owner['name']}' (emails are unique per project)"
        )


def add_account(store: ProjectStore, name: str, role: str, password: str, email: str = "") -> None:
    """Create an account; names are unique, roles are one of ROLES, an email (optional) is a valid
    address no other account has. Bad input raises ValueError with the reason."""
    name = name.strip()
    if not name or any(ch in name for ch in ":/ "):
        raise ValueError("a user name must be non-empty and contain no ':', '/' or spaces")
    if role not in ROLES:
        raise ValueError(f"role '{role}' is not one of {', '.join(ROLES)}")
    existing = store.user_ignoring_case(name)
    if existing is not None:
        also = "" if existing["name"] == name else f" as '{existing['name']}' (names ignore case)"
        raise ValueError(f"user '{name}' already exists{also}")
    email = normalise_email(email) if email.strip() else None
    if email:
        _check_email_free(store, email, name)
    store.add_user(name, role, hash_password(password), email)


def set_email(store: ProjectStore, name: str, email: str) -> str | None:
    """Give account `name` this email (empty removes it); returns the stored, normalised email.
    ValueError for an unknown account, an invalid address or one another account has."""
    if store.user(name) is None:
        raise ValueError(f"there is no user '{name}'")
    if not email.strip():
        store.set_user(name, email="")
        return None
    email = normalise_email(email)
    _check_email_free(store, email, name)
    store.set_user(name, email=email)
    return email


def account_for_identity(store: ProjectStore, email: str | None) -> dict | None:
    """{'name', 'role'} of the account whose email is `email` (case and surrounding spaces
    ignored), or None when there is none or `email` is empty or not an address."""
    try:
        normalised = normalise_email(email or "")
    except ValueError:
        return None
    user = store.user_by_email(normalised)
    return None if user is None else {"name": user["name"], "role": user["role"]}


def _subjects(name: str, client: str | None) -> list[tuple[str, str]]:
    subjects = [("account", name.strip().casefold())]
    return subjects + ([("client", client)] if client else [])


def _wait_s(failures: int, kind: str) -> float:
    over = failures - FREE_FAILURES[kind]
    return 0.0 if over < 0 else min(LONGEST_WAIT_S, FIRST_WAIT_S * 2 ** min(over, 30))


def sign_in_wait_s(
    store: ProjectStore, name: str, *, client: str | None = None, now: float | None = None
) -> float:
    """Seconds before the next sign-in attempt for this name (known or not) or from this client
    is heard; 0 when it may be made now. `client` identifies where attempts come from (an
    address, a browser); `now` is a time.time() value (default: now)."""
    store.database.migrate(OWNER, MIGRATIONS)
    now = time.time() if now is None else now
    wait = 0.0
    for kind, subject in _subjects(name, client):
        row = store.database.connection.execute(
            "SELECT failures, last_at FROM sign_in_failures WHERE kind = ? AND subject = ?", [kind, subject]
        ).fetchone()
        delay = 0.0 if row is None or now - row[1] >= FORGET_AFTER_S else _wait_s(row[0], kind)
        if delay:
            wait = max(wait, row[1] + delay - now)
    return max(0.0, wait)


def _record_failure(store: ProjectStore, name: str, client: str | None, now: float) -> None:
    def count(conn) -> None:
        for kind, subject in _subjects(name, client):
            conn.execute(
                "INSERT INTO sign_in_failures(kind, subject, failures, last_at) VALUES (?, ?, 1, ?) "
                "ON CONFLICT(kind, subject) DO UPDATE SET last_at = excluded.last_at, failures = "
                "CASE WHEN excluded.last_at - sign_in_failures.last_at < ? THEN failures + 1 ELSE 1 END",
                [kind, subject, now, FORGET_AFTER_S],
            )

    store.database.write(count)


def authenticate(
    store: ProjectStore, name: str, password: str, *, client: str | None = None, now: float | None = None
) -> dict | None:
    """{'name', 'role'} when name (case and surrounding space ignored) and password match, else
    None. None without checking while `sign_in_wait_s` says to wait (ask it why); a failure
    counts against the name and the client; an unknown name costs what a wrong password
    does. A success forgets the name's failures and re-hashes a password stored with weaker
    scrypt parameters."""
    now = time.time() if now is None else now
    if sign_in_wait_s(store, name, client=client, now=now) > 0:
        return None
    user = store.user_ignoring_case(name.strip())
    stored = None if user is None else user["password_hash"]
    if not verify_password(password, stored):
        _record_failure(store, name, client, now)
        return None
    store.database.write(
        lambda c: c.execute(
            "DELETE FROM sign_in_failures WHERE kind = 'account' AND subject = ?", [name.strip().casefold()]
        )
    )
    if needs_rehash(stored):
        store.set_user(user["name"], password_hash=hash_password(password))
    return {"name": user["name"], "role": user["role"]}
