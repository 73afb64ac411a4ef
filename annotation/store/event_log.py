"""The label event log of a project store: append-only events; the label in force is
derived from them (view `current_labels`), so undo and audit come free. The view's rows are also
kept as a table, `labels_in_force`, by triggers on every insert into `events` (same transaction),
so reading every current label is a scan.

A project store's `events` attribute; it reads and writes through the store's `Database`, and owns
the `events` table and its views (their schema and migrations are here).

The columns hold a unit's and a task's text; an `Event` holds them as `Unit` and `Task`, parsed
where the row is read (cached: the same few texts repeat across every person's labels). A row whose
unit or task does not parse is bad input: an `InputError` naming the file, the event and the field.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import NamedTuple

from annotation.protocol.errors import InputError
from annotation.protocol.ids import Task, Unit
from annotation.store.database import Database, declare_tables

EVENT_KINDS = ("label", "undo", "skip", "flag")
OWNER = "events"
# Append, never edit. IF NOT EXISTS: project files made before the event log owned its tables got
# them from the project store's first migration.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE IF NOT EXISTS events (
        id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, who TEXT NOT NULL,
        response_id TEXT NOT NULL REFERENCES responses(response_id),
        unit TEXT NOT NULL, task TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('label', 'undo', 'skip', 'flag')),
        value TEXT, spent_ms INTEGER, ref INTEGER REFERENCES events(id));
    CREATE INDEX IF NOT EXISTS events_by_key ON events(who, response_id, unit, task, id);
    CREATE INDEX IF NOT EXISTS events_by_response ON events(response_id, id);
    CREATE INDEX IF NOT EXISTS events_by_ref ON events(ref) WHERE ref IS NOT NULL;
    CREATE VIEW IF NOT EXISTS live_labels AS
        SELECT e.* FROM events e
        WHERE e.kind = 'label'
          AND NOT EXISTS (SELECT 1 FROM events u WHERE u.kind = 'undo' AND u.ref = e.id);
    CREATE VIEW IF NOT EXISTS current_labels AS
        SELECT l.* FROM live_labels l
        WHERE l.id = (SELECT MAX(m.id) FROM live_labels m
                      WHERE m.who = l.who AND m.response_id = l.response_id
                        AND m.unit = l.unit AND m.task = l.task);
    """,
    # The view's rows kept as a table (`labels_in_force`, a copy of each event in force), so reading
    # every current label is a scan, not the view's correlated subqueries (1.3 s of SQL at 4,000
    # labelled responses). Triggers keep it in the transaction of each insert into `events`, whoever
    # makes it: a label replaces its key's row; an undo of the row in force brings back the newest
    # live label of its key. Built once from the view for files made before (IF NOT EXISTS, as the
    # first migration: a file whose version row was lost keeps what it has).
    """
    CREATE TABLE IF NOT EXISTS labels_in_force (
        id INTEGER PRIMARY KEY REFERENCES events(id), at TEXT NOT NULL, who TEXT NOT NULL,
        response_id TEXT NOT NULL, unit TEXT NOT NULL, task TEXT NOT NULL, kind TEXT NOT NULL,
        value TEXT, spent_ms INTEGER, ref INTEGER);
    CREATE UNIQUE INDEX IF NOT EXISTS labels_in_force_by_key ON labels_in_force(who, response_id, unit, task);
    CREATE INDEX IF NOT EXISTS labels_in_force_by_response ON labels_in_force(response_id, id);
    INSERT OR IGNORE INTO labels_in_force(id, at, who, response_id, unit, task, kind, value, spent_ms, ref)
        SELECT id, at, who, response_id, unit, task, kind, value, spent_ms, ref FROM current_labels;
    CREATE TRIGGER IF NOT EXISTS events_label_in_force AFTER INSERT ON events WHEN NEW.kind = 'label'
    BEGIN
        INSERT OR REPLACE INTO labels_in_force(id, at, who, response_id, unit, task, kind, value,
            spent_ms, ref) VALUES (NEW.id, NEW.at, NEW.who, NEW.response_id, NEW.unit, NEW.task,
            NEW.kind, NEW.value, NEW.spent_ms, NEW.ref);
    END;
    CREATE TRIGGER IF NOT EXISTS events_undo_in_force AFTER INSERT ON events WHEN NEW.kind = 'undo'
    BEGIN
        DELETE FROM labels_in_force WHERE id = NEW.ref;
        INSERT OR IGNORE INTO labels_in_force(id, at, who, response_id, unit, task, kind, value,
            spent_ms, ref)
        SELECT id, at, who, response_id, unit, task, kind, value, spent_ms, ref FROM events WHERE id = (
            SELECT MAX(l.id) FROM live_labels l JOIN events u ON u.id = NEW.ref AND u.kind = 'label'
            WHERE l.who = u.who AND l.response_id = u.response_id AND l.unit = u.unit
              AND l.task = u.task);
    END;
    """,
    # The flags, a handful among hundreds of thousands of labels, read on every Disputes rerun: a
    # partial index, so `log(kind='flag')` reads them without scanning the log (0.18 s at 4,000 responses).
    """
    CREATE INDEX IF NOT EXISTS events_flags ON events(id) WHERE kind = 'flag';
    """,
]
TABLES = declare_tables(OWNER, MIGRATIONS, required=True)
# An event's columns in table order (events, the views and labels_in_force share them)
COLUMNS = "id, at, who, response_id, unit, task, kind, value, spent_ms, ref"

# `current_labels` as of a past last event id (parameter 1): the view's rule on the events up to it
AS_OF = """
    SELECT * FROM (SELECT l.* FROM events l
        WHERE l.kind = 'label' AND l.id <= ?1
          AND NOT EXISTS (SELECT 1 FROM events u WHERE u.kind = 'undo' AND u.ref = l.id AND u.id <= ?1)
          AND l.id = (SELECT MAX(m.id) FROM events m
                      WHERE m.who = l.who AND m.response_id = l.response_id AND m.unit = l.unit
                        AND m.task = l.task AND m.kind = 'label' AND m.id <= ?1
                        AND NOT EXISTS (SELECT 1 FROM events u
                                        WHERE u.kind = 'undo' AND u.ref = m.id AND u.id <= ?1)))"""


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Event(NamedTuple):
    """One row of the event log. `value` is decoded JSON. A named tuple: a state from nothing reads
    every current label (256k at 4,000 responses), and a tuple is made several times faster than a
    frozen dataclass."""

    id: int
    at: str
    who: str
    response_id: str
    unit: Unit
    task: Task
    kind: str
    value: object
    spent_ms: int | None
    ref: int | None

    @classmethod
    def from_columns(cls, row: tuple, path: str = "") -> Event:
        """An event from its columns in table order (COLUMNS); InputError (naming `path`, the
        event and the field) when its unit or task does not parse."""
        event_id, at, who, response_id, unit, task, kind, value, spent_ms, ref = row
        try:
            unit = _parse_unit(unit)
        except (ValueError, TypeError) as error:
            raise _bad_row(path, event_id, "unit", error) from None
        try:
            task = _parse_task(task)
        except (ValueError, TypeError) as error:
            raise _bad_row(path, event_id, "task", error) from None
        value = (
            _COMMON_VALUES[value] if value in _COMMON_VALUES else None if value is None else json.loads(value)
        )
        return cls(event_id, at, who, response_id, unit, task, kind, value, spent_ms, ref)


_parse_unit, _parse_task = Unit.parse, Task.parse


def _bad_row(path: str, event_id, field: str, error: Exception) -> InputError:
    return InputError(f"event {event_id}: {error}", path=f"{path} (event log)", field=field)


# most label values are a yes or a no: decoded without the JSON parser
_COMMON_VALUES = {"true": True, "false": False, "null": None}


class EventLog:
    """The label event log of one project file."""

    def __init__(self, database: Database):
        self.database = database

    def _event(self, row: tuple) -> Event:
        return Event.from_columns(row, str(self.database.path))

    def append(
        self,
        who: str,
        response_id: str,
        unit: Unit | str,
        task: Task | str,
        value=None,
        *,
        kind: str = "label",
        spent_ms: int | None = None,
        ref: int | None = None,
    ) -> int:
        """Append one event and return its id. The only way labels are written. A unit or task
        given as text is parsed first: ValueError when malformed (nothing is written)."""
        if kind not in EVENT_KINDS:
            raise ValueError(f"event kind '{kind}' is not one of {', '.join(EVENT_KINDS)}")
        unit = str(unit if isinstance(unit, Unit) else Unit.parse(unit))
        task = str(task if isinstance(task, Task) else Task.parse(task))
        encoded = None if value is None else json.dumps(value)
        return self.database.write(
            lambda c: (
                c.execute(
                    "INSERT INTO events(at, who, response_id, unit, task, kind, value, spent_ms, ref) "
                    "VALUES (?,?,?,?,?,?,?,?,?)",
                    [utc_now(), who, response_id, unit, task, kind, encoded, spent_ms, ref],
                ).lastrowid
            )
        )

    def current_labels(
        self, who: str | None = None, response_id: str | None = None, *, up_to: int | None = None
    ) -> list[Event]:
        """The label in force per (who, response, unit, task), derived from the log (the view
        `current_labels`, read from its copy `labels_in_force`), oldest first; with `up_to`, as it
        was when `up_to` was the log's last event id (later labels and undos left out)."""
        sql, params = f"SELECT {COLUMNS} FROM labels_in_force WHERE 1=1", []
        if up_to is not None and up_to < self.last_event_id():
            sql, params = f"SELECT {COLUMNS} FROM ({AS_OF}) WHERE 1=1", [up_to]
        if who is not None:
            sql += " AND who = ?"
            params.append(who)
        if response_id is not None:
            sql += " AND response_id = ?"
            params.append(response_id)
        rows = self.database.connection.execute(sql + " ORDER BY id", params)
        return self._events(rows)

    def _events(self, rows) -> list[Event]:
        """The events of `rows` (COLUMNS), as `Event.from_columns` makes them: a state from nothing
        reads 256k, so units, tasks and values seen before in this read are looked up, not parsed."""
        units: dict = {}
        tasks: dict = {}
        values = dict(_COMMON_VALUES)
        out = []
        make, append, path = Event._make, out.append, str(self.database.path)
        for row in rows:
            event_id, at, who, response_id, unit, task, kind, value, spent_ms, ref = row
            parsed_unit = units.get(unit)
            if parsed_unit is None:
                try:
                    parsed_unit = units[unit] = _parse_unit(unit)
                except (ValueError, TypeError) as error:
                    raise _bad_row(path, event_id, "unit", error) from None
            parsed_task = tasks.get(task)
            if parsed_task is None:
                try:
                    parsed_task = tasks[task] = _parse_task(task)
                except (ValueError, TypeError) as error:
                    raise _bad_row(path, event_id, "task", error) from None
            if value is not None:
                if value in values:
                    value = values[value]
                else:
                    value = json.loads(value)  # a list or dict: each row its own object, as before
            append(
                make((event_id, at, who, response_id, parsed_unit, parsed_task, kind, value, spent_ms, ref))
            )
        return out

    def log(
        self, who: str | None = None, response_id: str | None = None, kind: str | None = None
    ) -> list[Event]:
        """The raw log (audit), oldest first."""
        sql, params = f"SELECT {COLUMNS} FROM events WHERE 1=1", []
        for column, value in (("who", who), ("response_id", response_id), ("kind", kind)):
            if value is not None:
                sql += f" AND {column} = ?"
                params.append(value)
        rows = self.database.connection.execute(sql + " ORDER BY id", params)
        return [self._event(row) for row in rows]

    def last_event_id(self) -> int:
        """The log's last event id (0 when empty)."""
        return self.database.connection.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0]

    def responses_since(self, event_id: int) -> set[str]:
        """Responses with an event (of any kind) after `event_id`: the ones whose labels may have
        changed since then."""
        rows = self.database.connection.execute(
            "SELECT DISTINCT response_id FROM events WHERE id > ?", [event_id]
        )
        return {row[0] for row in rows}

    def people_by_response(self) -> dict[str, set[str]]:
        """{response: the people with an event on it (label, undo, skip or flag), rulings aside}:
        who has started each response."""
        rows = self.database.connection.execute(
            "SELECT response_id, who FROM events WHERE substr(task, 1, 5) != 'gold.' GROUP BY response_id, who"
        )
        found: dict[str, set[str]] = {}
        for response_id, who in rows:
            found.setdefault(response_id, set()).add(who)
        return found

    def labelled_response_ids(self, who: str, unit: Unit, task: Task) -> set[str]:
        """Responses where `who` has a live label on (unit, task), e.g. the `done` mark."""
        rows = self.database.connection.execute(
            "SELECT response_id FROM live_labels WHERE who = ? AND unit = ? AND task = ?",
            [who, str(unit), str(task)],
        )
        return {row[0] for row in rows}

    def live_skips(self, who: str, response_id: str | None = None) -> list[Event]:
        """`who`'s skip events that no undo has taken back, oldest first."""
        sql = (
            f"SELECT {', '.join('s.' + c for c in COLUMNS.split(', '))} FROM events s "
            "WHERE s.who = ? AND s.kind = 'skip' "
            "AND NOT EXISTS (SELECT 1 FROM events u WHERE u.kind = 'undo' AND u.ref = s.id)"
        )
        params: list = [who]
        if response_id is not None:
            sql += " AND s.response_id = ?"
            params.append(response_id)
        rows = self.database.connection.execute(sql + " ORDER BY s.id", params)
        return [self._event(row) for row in rows]

    def event_authors(self) -> set[str]:
        """Everyone who has written at least one event."""
        return {row[0] for row in self.database.connection.execute("SELECT DISTINCT who FROM events")}

    def undo_last(
        self, who: str, response_id: str | None = None, task: Task | None = None, *, rulings: bool = True
    ) -> Event | None:
        """Undo `who`'s most recent live label (in `response_id`, of `task`, when given; not a
        ruling unless `rulings`) by appending an 'undo' event; the label before it comes back in
        force. None when nothing to undo."""

        def undo(conn):
            sql = f"SELECT {COLUMNS} FROM live_labels WHERE who = ?"
            params: list = [who]
            if not rulings:
                sql += " AND substr(task, 1, 5) != 'gold.'"
            if response_id is not None:
                sql += " AND response_id = ?"
                params.append(response_id)
            if task is not None:
                sql += " AND task = ?"
                params.append(str(task))
            row = conn.execute(sql + " ORDER BY id DESC LIMIT 1", params).fetchone()
            if row is None:
                return None
            target = self._event(row)
            conn.execute(
                "INSERT INTO events(at, who, response_id, unit, task, kind, ref) "
                "VALUES (?,?,?,?,?, 'undo', ?)",
                [utc_now(), who, target.response_id, str(target.unit), str(target.task), target.id],
            )
            return target

        return self.database.write(undo)
