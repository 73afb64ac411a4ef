"""Sign-in sessions that survive a reload: signed, expiring, revocable tokens. This module owns
the `sessions` and `session_keys` tables (its migrations are here) in the project's SQLite file.

A token is `<id>.<expires>.<signature>`: a random id, the expiry (Unix seconds) and an
HMAC-SHA256 of both under the project's own secret key (made on first use, kept in
`session_keys`). The server keeps one row per session, under the SHA-256 of its id (the table
alone cannot sign anyone in): who, when it expires, when it was revoked. A token counts only
when its signature is right, it has not expired, its row exists and is not revoked, and its
account still exists. Signing out revokes the row; `revoke_sessions` ends all of a person's
(annotation.store.accounts calls it when a password, email or role changes, and an admin can);
`forget_sessions` deletes them with their account; expired rows are deleted whenever a session
starts.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time

from annotation.store.database import declare_tables
from annotation.store.event_log import utc_now
from annotation.store.project_store import ProjectStore
from annotation.store.rows import Person

OWNER = "sessions"
# Append, never edit.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE sessions (
        id_sha256 TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL,
        expires_at INTEGER NOT NULL, revoked_at TEXT);
    CREATE INDEX sessions_by_name ON sessions(name);
    CREATE TABLE session_keys (id INTEGER PRIMARY KEY CHECK (id = 1), secret TEXT NOT NULL,
        created_at TEXT NOT NULL);
    """,
]
TABLES = declare_tables(OWNER, MIGRATIONS)
DEFAULT_LIFETIME_S = 14 * 24 * 3600


def _ready(store: ProjectStore) -> None:
    """This module's tables, brought current once per database (`Database.migrate`)."""
    TABLES.ready(store.database)


def _secret(store: ProjectStore) -> bytes:
    _ready(store)

    def read_or_make(conn) -> str:
        row = conn.execute("SELECT secret FROM session_keys WHERE id = 1").fetchone()
        if row is not None:
            return row[0]
        made = base64.b64encode(secrets.token_bytes(32)).decode()
        conn.execute("INSERT INTO session_keys(id, secret, created_at) VALUES (1, ?, ?)", [made, utc_now()])
        return made

    row = store.database.connection.execute("SELECT secret FROM session_keys WHERE id = 1").fetchone()
    return base64.b64decode(row[0] if row is not None else store.database.write(read_or_make))


def _signature(store: ProjectStore, session_id: str, expires: int) -> str:
    digest = hmac.new(_secret(store), f"{session_id}.{expires}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _id_sha256(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def start_session(
    store: ProjectStore, name: str, lifetime_s: int = DEFAULT_LIFETIME_S, now: float | None = None
) -> str:
    """A new session token for account `name` (ValueError when there is no such account)."""
    if store.user(name) is None:
        raise ValueError(f"there is no user '{name}'")
    session_id = secrets.token_urlsafe(24)
    started = int(time.time() if now is None else now)
    expires = started + int(lifetime_s)
    _ready(store)

    def insert(conn) -> None:
        conn.execute("DELETE FROM sessions WHERE expires_at <= ?", [started])
        conn.execute(
            "INSERT INTO sessions(id_sha256, name, created_at, expires_at) VALUES (?, ?, ?, ?)",
            [_id_sha256(session_id), name, utc_now(), expires],
        )

    store.database.write(insert)
    return f"{session_id}.{expires}.{_signature(store, session_id, expires)}"


def _parse(token: str | None) -> tuple[str, int, str] | None:
    parts = (token or "").split(".")
    if len(parts) != 3 or not parts[0] or not parts[1].isdigit():
        return None
    return parts[0], int(parts[1]), parts[2]


def session_user(store: ProjectStore, token: str | None, now: float | None = None) -> Person | None:
    """The person of the live session `token` names; None for anything else (malformed,
    badly signed, expired, revoked, unknown, or the account is gone)."""
    parsed = _parse(token)
    if parsed is None:
        return None
    session_id, expires, signature = parsed
    if not hmac.compare_digest(signature, _signature(store, session_id, expires)):
        return None
    if expires <= (time.time() if now is None else now):
        return None
    row = store.database.connection.execute(
        "SELECT name, expires_at, revoked_at FROM sessions WHERE id_sha256 = ?", [_id_sha256(session_id)]
    ).fetchone()
    if row is None or row[2] is not None or row[1] != expires:
        return None
    user = store.user(row[0])
    return None if user is None else user.person


def end_session(store: ProjectStore, token: str | None) -> bool:
    """Revoke the session `token` names (sign-out); True when a live session was revoked."""
    parsed = _parse(token)
    if parsed is None:
        return False
    _ready(store)
    cursor = store.database.write(
        lambda c: c.execute(
            "UPDATE sessions SET revoked_at = ? WHERE id_sha256 = ? AND revoked_at IS NULL",
            [utc_now(), _id_sha256(parsed[0])],
        )
    )
    return cursor.rowcount > 0


def revoke_sessions(store: ProjectStore, name: str) -> int:
    """Revoke every live session of account `name` (e.g. after a password change); how many."""
    _ready(store)
    cursor = store.database.write(
        lambda c: c.execute(
            "UPDATE sessions SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", [utc_now(), name]
        )
    )
    return cursor.rowcount


def forget_sessions(store: ProjectStore, name: str) -> int:
    """Delete every session row of account `name` (the account is being removed or made anew); how many."""
    _ready(store)
    return store.database.write(lambda c: c.execute("DELETE FROM sessions WHERE name = ?", [name])).rowcount


def live_sessions(store: ProjectStore, now: float | None = None) -> dict[str, int]:
    """How many live (not revoked, not expired) sessions each account has; accounts without any are left out."""
    _ready(store)
    rows = store.database.connection.execute(
        "SELECT name, count(*) FROM sessions WHERE revoked_at IS NULL AND expires_at > ? GROUP BY name",
        [int(time.time() if now is None else now)],
    )
    return dict(rows.fetchall())


def forget_expired(store: ProjectStore, now: float | None = None) -> int:
    """Delete the rows of sessions that have expired; how many."""
    _ready(store)
    cursor = store.database.write(
        lambda c: c.execute(
            "DELETE FROM sessions WHERE expires_at <= ?", [int(time.time() if now is None else now)]
        )
    )
    return cursor.rowcount
