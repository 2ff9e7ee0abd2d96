"""Idempotent POST and PATCH (docs/conventions.md), safe across processes and under concurrent
retries.

The request runs inside one database transaction whose first statement takes a PostgreSQL
advisory lock on (API key, Idempotency-Key) without waiting and, in the same query, reads the
stored response (`lock_and_find`): a concurrent twin gets 409 `idempotency_key_in_use`; a
stored response is replayed (same method, path and body) or refused
(`idempotency_key_reused`). Otherwise the handler runs in that transaction — no savepoint —
and its response is stored by `INSERT … ON CONFLICT DO NOTHING` in the same transaction as its
writes. Should a twin have committed its response between the read and the insert (the read's
snapshot predates the lock), the insert stores nothing: the request's writes are rolled back
and the twin's response is replayed, so a key has one outcome. A handler that fails rolls the
whole transaction back; its error response (when storable) is then stored in a transaction of
its own that waits at most `LOCK_WAIT` for the lock (`wait_lock`, called by
`JobcostViewSet.run_write`; past it, 409 `idempotency_key_in_use`). A crash leaves neither.
SQLite has no advisory locks, but it serializes writers and the unique (key, Idempotency-Key)
row still guarantees one outcome.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

from django.conf import settings
from django.db import OperationalError, connection
from django.http import HttpResponse
from django.utils import timezone

from jobcost.error_codes import IdempotencyErrorCode
from jobcost.errors import Conflict, InvalidRequest
from jobcost.models import IdempotencyRecord
from jobcost.selectors import fetch
from jobcost.services.common import advisory_lock_id

HEADER = "Idempotency-Key"
# The header as WSGI names it: read from META, not `request.headers` (a dict of every header
# built on first use).
_META_KEY = "HTTP_IDEMPOTENCY_KEY"


def read_key(request) -> str:
    """The request's key: 1–255 printable ASCII characters, else 400."""
    key = request.META.get(_META_KEY)
    if key is None or key == "":
        raise InvalidRequest(
            "An Idempotency-Key header is required on every POST and PATCH.",
            code=IdempotencyErrorCode.IDEMPOTENCY_KEY_MISSING,
            param=HEADER,
        )
    if len(key) > 255 or not all(32 <= ord(c) <= 126 for c in key):
        raise InvalidRequest(
            "Idempotency-Key must be 1 to 255 printable ASCII characters.", param=HEADER
        )
    return key


def body_sha256(data) -> str:
    """SHA-256 of the body as canonical JSON, so formatting and key order do not matter."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


RECORD_FIELDS = [f for f in IdempotencyRecord._meta.concrete_fields]
# PostgreSQL's SQLSTATE for a lock not taken within `lock_timeout`.
LOCK_NOT_AVAILABLE = "55P03"


# How long a failed request waits for a twin holding its key before storing its error; past
# it the answer is 409 `idempotency_key_in_use` (retry), never a request held indefinitely.
LOCK_WAIT = "5s"


def wait_lock(api_key_id: str, key: str) -> None:
    """Take the transaction-scoped advisory lock for this (API key, key), waiting up to
    LOCK_WAIT for a twin that holds it to finish; 409 `idempotency_key_in_use` past it."""
    if connection.vendor != "postgresql":
        return
    # One statement: the FROM's subquery sets the transaction's lock_timeout before the lock
    # is asked for (a volatile subquery is run first, never folded into the outer query).
    sql = (
        "SELECT pg_advisory_xact_lock(%s) "
        "FROM (SELECT set_config('lock_timeout', %s, true)) AS lock_wait"
    )
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql, [advisory_lock_id(api_key_id, key), LOCK_WAIT])
    except OperationalError as exc:
        if getattr(exc.__cause__, "sqlstate", None) == LOCK_NOT_AVAILABLE:
            raise in_use() from exc
        raise


def lock_and_find(api_key_id: str, key: str) -> tuple[bool, IdempotencyRecord | None]:
    """(locked, record): take the advisory lock without waiting and read the stored record,
    in one query on PostgreSQL. The record is None when the lock is held by a twin."""
    if connection.vendor != "postgresql":
        return True, find(api_key_id, key)
    table = connection.ops.quote_name(IdempotencyRecord._meta.db_table)
    columns = ", ".join(f"r.{connection.ops.quote_name(f.column)}" for f in RECORD_FIELDS)
    api_key_column = IdempotencyRecord._meta.get_field("api_key").column
    # Only model metadata (quoted names) is interpolated; values are params.
    sql = (
        f"SELECT pg_try_advisory_xact_lock(%s), {columns} FROM (SELECT 1) AS one "  # noqa: S608
        f"LEFT JOIN {table} AS r ON r.{connection.ops.quote_name(api_key_column)} = %s "
        f"AND r.{connection.ops.quote_name('key')} = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [advisory_lock_id(api_key_id, key), api_key_id, key])
        locked, *values = cursor.fetchone()
    if not locked:
        return False, None
    if values[0] is None:
        return True, None
    converted = []
    for field, value in zip(RECORD_FIELDS, values, strict=True):
        for converter in field.get_db_converters(connection):
            value = converter(value, field, connection)
        converted.append(value)
    record = IdempotencyRecord.from_db(
        connection.alias, [f.attname for f in RECORD_FIELDS], converted
    )
    return True, _live(record)


def find(api_key_id: str, key: str) -> IdempotencyRecord | None:
    """The live record for this key; an expired one is deleted so the key can run again. Its
    SQL is compiled once (`jobcost.selectors.fetch.first`)."""
    found = fetch.first(_records, _records, api_key_id=api_key_id, idempotency_key=key)
    return _live(found)


def _records(api_key_id: str, idempotency_key: str):
    return IdempotencyRecord.objects.filter(api_key_id=api_key_id, key=idempotency_key)


def _live(record: IdempotencyRecord | None) -> IdempotencyRecord | None:
    if record is None:
        return None
    ttl = timedelta(seconds=settings.JOBCOST_IDEMPOTENCY_TTL_SECONDS)
    if record.created_at < timezone.now() - ttl:
        record.delete()
        return None
    return record


def check_matches(record: IdempotencyRecord, method: str, path: str, sha: str) -> None:
    """409 `idempotency_key_reused` when the key was first used for another request."""
    if (record.method, record.path, record.body_sha256) != (method, path, sha):
        raise Conflict(
            "This Idempotency-Key was already used with a different method, path or body.",
            code=IdempotencyErrorCode.IDEMPOTENCY_KEY_REUSED,
            param=HEADER,
        )


def in_use() -> Conflict:
    return Conflict(
        "A request with this Idempotency-Key is still being processed; retry shortly.",
        code=IdempotencyErrorCode.IDEMPOTENCY_KEY_IN_USE,
        param=HEADER,
    )


def replay(record: IdempotencyRecord, *, body: str | None = None) -> HttpResponse:
    """The stored response (or `body`, the view's reading of it: a withheld secret put back),
    marked `Idempotent-Replayed: true`."""
    response = HttpResponse(
        record.response_body if body is None else body,
        status=record.response_status,
        content_type="application/json; charset=utf-8",
    )
    response["Idempotent-Replayed"] = "true"
    return response


def is_storable(status: int) -> bool:
    """2xx and 4xx are stored, except 401, 403 and 429 (and never 5xx): those run again."""
    return status < 500 and status not in (401, 403, 429)


def store(
    *, api_key_id: str, key: str, method: str, path: str, sha: str, response, body: str
) -> bool:
    """Keep `response`'s status and `body` (its content as the view chose to store it: never
    a secret) for replays. False, storing nothing, when a twin's record already holds the key
    (`INSERT … ON CONFLICT DO NOTHING`, one statement, no error to recover from)."""
    record = IdempotencyRecord(
        api_key_id=api_key_id,
        key=key,
        method=method,
        path=path,
        body_sha256=sha,
        response_status=response.status_code,
        response_body=body,
    )
    if connection.vendor != "postgresql":
        record.save()  # SQLite serializes writers: no twin can have slipped in
        return True
    fields = [f for f in RECORD_FIELDS if not f.primary_key]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in fields)
    values = [f.get_db_prep_save(f.pre_save(record, True), connection) for f in fields]
    placeholders = ", ".join(["%s"] * len(fields))
    table = quote(IdempotencyRecord._meta.db_table)
    # Only model metadata (quoted names) is interpolated; values are params.
    sql = (
        f"INSERT INTO {table} ({columns}) VALUES ({placeholders}) "  # noqa: S608
        f"ON CONFLICT ({quote('api_key_id')}, {quote('key')}) DO NOTHING RETURNING 1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        return cursor.fetchone() is not None


def purge_expired() -> int:
    """Delete records older than the replay window; returns how many went."""
    cutoff = timezone.now() - timedelta(seconds=settings.JOBCOST_IDEMPOTENCY_TTL_SECONDS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
