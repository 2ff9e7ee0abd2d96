"""What a PostgreSQL connection gets besides Django's own setup (docs/architecture.md).

Django reads every `timestamptz` through its own loader, a subclass of psycopg's pure-Python
one, because a subclass of psycopg's C loader cannot be made: about 3.3 µs of CPU a value on
the development machine, 450 values on a page of 100 invoices. `UtcTimestampLoader` is that
loader with `datetime.fromisoformat` (C, 0.7 µs a value, the round trip included) reading what
PostgreSQL sends a connection in UTC (`2026-11-27 03:24:40.123456+00`); anything else — a
value with another offset, a year BC or past 9999, `infinity` — goes to Django's loader, so
every value is read exactly as before. `connect_loaders` registers it on each new connection
whose time zone is UTC (the project's: `TIME_ZONE`, `USE_TZ`).
"""

from __future__ import annotations

import datetime

from django.db.backends.postgresql.psycopg_any import BaseTzLoader

UTC = datetime.UTC


class UtcTimestampLoader(BaseTzLoader):
    """Django's `timestamptz` loader for a connection in UTC, parsing with
    `datetime.fromisoformat`; returns an aware datetime in UTC (`tzinfo` is `datetime.UTC`,
    as Django's loader gives)."""

    timezone = UTC  # Django's cursors compare it with the connection's and keep this loader

    def load(self, data) -> datetime.datetime:
        try:
            value = datetime.datetime.fromisoformat(str(data, "ascii"))
        except ValueError:
            return super().load(data)
        if value.tzinfo is not UTC:
            return super().load(data)
        return value


def connect_loaders(sender, connection, **kwargs) -> None:
    """`connection_created` receiver: `UtcTimestampLoader` for `timestamptz` on a PostgreSQL
    connection whose time zone is UTC; any other connection is left as Django made it."""
    if connection.vendor == "postgresql" and connection.timezone == UTC:
        connection.connection.adapters.register_loader("timestamptz", UtcTimestampLoader)
