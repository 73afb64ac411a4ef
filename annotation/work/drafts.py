"""Stage-2 drafts: a person's unconfirmed fact list for one sentence, saved as they edit it so
a reload, Back or a closed tab loses nothing. A draft is not a label: it never enters the event
log, agreement or gold; confirming the facts (the label) discards it.

This module owns the `drafts` table (its migrations are here) in the project's SQLite file:
one row per (person, response, unit), the latest draft only.
"""

from __future__ import annotations

import json

from annotation.protocol.ids import Unit
from annotation.store.database import declare_tables
from annotation.store.event_log import utc_now

OWNER = "drafts"
# Append, never edit.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE drafts (
        who TEXT NOT NULL, response_id TEXT NOT NULL, unit TEXT NOT NULL,
        facts TEXT NOT NULL, saved_at TEXT NOT NULL,
        PRIMARY KEY (who, response_id, unit));
    """,
]
TABLES = declare_tables(OWNER, MIGRATIONS)


def _ready(store) -> None:
    """This module's tables, brought current once per database (`Database.migrate`)."""
    TABLES.ready(store.database)


def _clean(facts: list[dict]) -> list[dict]:
    """[{'text': str, 'citations': [int]}] in order, whatever else the rows carried. A draft may
    be unfinished (empty text, no citation): it is checked when it is confirmed, not here."""
    return [
        {
            "text": str(fact.get("text", "")),
            "citations": sorted({int(c) for c in fact.get("citations") or []}),
        }
        for fact in facts
    ]


def save_draft(store, who: str, response_id: str, unit: Unit, facts: list[dict]) -> None:
    """Keep `facts` as `who`'s draft for the unit (replacing the one before)."""
    _ready(store)
    store.database.write(
        lambda c: c.execute(
            "INSERT INTO drafts(who, response_id, unit, facts, saved_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(who, response_id, unit) DO UPDATE SET facts = excluded.facts, "
            "saved_at = excluded.saved_at",
            [who, response_id, str(unit), json.dumps(_clean(facts)), utc_now()],
        )
    )


def load_draft(store, who: str, response_id: str, unit: Unit) -> list[dict] | None:
    """`who`'s saved draft for the unit, or None when there is none."""
    _ready(store)
    row = store.database.connection.execute(
        "SELECT facts FROM drafts WHERE who = ? AND response_id = ? AND unit = ?",
        [who, response_id, str(unit)],
    ).fetchone()
    return None if row is None else json.loads(row[0])


def discard_draft(store, who: str, response_id: str, unit: Unit) -> None:
    """Forget the draft (its facts were confirmed, or the person started afresh)."""
    _ready(store)
    store.database.write(
        lambda c: c.execute(
            "DELETE FROM drafts WHERE who = ? AND response_id = ? AND unit = ?",
            [who, response_id, str(unit)],
        )
    )
