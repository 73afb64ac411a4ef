"""Passwords, roles and emails. scrypt from hashlib; the hash string carries its parameters.
An account's email is how a single sign-on identity finds it (`account_for_identity`)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re

from annotation.store.project_store import ROLES, ProjectStore

_N, _R, _P = 2**14, 8, 1
# Deliberately loose (the identity provider is the authority on addresses): one '@', something on
# each side, a dot in the domain, no spaces.
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+")


def hash_password(password: str) -> str:
    """'scrypt$N$r$p$salt$hash' (base64); a new random salt each call."""
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    b64 = base64.b64encode
    return f"scrypt${_N}${_R}${_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_password(password: str, stored: str | None) -> bool:
    """True when `password` matches `stored`; False for any malformed or missing hash."""
    if not stored or not stored.startswith("scrypt$"):
        return False
    try:
        _, n, r, p, salt, digest = stored.split("$")
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(
            password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p), dklen=len(expected)
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


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
    if store.user(name) is not None:
        raise ValueError(f"user '{name}' already exists")
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


def authenticate(store: ProjectStore, name: str, password: str) -> dict | None:
    """The user dict when name and password match, else None."""
    user = store.user(name.strip())
    if user is None or not verify_password(password, user["password_hash"]):
        return None
    return {"name": user["name"], "role": user["role"]}
