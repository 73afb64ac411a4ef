"""The typed rows the project store reads about people and media, built where the row is read.

An `Account` is one row of `users`; its password hash is left out of its repr, so printing or
logging an account never shows it. The signed-in `Person` (name and role) is what sign-in, a
session and a page hold: it carries no secret. A `MediaFile` is one row of `media`.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Person:
    """Who is signed in: their account's name and role."""

    name: str
    role: str


@dataclass(frozen=True)
class Account:
    """An account: unique name, role (one of ROLES), email for single sign-on (None when it has
    none), scrypt hash of the password (None for an account that signs in by single sign-on only)."""

    name: str
    role: str
    email: str | None = None
    password_hash: str | None = field(default=None, repr=False)

    @property
    def person(self) -> Person:
        return Person(self.name, self.role)


@dataclass(frozen=True)
class MediaFile:
    """A registered media file: `path` relative to the media root (read the file through
    `annotation.project.media_source`, which checks it again), its SHA-256, what the probe found
    (`info`: duration_s, fps, has_audio, size, mtime_ns …) and the proxy's full path (or None)."""

    name: str
    path: str
    sha256: str
    info: dict
    proxy_path: str | None = None

    @property
    def duration_s(self) -> float | None:
        return self.info.get("duration_s")

    @property
    def has_audio(self) -> bool:
        return bool(self.info.get("has_audio"))
