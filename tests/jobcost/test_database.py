"""Timestamps read from PostgreSQL (jobcost/database.py, docs/architecture.md): a connection in
UTC reads `timestamptz` with `UtcTimestampLoader`, which gives exactly what Django's own loader
gives for every value, falling back to it for anything `fromisoformat` does not read."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.db.backends.postgresql.psycopg_any import register_tzloader
from psycopg.pq import Format

from jobcost.database import UtcTimestampLoader
from jobcost.models import Project
from tests.factories import ProjectFactory

TEXTS = [
    "2026-11-27 03:24:40.000001+00",
    "2026-11-27 03:24:40+00",
    "2026-02-28 23:59:59.5+00",
    "0001-01-01 00:00:00+00",
    "9999-12-31 23:59:59.999999+00",
    "2026-11-27 03:24:40+05:30",
    "0044-03-15 00:00:00+00 BC",
    "infinity",
    "-infinity",
]


def _read(text: str, *, django: bool):
    """`text` read as a timestamptz by a cursor with this connection's loader, or with the
    loader Django registers; returns the value or the error's type and text."""
    with connection.cursor() as cursor:
        if django:
            register_tzloader(datetime.UTC, cursor.cursor)
        try:
            cursor.execute("SELECT %s::text::timestamptz", [text])
            return cursor.fetchone()[0]
        except Exception as exc:  # compared below: both loaders must fail alike
            return (type(exc).__name__, str(exc))


@pytest.mark.postgres
def test_a_connection_in_utc_reads_timestamps_with_the_fast_loader(db):
    connection.ensure_connection()
    loader = connection.connection.adapters.get_loader(1184, Format.TEXT)
    assert loader is UtcTimestampLoader


@pytest.mark.postgres
@pytest.mark.parametrize("text", TEXTS)
def test_every_value_reads_as_djangos_loader_reads_it(db, text):
    mine, djangos = _read(text, django=False), _read(text, django=True)
    assert mine == djangos
    if isinstance(mine, datetime.datetime):
        assert mine.tzinfo is datetime.UTC


@pytest.mark.postgres
def test_a_model_keeps_its_microseconds_through_the_orm(db):
    project = ProjectFactory()
    when = datetime.datetime(2026, 11, 27, 3, 24, 40, 1, tzinfo=datetime.UTC)
    Project.objects.filter(pk=project.pk).update(created_at=when)
    read = Project.objects.values_list("created_at", flat=True).get(pk=project.pk)
    assert read == when
    assert read.tzinfo is datetime.UTC
