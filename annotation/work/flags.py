"""The annotators' flags — questions and remarks about a response or the guidelines, written on the
Annotate page by `session.flag_for_guidelines` — read back for those who act on them (the Disputes
page, `python -m annotation flags`) and for the annotators who wrote them (the Annotate page), with
the adjudicators' answers. A flag is never undone: every 'flag' event is one flag.

An answer (`answer_flag`: an adjudicator or admin, a reply that may be empty — "dealt with") marks
its flag answered. Answers are kept in the `flag_answers` table, which this module owns (its
migrations are here), append-only: a later answer to the same flag is shown, the earlier ones stay.
They are not labels: they never enter the event log, the project's revision or gold.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from annotation.protocol.ids import Unit
from annotation.store.database import declare_tables
from annotation.store.event_log import utc_now

OWNER = "flag_answers"
# Append, never edit.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE flag_answers (
        id INTEGER PRIMARY KEY AUTOINCREMENT, flag_id INTEGER NOT NULL REFERENCES events(id),
        at TEXT NOT NULL, who TEXT NOT NULL, text TEXT NOT NULL);
    CREATE INDEX flag_answers_by_flag ON flag_answers(flag_id, id);
    """,
]
TABLES = declare_tables(OWNER, MIGRATIONS)
ANSWERING_ROLES = ("adjudicator", "admin")


def _when(at: str) -> str:
    """An ISO 8601 time to the minute, 'YYYY-MM-DD HH:MM UTC'; as stored when it does not parse."""
    try:
        return datetime.fromisoformat(at).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return at


@dataclass(frozen=True)
class FlagAnswer:
    """An adjudicator's answer to a flag: when (`at`, ISO 8601 UTC), who, and the reply as typed
    ('' when they only marked it dealt with)."""

    at: str
    who: str
    text: str

    @property
    def when(self) -> str:
        return _when(self.at)


@dataclass(frozen=True)
class Flag:
    """One flag: its event id and time (`at`, ISO 8601 UTC as the event log writes it), who wrote
    it, the response, the unit it is about (the whole response unless the writer named one), the
    text as typed and its answers, oldest first."""

    event_id: int
    at: str
    who: str
    response_id: str
    unit: Unit
    text: str
    answers: tuple[FlagAnswer, ...] = ()

    @property
    def sentence(self) -> int | None:
        """The index of the sentence the flag is about, None for the whole response."""
        return self.unit.sentence

    @property
    def where(self) -> str:
        """'r1' or 'r1, sentence 3' (counted from 1, as the pages count sentences)."""
        return (
            self.response_id if self.sentence is None else f"{self.response_id}, sentence {self.sentence + 1}"
        )

    @property
    def when(self) -> str:
        """`at` to the minute, 'YYYY-MM-DD HH:MM UTC'; `at` as stored when it does not parse."""
        return _when(self.at)

    @property
    def answer(self) -> FlagAnswer | None:
        """The answer in force: the latest (None while the flag is open)."""
        return self.answers[-1] if self.answers else None


def project_flags(store, who: str | None = None) -> list[Flag]:
    """Every flag of the project in `store` (only those `who` wrote, when given), newest first, with
    their answers. A flag event whose value holds no text (not written by `flag_for_guidelines`) is
    kept with the text '' rather than dropped: someone flagged something. InputError (from the event
    log) for an event whose unit does not parse."""
    events = [e for e in store.events.log(kind="flag") if who is None or e.who == who]
    answers = _answers(store, [e.id for e in events])
    flags = [
        Flag(
            event.id,
            event.at,
            event.who,
            event.response_id,
            event.unit,
            str(event.value.get("text", "")) if isinstance(event.value, dict) else "",
            answers.get(event.id, ()),
        )
        for event in events
    ]
    return flags[::-1]


def _answers(store, flag_ids: list[int]) -> dict[int, tuple[FlagAnswer, ...]]:
    """{flag event id: its answers, oldest first} of the flags given."""
    if not flag_ids:
        return {}
    TABLES.ready(store.database)
    found: dict[int, list[FlagAnswer]] = {}
    rows = store.database.connection.execute(
        "SELECT flag_id, at, who, text FROM flag_answers "
        "WHERE flag_id IN (SELECT value FROM json_each(?)) ORDER BY id",
        [json.dumps(flag_ids)],
    )
    for flag_id, at, who, text in rows:
        found.setdefault(flag_id, []).append(FlagAnswer(at, who, text))
    return {flag_id: tuple(answers) for flag_id, answers in found.items()}


def answer_flag(store, who: str, flag_id: int, text: str = "") -> int:
    """Record `who`'s answer to the flag with event id `flag_id` (the reply stripped; empty: marked
    dealt with) and return the answer's id. PermissionError unless `who` is an adjudicator or an
    admin (checked here, on every call: the page's own view of the person is no authority);
    ValueError when no flag has that event id."""
    user = store.user(who)
    if user is None or user.role not in ANSWERING_ROLES:
        raise PermissionError(f"'{who}' may not answer flags (adjudicators and admins only)")
    TABLES.ready(store.database)

    def write(connection):
        flagged = connection.execute(
            "SELECT 1 FROM events WHERE id = ? AND kind = 'flag'", [flag_id]
        ).fetchone()
        if flagged is None:
            raise ValueError(f"there is no flag with event id {flag_id}")
        return connection.execute(
            "INSERT INTO flag_answers(flag_id, at, who, text) VALUES (?, ?, ?, ?)",
            [flag_id, utc_now(), who, str(text).strip()],
        ).lastrowid

    return store.database.write(write)
