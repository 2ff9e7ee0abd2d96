"""Idempotent POST and PATCH (docs/conventions.md), safe across processes and under concurrent
retries.

The request runs inside one database transaction that first takes a PostgreSQL advisory lock
on (API key, Idempotency-Key) without waiting: a concurrent twin gets 409
`idempotency_key_in_use`. Holding the lock, a stored response is replayed (same method, path
and body) or refused (`idempotency_key_reused`); otherwise the handler runs in a savepoint and
its response is stored in the same transaction as its writes. A crash leaves neither.
SQLite has no advisory locks, but it serializes writers and the unique (key, Idempotency-Key)
row still guarantees one outcome.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.http import HttpResponse
from django.utils import timezone

from jobcost.error_codes import IdempotencyErrorCode
from jobcost.errors import Conflict, InvalidRequest
from jobcost.models import IdempotencyRecord

HEADER = "Idempotency-Key"


def read_key(request) -> str:
    """The request's key: 1–255 printable ASCII characters, else 400."""
    key = request.headers.get(HEADER)
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


def try_lock(api_key_id: str, key: str) -> bool:
    """Take the transaction-scoped advisory lock for this (API key, key); False if held."""
    if connection.vendor != "postgresql":
        return True
    digest = hashlib.sha256(f"{api_key_id}\x00{key}".encode()).digest()
    lock_id = int.from_bytes(digest[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [lock_id])
        return bool(cursor.fetchone()[0])


def find(api_key_id: str, key: str) -> IdempotencyRecord | None:
    """The live record for this key; an expired one is deleted so the key can run again."""
    record = IdempotencyRecord.objects.filter(api_key_id=api_key_id, key=key).first()
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
) -> None:
    """Keep `response`'s status and `body` (its content as the view chose to store it: never
    a secret) for replays."""
    IdempotencyRecord.objects.create(
        api_key_id=api_key_id,
        key=key,
        method=method,
        path=path,
        body_sha256=sha,
        response_status=response.status_code,
        response_body=body,
    )


def purge_expired() -> int:
    """Delete records older than the replay window; returns how many went."""
    cutoff = timezone.now() - timedelta(seconds=settings.JOBCOST_IDEMPOTENCY_TTL_SECONDS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
