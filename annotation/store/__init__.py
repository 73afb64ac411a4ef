"""The project's SQLite file: schema and migrations, the append-only event log, accounts.
May import `annotation.protocol` only."""
