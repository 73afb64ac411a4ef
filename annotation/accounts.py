"""Passwords and roles. scrypt from hashlib; the hash string carries its parameters."""
from __future__ import annotations

import base64
import hashlib
import hmac
import os

from annotation.store import ROLES, ProjectStore

_N, _R, _P = 2**14, 8, 1


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
        actual = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r),
                                p=int(p), dklen=len(expected))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


def add_account(store: ProjectStore, name: str, role: str, password: str) -> None:
    """Create an account; names are unique, roles are one of ROLES."""
    name = name.strip()
    if not name or any(ch in name for ch in ":/ "):
        raise ValueError("a user name must be non-empty and contain no ':', '/' or spaces")
    if role not in ROLES:
        raise ValueError(f"role '{role}' is not one of {', '.join(ROLES)}")
    if store.user(name) is not None:
        raise ValueError(f"user '{name}' already exists")
    store.add_user(name, role, hash_password(password))


def authenticate(store: ProjectStore, name: str, password: str) -> dict | None:
    """The user dict when name and password match, else None."""
    user = store.user(name.strip())
    if user is None or not verify_password(password, user["password_hash"]):
        return None
    return {"name": user["name"], "role": user["role"]}
