"""Sending one delivery attempt (docs/webhooks.md).

`attempt(delivery_id)`: claim the delivery — `SELECT … FOR UPDATE SKIP LOCKED`, due, pending —
and move its `next_attempt_at` a lease ahead in a short transaction, so no other worker can send
the same attempt; re-check the endpoint (deleted, disabled, or no longer subscribed to the
event's type → cancelled); POST the payload rendered at the endpoint's `api_version` with
Standard Webhooks headers, 10 s timeout, no redirects; then record the attempt: 2xx succeeded;
410 Gone disables the endpoint at once; otherwise retry after 5 s, 5 min, 30 min, 2 h, 5 h,
10 h, 10 h (8 attempts) and then failed (a failure recorded after the delivery's lease ran
out and another worker claimed it is only logged: docs/webhooks.md, "Delivery,
retries and disabling"); an endpoint that has seen nothing but failures for 3 days is disabled. Each
attempt also notes whether the endpoint was slow (`slow_since`), which picks its lane
(webhooks/lanes.py).

`attempt` claims one delivery by ID (the `deliver` task, kept for messages queued before the
per-endpoint drains); webhooks/drain.py claims a batch of one endpoint's due deliveries, makes
each POST with `post_claimed` and records the outcomes with `record_outcomes`: a run of quick
successes in one transaction of a few statements, anything else (a failure, a slow answer, an
endpoint in the slow lane) before the next POST, so the rules above see every attempt in order.
"""

from __future__ import annotations

import json
import logging
import os
import ssl
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpcore
from django.conf import settings
from django.db import connection, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from jobcost.selectors import fetch
from webhooks import signing
from webhooks.catalogue import subscribes
from webhooks.endpoint_state import endpoint_disable
from webhooks.lanes import SLOW_AFTER_MS
from webhooks.models import (
    DeliveryStatus,
    EndpointStatus,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)
from webhooks.transport import SendFailed, new_pool, new_ssl_context, post
from webhooks.urlguard import UrlRefused, check_url
from webhooks.versions import render_payload

logger = logging.getLogger("jobcost.webhooks")

RETRY_AFTER = [
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=10),
]
MAX_ATTEMPTS = len(RETRY_AFTER) + 1
LEASE = timedelta(seconds=60)
TIMEOUT_SECONDS = 10.0
FAILING_FOR = timedelta(days=3)


_pool: httpcore.ConnectionPool | None = None
_ssl_context: ssl.SSLContext | None = None
_process_key: tuple | None = None
_pool_lock = threading.Lock()


def _per_process() -> None:
    """(Re)build the process's TLS context and shared pool: once per process (after a fork
    too), and again if WEBHOOKS_CA_BUNDLE changes. Call with `_pool_lock` held."""
    global _pool, _ssl_context, _process_key
    key = (os.getpid(), settings.WEBHOOKS_CA_BUNDLE)
    if _process_key != key:
        _ssl_context = new_ssl_context()
        _pool = new_pool(ssl_context=_ssl_context)
        _process_key = key


def shared_pool() -> httpcore.ConnectionPool:
    """The worker process's one connection pool (`webhooks.transport.new_pool`: connects
    only to addresses the SSRF guard checked, no redirects), for single attempts
    (`attempt`). It keeps connections to endpoints alive."""
    with _pool_lock:  # the worker's threads share it: build it once, not once per thread
        _per_process()
        return _pool


@contextmanager
def drain_pool() -> Iterator[httpcore.ConnectionPool]:
    """A pool of its own for one drain, closed when the drain ends: its connection to the
    endpoint is kept alive across the drain's POSTs, and no other thread waits on its lock
    (the shared pool's lock cost a busy worker a fifth of its sending time). It shares the
    process's TLS context: building one loads the CA bundle (~20 ms, more than a POST to a
    fast receiver)."""
    with _pool_lock:
        _per_process()
        context = _ssl_context
    with new_pool(ssl_context=context) as pool:
        yield pool


def _claim(delivery_id: str):
    """Lock the due delivery (skipping it if another worker holds it) and lease it."""
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("event")
            .filter(
                pk=delivery_id,
                status=DeliveryStatus.PENDING,
                next_attempt_at__lte=timezone.now(),
            )
            .first()
        )
        if delivery is None:
            return None
        endpoint = WebhookEndpoint.objects.get(pk=delivery.endpoint_id)
        if (
            endpoint.deleted_at is not None
            or endpoint.status != EndpointStatus.ENABLED
            or not subscribed(endpoint, delivery)
        ):
            delivery.status = DeliveryStatus.CANCELLED
            delivery.next_attempt_at = None
            delivery.save(update_fields=["status", "next_attempt_at", "updated_at"])
            return None
        delivery.attempts += 1
        delivery.next_attempt_at = timezone.now() + LEASE
        delivery.save(update_fields=["attempts", "next_attempt_at", "updated_at"])
        return delivery, endpoint


def attempt(delivery_id: str, *, pool: httpcore.ConnectionPool | None = None) -> str | None:
    """Make the next attempt of a due delivery; returns its new status, or None when there
    was nothing to do (not due, already claimed, finished or cancelled)."""
    claimed = _claim(delivery_id)
    if claimed is None:
        return None
    delivery, endpoint = claimed
    return send_claimed(delivery, endpoint, pool=pool)


@dataclass(frozen=True)
class Outcome:
    """One POST of a claimed delivery, made but not yet recorded: when it started, how long it
    took (ms), the response status (None when no response came), the error text, and the
    lease it was made under (the claimed row's `next_attempt_at`; None when not known)."""

    delivery_id: str
    started: datetime
    duration_ms: int
    status_code: int | None
    error: str
    leased_until: datetime | None = None

    @property
    def succeeded(self) -> bool:
        """Any 2xx."""
        return self.status_code is not None and 200 <= self.status_code < 300

    def lease_lost(self, delivery: WebhookDelivery) -> bool:
        """Whether `delivery`, as locked now, has left the lease this POST was made under:
        the lease ran out while the attempt was in flight and another worker has claimed the
        delivery since (a claim moves `next_attempt_at` to its own lease's end)."""
        return self.leased_until is not None and delivery.next_attempt_at != self.leased_until

    def changes_nothing_for(self, endpoint: WebhookEndpoint) -> bool:
        """True when recording this outcome can only mark its delivery `succeeded`: a quick
        2xx to an endpoint that is neither failing nor slow leaves the endpoint's row (its
        lane, its failure clock, its status) as it is, so the record may wait for the rest of
        the batch (webhooks/drain.py). Anything else is recorded before the next send."""
        return (
            self.succeeded
            and self.duration_ms < SLOW_AFTER_MS
            and endpoint.failing_since is None
            and endpoint.slow_since is None
        )


def subscribed(endpoint: WebhookEndpoint, delivery: WebhookDelivery) -> bool:
    """Whether the endpoint still subscribes to the delivery's event type (its `events` may
    have been changed since the delivery was written)."""
    return subscribes(endpoint.events, delivery.event.type)


def post_claimed(
    delivery: WebhookDelivery,
    endpoint: WebhookEndpoint,
    *,
    pool: httpcore.ConnectionPool | None = None,
    checked_url: str | None = None,
) -> Outcome:
    """POST a delivery this worker has claimed (leased, `attempts` counted) to `endpoint`, as
    just re-read, and return the outcome without recording it. The URL is checked by the SSRF
    guard first, unless it is `checked_url`, the URL the caller last saw pass that check in
    the same settings (the check reads the URL and WEBHOOKS_ALLOW_INSECURE_LOCALHOST only); a
    refused URL is a failed outcome. Never raises for a failed POST."""
    body = json.dumps(
        render_payload(delivery.event, endpoint.api_version), separators=(",", ":")
    ).encode()
    started = timezone.now()
    clock = time.monotonic()
    status_code, error = None, ""
    try:
        # The URL's own rules here; its addresses when the transport connects (no second
        # lookup that DNS could answer differently).
        if endpoint.url != checked_url:
            check_url(endpoint.url, resolve=False)
        headers = signing.headers(endpoint.signing_secrets(), delivery.pk, int(time.time()), body)
        status_code = post(
            pool or shared_pool(),
            endpoint.url,
            content=body,
            headers=headers,
            timeout=TIMEOUT_SECONDS,
        )
    except UrlRefused as exc:
        error = f"url_refused: {exc}"
    except SendFailed as exc:
        # The guarded transport's messages name no address (webhooks/transport.py).
        error = str(exc)[:500]
    duration_ms = int((time.monotonic() - clock) * 1000)
    return Outcome(delivery.pk, started, duration_ms, status_code, error, delivery.next_attempt_at)


def send_claimed(
    delivery: WebhookDelivery,
    endpoint: WebhookEndpoint,
    *,
    pool: httpcore.ConnectionPool | None = None,
) -> str:
    """POST a claimed delivery (`post_claimed`) and record the attempt at once; returns the
    delivery's new status."""
    outcome = post_claimed(delivery, endpoint, pool=pool)
    return record_outcomes(endpoint.pk, [outcome])[delivery.pk]


def _note_speed(endpoint: WebhookEndpoint, duration_ms: int) -> None:
    """Move the endpoint between the lanes (webhooks/lanes.py): an attempt of `SLOW_AFTER_MS` or
    more starts `slow_since`, a quicker one clears it. Written only when it changes."""
    slow = duration_ms >= SLOW_AFTER_MS
    if slow == (endpoint.slow_since is not None):
        return
    endpoint.slow_since = timezone.now() if slow else None
    endpoint.save(update_fields=["slow_since", "updated_at"])


def record(delivery_id: str, started, duration_ms: int, status_code: int | None, error: str) -> str:
    """Write one attempt row and move the delivery (and perhaps its endpoint) on
    (`record_outcomes` for one outcome); returns the delivery's new status."""
    endpoint_id = WebhookDelivery.objects.values_list("endpoint_id", flat=True).get(pk=delivery_id)
    outcome = Outcome(delivery_id, started, duration_ms, status_code, error)
    return record_outcomes(endpoint_id, [outcome])[delivery_id]


# The delivery columns an attempt moves (with `updated_at`).
_DELIVERY_FIELDS = ("status", "next_attempt_at", "last_response_status", "last_error")


def record_outcomes(endpoint_id: str, outcomes: list[Outcome]) -> dict[str, str]:
    """Record the attempts of one endpoint's deliveries, in the order they were made: one
    attempt row each, and each delivery (and perhaps the endpoint) moved on by the rules in
    this module's docstring, exactly as if they were recorded one by one. Returns {delivery
    ID: new status}.

    A constant number of statements however many outcomes: the endpoint's row is locked first
    (the services lock it before the deliveries too), then the deliveries, with the number of
    their last attempt; the attempt rows are one INSERT and the deliveries one UPDATE.
    """
    if not outcomes:
        return {}
    with transaction.atomic():
        return _record(endpoint_id, outcomes)


def _record(endpoint_id: str, outcomes: list[Outcome]) -> dict[str, str]:
    endpoint = _lock_endpoint(endpoint_id)
    deliveries = {d.pk: d for d in _lock_deliveries([o.delivery_id for o in outcomes])}
    attempts = []
    statuses = {}
    for outcome in outcomes:
        delivery = deliveries[outcome.delivery_id]
        # `attempts` counts the current series (a re-send starts a new one at 0); the log
        # numbers every POST of the delivery, so a re-sent delivery's rows continue after the
        # old ones.
        delivery.last_number = (delivery.last_number or 0) + 1
        attempts.append(
            (
                delivery.pk,
                delivery.last_number,
                outcome.started,
                outcome.duration_ms,
                outcome.status_code,
                outcome.error,
                outcome.succeeded,
            )
        )
        statuses[delivery.pk] = _move_on(delivery, endpoint, outcome)
    _insert_attempts(attempts)
    for delivery in deliveries.values():
        if endpoint.status != EndpointStatus.ENABLED and delivery.status == DeliveryStatus.PENDING:
            # Disabled by a later outcome: its pending deliveries were cancelled, earlier
            # ones of this batch awaiting a retry too.
            delivery.status = statuses[delivery.pk] = DeliveryStatus.CANCELLED
            delivery.next_attempt_at = None
    # One UPDATE per distinct outcome (a batch of successes is one).
    groups: dict[tuple, list[str]] = defaultdict(list)
    for delivery in deliveries.values():
        groups[tuple(getattr(delivery, name) for name in _DELIVERY_FIELDS)].append(delivery.pk)
    now = timezone.now()
    for values, ids in groups.items():
        _update_deliveries(ids, dict(zip(_DELIVERY_FIELDS, values, strict=True)), now)
    return statuses


# The recording's reads and writes run on every batch a drain sends: the two locking reads are
# compiled once (`jobcost.selectors.fetch`, `prepared`), the two writes are SQL written from the
# models' `_meta` with the values adapted as the ORM adapts them (so SQLite, `make run`, takes
# the same statements). Compiling them through the ORM was a quarter of a busy worker's CPU.
def _lock_endpoint(endpoint_id: str) -> WebhookEndpoint:
    """The endpoint's row, locked (`SELECT … FOR NO KEY UPDATE`: the outbox's inserts of
    deliveries for it, whose foreign-key checks share-lock it, need not wait for a record)."""
    endpoint = fetch.first(
        ("webhooks.lock_endpoint",),
        lambda pk: WebhookEndpoint.objects.select_for_update(no_key=True).filter(pk=pk),
        pk=endpoint_id,
    )
    if endpoint is None:
        raise WebhookEndpoint.DoesNotExist(endpoint_id)
    return endpoint


def _lock_deliveries(ids: list[str]) -> list[WebhookDelivery]:
    """The deliveries, locked in ID order, each with `last_number`, the number of its last
    attempt row (None before the first)."""
    last_number = Subquery(
        WebhookAttempt.objects.filter(delivery=OuterRef("pk"))
        .order_by("-number")
        .values("number")[:1]
    )
    return fetch.many(
        ("webhooks.lock_deliveries", len(set(ids))),
        lambda ids: (
            WebhookDelivery.objects.select_for_update(of=("self",))
            .filter(pk__in=ids)
            .annotate(last_number=last_number)
            .order_by("pk")
        ),
        ids=list(set(ids)),
    )


# psycopg caches the conversion of a statement's `%s` placeholders (and so prepares it once)
# only for statements of at most 50 parameters (`psycopg._queries.MAX_CACHED_STATEMENT_PARAMS`):
# a batch's INSERT of 50 attempts (350 values) and its UPDATE of 50 deliveries were parsed
# again for every batch, about 6 % of a drain's CPU (cProfile). On PostgreSQL both take their
# values as arrays, a fixed number of parameters whatever the batch's size.
_ATTEMPT_COLUMNS = (
    "delivery_id",
    "number",
    "started_at",
    "duration_ms",
    "response_status",
    "error",
    "succeeded",
)


def _insert_attempts(rows: list[tuple]) -> None:
    """One INSERT of attempt rows, each a tuple of `_ATTEMPT_COLUMNS`' values. On PostgreSQL
    one array per column (`unnest`), so that the statement's text and its number of
    parameters are the same for every batch (see above)."""
    meta, ops = WebhookAttempt._meta, connection.ops
    fields = [meta.get_field(n) for n in _ATTEMPT_COLUMNS]
    columns = ", ".join(ops.quote_name(field.column) for field in fields)
    table = ops.quote_name(meta.db_table)
    adapted = [
        (*row[:2], ops.adapt_datetimefield_value(row[2]), *row[3:])  # started_at
        for row in rows
    ]
    if connection.vendor == "postgresql":
        arrays = ", ".join(f"%s::{field.db_type(connection)}[]" for field in fields)
        # Names and types from the model's _meta; every value is a parameter.
        sql = f"INSERT INTO {table} ({columns}) SELECT * FROM unnest({arrays})"  # noqa: S608
        params = [list(column) for column in zip(*adapted, strict=True)]
    else:
        values = ", ".join(["(" + ", ".join(["%s"] * len(fields)) + ")"] * len(rows))
        sql = f"INSERT INTO {table} ({columns}) VALUES {values}"  # noqa: S608
        params = [value for row in adapted for value in row]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _update_deliveries(ids: list[str], values: dict, now: datetime) -> None:
    """One UPDATE giving the deliveries `ids` the same `_DELIVERY_FIELDS` values. On
    PostgreSQL the IDs are one array parameter (see above `_ATTEMPT_COLUMNS`)."""
    meta, ops = WebhookDelivery._meta, connection.ops
    names = [*_DELIVERY_FIELDS, "updated_at"]
    values = {**values, "updated_at": now}
    assignments = ", ".join(f"{ops.quote_name(meta.get_field(n).column)} = %s" for n in names)
    params = [meta.get_field(n).get_db_prep_save(values[n], connection) for n in names]
    pk = ops.quote_name(meta.pk.column)
    if connection.vendor == "postgresql":
        where, ids_params = f"{pk} = ANY(%s::{meta.pk.db_type(connection)}[])", [list(ids)]
    else:
        where, ids_params = f"{pk} IN ({', '.join(['%s'] * len(ids))})", list(ids)
    with connection.cursor() as cursor:
        cursor.execute(
            # Names from the model's _meta; every value is a parameter.
            f"UPDATE {ops.quote_name(meta.db_table)} SET {assignments} WHERE {where}",  # noqa: S608
            [*params, *ids_params],
        )


def _move_on(delivery: WebhookDelivery, endpoint: WebhookEndpoint, outcome: Outcome) -> str:
    """The retry contract for one attempt: the delivery's new status and next attempt (saved
    by the caller), the endpoint's failure clock, lane and status (saved here)."""
    if (
        not outcome.succeeded
        and delivery.status == DeliveryStatus.PENDING
        and outcome.lease_lost(delivery)
    ):
        # A late failure: the lease ran out during the attempt and another worker has the
        # delivery now. The attempt is logged and changes nothing else: the holder's own
        # outcome moves the delivery, its last answer, the endpoint's lane, failure clock and
        # status on (a late 410 included). A late success still counts: it was delivered.
        return delivery.status
    if endpoint.status != EndpointStatus.ENABLED and delivery.status == DeliveryStatus.PENDING:
        # An earlier outcome of this batch disabled the endpoint, which cancelled its pending
        # deliveries in the database: this one among them.
        delivery.status = DeliveryStatus.CANCELLED
        delivery.next_attempt_at = None
    delivery.last_response_status = outcome.status_code
    delivery.last_error = outcome.error
    _note_speed(endpoint, outcome.duration_ms)
    if delivery.status != DeliveryStatus.PENDING:
        # Cancelled while this attempt was in flight (endpoint deleted or disabled): the
        # attempt is logged, the delivery stays as it is.
        return delivery.status
    now = timezone.now()
    if outcome.succeeded:
        delivery.status = DeliveryStatus.SUCCEEDED
        delivery.next_attempt_at = None
        if endpoint.failing_since is not None:
            endpoint.failing_since = None
            endpoint.save(update_fields=["failing_since", "updated_at"])
    else:
        if endpoint.failing_since is None:
            endpoint.failing_since = now
            endpoint.save(update_fields=["failing_since", "updated_at"])
        if outcome.status_code == 410:
            endpoint_disable(endpoint=endpoint, reason="gone")
            delivery.status = DeliveryStatus.CANCELLED
            delivery.next_attempt_at = None
        elif now - endpoint.failing_since >= FAILING_FOR:
            endpoint_disable(endpoint=endpoint, reason="failing")
            delivery.status = DeliveryStatus.FAILED
            delivery.next_attempt_at = None
        elif delivery.attempts >= MAX_ATTEMPTS:
            delivery.status = DeliveryStatus.FAILED
            delivery.next_attempt_at = None
        else:
            delivery.next_attempt_at = now + RETRY_AFTER[delivery.attempts - 1]
    return delivery.status
