"""The content-addressed cache of judge calls: the `judge_calls` table, which this module owns (its
schema and migrations are here) inside the project's SQLite file.

key = sha256(adapter, model, answer parameters, prompt template hash, rendered prompt, media
part hashes). A call is *answered* when the endpoint returned a reply (even one that does not
parse: at temperature 0 asking again gives the same text); a row with only an `error` is a
failed call that a later run retries. Every call is committed as soon as it finishes, so a
killed run loses nothing it paid for.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from annotation.store.database import declare_tables
from annotation.store.event_log import utc_now
from annotation.store.project_store import ProjectStore

OWNER = "judge_calls"
# Append, never edit. IF NOT EXISTS: project files made before this table had its own owner
# already hold it (the project store's first migration created it then).
MIGRATIONS: list[str] = [
    """
    CREATE TABLE IF NOT EXISTS judge_calls (
        key TEXT PRIMARY KEY, judge TEXT NOT NULL, model TEXT NOT NULL, stage TEXT NOT NULL,
        request TEXT NOT NULL, response TEXT, parsed TEXT, error TEXT,
        tokens_in INTEGER, tokens_out INTEGER, latency_ms INTEGER, cost REAL,
        created_at TEXT NOT NULL);
    """,
]
TABLES = declare_tables(OWNER, MIGRATIONS)


def call_key(
    adapter: str, model: str, parameters: dict, prompt_sha256: str, prompt: str, part_hashes: list[str]
) -> str:
    """The cache key of one call (hex sha256). Order of parts matters: they are sent in order."""
    canonical = json.dumps(
        {
            "adapter": adapter,
            "model": model,
            "parameters": parameters,
            "prompt_sha256": prompt_sha256,
            "prompt": prompt,
            "parts": part_hashes,
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass
class CallRecord:
    """One row of judge_calls. `request` is a description without media bytes or keys."""

    key: str
    judge: str
    model: str
    stage: str
    request: dict
    response: str | None = None
    parsed: dict | None = None
    error: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_ms: int | None = None
    cost: float | None = None
    created_at: str | None = None

    @property
    def answered(self) -> bool:
        return self.response is not None

    @classmethod
    def from_row(cls, row: dict) -> CallRecord:
        return cls(
            row["key"],
            row["judge"],
            row["model"],
            row["stage"],
            json.loads(row["request"]),
            row["response"],
            None if row["parsed"] is None else json.loads(row["parsed"]),
            row["error"],
            row["tokens_in"],
            row["tokens_out"],
            row["latency_ms"],
            row["cost"],
            row["created_at"],
        )


class CallCache:
    """Reads and writes judge_calls in a project's file (safe across threads); opening one brings
    the table to its current schema."""

    def __init__(self, store: ProjectStore):
        self.database = store.database
        TABLES.ready(self.database)

    def get(self, key: str) -> CallRecord | None:
        rows = self.database.query("SELECT * FROM judge_calls WHERE key = ?", [key])
        return CallRecord.from_row(rows[0]) if rows else None

    def answered(self, key: str) -> CallRecord | None:
        """The stored answer for `key`, or None (never asked, or only failed so far)."""
        record = self.get(key)
        return record if record is not None and record.answered else None

    def put(self, record: CallRecord) -> None:
        """Commit one call now. An answer replaces a failure; a failure never replaces an
        answer (a late failing duplicate must not erase what was paid for)."""
        created = record.created_at or utc_now()
        values = [
            record.key,
            record.judge,
            record.model,
            record.stage,
            json.dumps(record.request),
            record.response,
            None if record.parsed is None else json.dumps(record.parsed),
            record.error,
            record.tokens_in,
            record.tokens_out,
            record.latency_ms,
            record.cost,
            created,
        ]
        self.database.write(
            lambda c: c.execute(
                "INSERT INTO judge_calls(key, judge, model, stage, request, response, parsed, error, "
                "tokens_in, tokens_out, latency_ms, cost, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT(key) DO UPDATE SET judge=excluded.judge, model=excluded.model, "
                "stage=excluded.stage, request=excluded.request, response=excluded.response, "
                "parsed=excluded.parsed, error=excluded.error, tokens_in=excluded.tokens_in, "
                "tokens_out=excluded.tokens_out, latency_ms=excluded.latency_ms, cost=excluded.cost, "
                "created_at=excluded.created_at WHERE judge_calls.response IS NULL",
                values,
            )
        )

    def mean_usage(self, model: str, stage: str) -> tuple[float, float] | None:
        """Mean (tokens_in, tokens_out) of answered calls of `model` at `stage`, for estimates."""
        row = self.database.connection.execute(
            "SELECT AVG(tokens_in), AVG(tokens_out), COUNT(*) FROM judge_calls WHERE model = ? "
            "AND stage = ? AND response IS NOT NULL AND tokens_in IS NOT NULL",
            [model, stage],
        ).fetchone()
        return None if not row or not row[2] else (float(row[0]), float(row[1] or 0))

    def totals(self) -> list[dict]:
        """Per (judge, stage): answered and failed calls, tokens, cost, mean latency."""
        sql = (
            "SELECT judge, stage, SUM(response IS NOT NULL) AS answered, SUM(response IS NULL) AS failed, "
            "SUM(tokens_in) AS tokens_in, SUM(tokens_out) AS tokens_out, SUM(cost) AS cost, "
            "AVG(latency_ms) AS mean_latency_ms FROM judge_calls GROUP BY judge, stage ORDER BY judge, stage"
        )
        return self.database.query(sql)
