"""Draining one endpoint's due deliveries (docs/operations/workers.md and "Delivery, retries and
disabling").

Work is queued per endpoint, not per delivery: after a change commits, the outbox queues one
`drain_endpoint(endpoint, lane)` task per endpoint it now owes something, and the beat sweep
does the same every 5 s for each endpoint with due rows (retries, leases of dead workers,
anything a broker outage dropped). `drain`:

1. takes one of `WEBHOOKS_ENDPOINT_SLOTS` slots for the endpoint — a PostgreSQL session-level
   advisory lock per (endpoint, slot), which the server drops with the session if the worker
   dies — or returns at once when every slot is taken, since their holders send whatever is
   due. On SQLite (`make run` only) there is no cap: the conditional claim keeps it correct.
2. claims a batch of the endpoint's due deliveries (`SELECT … FOR UPDATE SKIP LOCKED`, and
   an `UPDATE` that counts the attempt and moves `next_attempt_at` a lease ahead: on
   PostgreSQL one statement that also returns the events; a first batch that comes back
   full queues one more drain, so that a backlog gets every slot working), and for each one
   re-reads the endpoint right before sending (deleted or disabled → cancelled with the
   rest; no longer subscribed to the event's type → that one cancelled), then sends it with
   the drain's own connection pool (`webhooks.delivery.post_claimed`: the SSRF check, the
   POST). Outcomes are recorded (`record_outcomes`: the attempt rows, the retry schedule,
   the endpoint's clock and lane) a run at a time: quick successes wait for the batch's
   end, anything else is recorded before the next POST.
3. stops when nothing is due, when its time budget is spent, when the lease could no longer
   cover one more full attempt, or when the endpoint changed lane (it turned slow or started
   failing, or recovered). Claimed rows it did not send are released — due again, the attempt
   not counted — and the task queues the next drain on the endpoint's lane: a busy endpoint
   yields its thread instead of holding it for an hour.
4. after giving its slot back, looks once more for due rows, so that a delivery committed
   while the drain was finishing (whose own drain found no free slot) is not left to the sweep.

So an endpoint uses at most `WEBHOOKS_ENDPOINT_SLOTS` worker threads at once, and a slow or
failing one uses them in the slow lane (webhooks/lanes.py), whose threads only such endpoints
share. At-least-once and the stable `webhook-id` are unchanged: a row is only ever sent under
its lease, and a worker that dies leaves it due again when the lease runs out.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

import httpcore
from django.conf import settings
from django.db import DatabaseError, connection, connections, transaction
from django.db.models import F
from django.utils import timezone

from jobcost.selectors.instances import kept_cursor
from jobcost.services.common import advisory_lock_id
from webhooks.delivery import (
    LEASE,
    TIMEOUT_SECONDS,
    Outcome,
    drain_pool,
    post_claimed,
    record_outcomes,
    subscribed,
)
from webhooks.lanes import FAST, SLOW, lane_for
from webhooks.models import (
    DeliveryStatus,
    EndpointStatus,
    Event,
    WebhookDelivery,
    WebhookEndpoint,
)

# Rows claimed at once: a fast endpoint's batch of instant answers is sent in a few tens of
# milliseconds (50 rather than 20 took the claim's and the record's share of a delivery's CPU
# from about 75 to 47 µs, one drain in process; the lease check below still stops a batch
# whose answers slow down); a slow one's rows are claimed one by one so that its other slot
# can take the next.
BATCH = {FAST: 50, SLOW: 1}
# A drain hands its thread back (queueing its successor) after this many seconds.
BUDGET_SECONDS = 20.0
# The longest one attempt takes: `webhooks.transport.post` ends it within twice the timeout of
# its start (docs/webhooks.md, "Delivery, retries and disabling"; the address lookup aside).
ATTEMPT_SECONDS = 2 * TIMEOUT_SECONDS
# A send starts only while the lease (counted from before the claim) still covers a full
# attempt and this margin: a row is never sent, nor left sent but unrecorded, past its lease,
# when another drain could claim it.
LEASE_MARGIN_SECONDS = 5.0


@dataclass(frozen=True)
class DrainResult:
    """What one drain did: `sent` attempts made; `more` is True when due rows remain and the
    caller must queue another drain on `lane`; `slot` is False when every slot was taken."""

    sent: int
    more: bool
    lane: str
    slot: bool = True


def _slot_key(endpoint_id: str, slot: int) -> int:
    """The advisory-lock ID of one of the endpoint's slots."""
    return advisory_lock_id("webhook-slot", endpoint_id, str(slot))


@contextmanager
def endpoint_slot(endpoint_id: str) -> Iterator[int | None]:
    """Hold one of the endpoint's `WEBHOOKS_ENDPOINT_SLOTS` slots (yields its number), or
    yield None when all are held. PostgreSQL session-level advisory locks, so they outlive
    the claim's and the record's transactions and die with a dead worker's connection."""
    if connection.vendor != "postgresql":
        yield 0
        return
    held = None
    with connection.cursor() as cursor:
        for slot in range(settings.WEBHOOKS_ENDPOINT_SLOTS):
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [_slot_key(endpoint_id, slot)])
            if cursor.fetchone()[0]:
                held = slot
                break
    try:
        yield held
    finally:
        if held is not None:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [_slot_key(endpoint_id, held)])
            except DatabaseError:
                connection.close()  # the server drops the session's locks with it


def _due(endpoint_id: str, now: datetime):
    return WebhookDelivery.objects.filter(
        endpoint_id=endpoint_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
    )


# What the send reads of the endpoint: re-read before every POST (`_recheck`).
_RECHECKED = (
    "status",
    "deleted_at",
    "url",
    "events",
    "api_version",
    "secret",
    "previous_secret",
    "previous_secret_expires_at",
    "failing_since",
    "slow_since",
)


@functools.cache
def _recheck_sql() -> str:
    """The re-read: the `_RECHECKED` columns of one endpoint by primary key (`events` as text,
    which `_recheck` parses). Names from the model's `_meta`; the ID is a parameter."""
    meta = WebhookEndpoint._meta
    quote = connection.ops.quote_name
    columns = ", ".join(
        quote(meta.get_field(name).column) + ("::text" if name == "events" else "")
        for name in _RECHECKED
    )
    return f"SELECT {columns} FROM {quote(meta.db_table)} WHERE {quote(meta.pk.column)} = %s"  # noqa: S608


def _recheck(endpoint: WebhookEndpoint, cursor, db) -> WebhookEndpoint | None:
    """The endpoint as the database has it now (None when its row is gone): the columns a send
    and its checks read, refreshed on `endpoint` in place. One plain SELECT by primary key —
    the ORM's query building cost a worker more than the round trip (about 1 ms against 0.2 ms
    on the development machine), and this runs before every POST. `cursor` is the psycopg
    cursor kept with Django's connection (`_Sender.reread`): the same connection, adapters and
    prepared statements as Django's cursor, without the wrapper Django builds around a new
    cursor for each statement, about a third of the re-read's CPU (errors still arrive as
    Django's `DatabaseError`s). Statements on it are not seen by Django's query log or
    `execute_wrapper`s. On SQLite (`make run`) `cursor` is None and the ORM reads the row.
    `db` is the Django connection the cursor belongs to."""
    if cursor is None:
        return WebhookEndpoint.objects.filter(pk=endpoint.pk).first()
    with db.wrap_database_errors:
        cursor.execute(_recheck_sql(), [endpoint.pk])
        row = cursor.fetchone()
    if row is None:
        return None
    for name, value in zip(_RECHECKED, row, strict=True):
        setattr(endpoint, name, json.loads(value) if name == "events" else value)
    return endpoint


def _usable(endpoint: WebhookEndpoint | None) -> bool:
    return (
        endpoint is not None
        and endpoint.deleted_at is None
        and endpoint.status == EndpointStatus.ENABLED
    )


def _claim_batch(endpoint_id: str, size: int) -> tuple[list[WebhookDelivery], datetime]:
    """Lease up to `size` of the endpoint's due deliveries (oldest due first) and count their
    attempt; returns them, with their events, in the order they were written, and the lease's
    end, which marks them as this drain's. On PostgreSQL one statement (`_claim_sql`)."""
    now = timezone.now()
    lease_until = now + LEASE
    if connection.vendor == "postgresql":
        return _claim_returning(endpoint_id, size, now, lease_until), lease_until
    with transaction.atomic():
        ids = list(
            _due(endpoint_id, now)
            .select_for_update(skip_locked=True)
            .order_by("next_attempt_at", "id")
            .values_list("id", flat=True)[:size]
        )
        if not ids:
            return [], lease_until
        # Conditional, so that on SQLite (no row locks) two drains never both take a row.
        _due(endpoint_id, now).filter(pk__in=ids).update(
            attempts=F("attempts") + 1, next_attempt_at=lease_until, updated_at=now
        )
    claimed = (
        WebhookDelivery.objects.filter(pk__in=ids, next_attempt_at=lease_until)
        .select_related("event")
        .order_by("created_at", "id")
    )
    return list(claimed), lease_until


@functools.cache
def _claim_sql() -> str:
    """The claim as one PostgreSQL statement: lock the due rows (`FOR UPDATE SKIP LOCKED`,
    oldest due first, in a `MATERIALIZED` CTE, run exactly once), count their attempt and
    lease them, and return them with their events. Table and column names come from the
    models' `_meta`; every value is a parameter."""
    quote = connection.ops.quote_name
    delivery, event = WebhookDelivery._meta, Event._meta

    def column(name: str) -> str:
        return quote(delivery.get_field(name).column)

    returned = ", ".join(
        [f"d.{quote(f.column)}" for f in delivery.concrete_fields]
        + [f"e.{quote(f.column)}" for f in event.concrete_fields]
    )
    attempts, next_at, pk = column("attempts"), column("next_attempt_at"), column("id")
    return (
        f"WITH due AS MATERIALIZED (SELECT {pk} FROM {quote(delivery.db_table)} "  # noqa: S608
        f"WHERE {column('endpoint')} = %s AND {column('status')} = %s AND {next_at} <= %s "
        f"ORDER BY {next_at}, {pk} LIMIT %s FOR UPDATE SKIP LOCKED) "
        f"UPDATE {quote(delivery.db_table)} AS d SET {attempts} = d.{attempts} + 1, "
        f"{next_at} = %s, {column('updated_at')} = %s "
        f"FROM due, {quote(event.db_table)} AS e "
        f"WHERE d.{pk} = due.{pk} AND e.{quote(event.pk.column)} = d.{column('event')} "
        f"RETURNING {returned}"
    )


def _claim_returning(
    endpoint_id: str, size: int, now: datetime, lease_until: datetime
) -> list[WebhookDelivery]:
    pending = DeliveryStatus.PENDING
    with connection.cursor() as cursor:
        cursor.execute(_claim_sql(), [endpoint_id, pending, now, size, lease_until, now])
        rows = cursor.fetchall()
    delivery_fields = WebhookDelivery._meta.concrete_fields
    event_fields = Event._meta.concrete_fields
    split = len(delivery_fields)
    db = connection.alias
    claimed = []
    for row in rows:
        delivery = WebhookDelivery.from_db(db, None, row[:split])
        event_row = list(row[split:])
        for index, field in enumerate(event_fields):
            if field.name == "data":  # jsonb arrives as text (the backend's loader)
                event_row[index] = json.loads(event_row[index])
        delivery.event = Event.from_db(db, None, event_row)
        claimed.append(delivery)
    claimed.sort(key=lambda d: (d.created_at, d.pk))
    return claimed


def _release(deliveries: list[WebhookDelivery], lease_until: datetime, *, cancel: bool) -> None:
    """Give back claimed deliveries that were not sent: due now with the attempt uncounted, or
    cancelled (their endpoint was deleted or disabled). Rows whose lease was lost are left."""
    if not deliveries:
        return
    WebhookDelivery.objects.filter(
        pk__in=[d.pk for d in deliveries],
        status=DeliveryStatus.PENDING,
        next_attempt_at=lease_until,
    ).update(
        attempts=F("attempts") - 1,
        status=DeliveryStatus.CANCELLED if cancel else DeliveryStatus.PENDING,
        next_attempt_at=None if cancel else timezone.now(),
        updated_at=timezone.now(),
    )


def _cancel_due(endpoint_id: str) -> None:
    """The endpoint was deleted or disabled behind the services' back: its due rows will
    never be sent (the services cancel everything pending when they do it)."""
    _due(endpoint_id, timezone.now()).update(
        status=DeliveryStatus.CANCELLED, next_attempt_at=None, updated_at=timezone.now()
    )


class _Sender:
    """What one drain's POSTs share: its connection pool (kept-alive connections to the
    endpoint), the last URL that passed the SSRF guard's URL check, which reads only the
    URL and a setting that does not change during a drain (`post_claimed`'s `checked_url`):
    it runs again whenever the re-read endpoint has another URL (the addresses are checked
    by the pool whenever it connects)."""

    def __init__(self, pool: httpcore.ConnectionPool) -> None:
        self.pool = pool
        self.checked_url: str | None = None
        # This thread's Django connection itself, not the `connection` proxy, which looks it
        # up again at every attribute: `kept_cursor` took 10.8 µs through the proxy, 1.6 µs
        # without it (Django keeps the same object per thread, replacing only its psycopg
        # connection).
        self.db = connections[connection.alias]

    def reread(self, endpoint: WebhookEndpoint) -> WebhookEndpoint | None:
        """`_recheck` on the psycopg cursor kept with Django's connection
        (`jobcost.selectors.instances.kept_cursor`); on SQLite through the ORM."""
        if self.db.vendor != "postgresql":
            return _recheck(endpoint, None, self.db)
        return _recheck(endpoint, kept_cursor(self.db), self.db)

    def post(self, delivery: WebhookDelivery, endpoint: WebhookEndpoint) -> Outcome:
        outcome = post_claimed(delivery, endpoint, pool=self.pool, checked_url=self.checked_url)
        if not outcome.error.startswith("url_refused"):
            self.checked_url = endpoint.url
        return outcome


def _send_batches(
    endpoint_id: str,
    lane: str,
    deadline: float,
    on_backlog: Callable[[], None] | None,
    sender: _Sender,
) -> DrainResult:
    """Claim and send batches while the slot is held; see the module docstring, step 3."""
    sent = 0
    endpoint = None
    while True:
        # Read before each claim: in full the first time, then the columns a send reads.
        if endpoint is None:
            endpoint = WebhookEndpoint.objects.filter(pk=endpoint_id).first()
        else:
            endpoint = sender.reread(endpoint)
        if not _usable(endpoint):
            _cancel_due(endpoint_id)
            return DrainResult(sent, more=False, lane=lane)
        if lane_for(endpoint) != lane:
            return DrainResult(sent, more=True, lane=lane_for(endpoint))
        claimed_at = time.monotonic()  # no later than the lease's start
        batch, lease_until = _claim_batch(endpoint_id, BATCH[lane])
        if not batch:
            return DrainResult(sent, more=False, lane=lane)
        if on_backlog is not None and len(batch) == BATCH[lane]:
            on_backlog()  # a full batch: more may be due, so put the other slots to work
            on_backlog = None
        stop, made = _send_batch(endpoint, lane, batch, (lease_until, claimed_at), deadline, sender)
        sent += made
        if stop is not None:
            return DrainResult(sent, more=stop.more, lane=stop.lane)
        if time.monotonic() >= deadline:
            return DrainResult(sent, more=True, lane=lane)


def _send_batch(
    endpoint: WebhookEndpoint,
    lane: str,
    batch: list[WebhookDelivery],
    lease: tuple[datetime, float],
    deadline: float,
    sender: _Sender,
) -> tuple[DrainResult | None, int]:
    """Send one claimed batch, re-reading the endpoint right before each POST; returns (a
    result when the drain must stop, the POSTs made). `lease` is the claim's `lease_until`
    and the monotonic clock read before the claim. Quick successes are recorded together
    (`record_outcomes`) when the batch ends or stops, or before the next POST once any
    outcome that moves the endpoint on (a failure, a slow answer) is among them: nothing is
    sent to an endpoint whose row has not seen every earlier attempt's effect."""
    endpoint_id = endpoint.pk
    lease_until, claimed_at = lease
    unrecorded: list[Outcome] = []
    sent = 0

    def flush() -> None:
        outcomes = unrecorded[:]
        unrecorded.clear()  # not again from `finally` if recording them raised
        record_outcomes(endpoint_id, outcomes)

    try:
        for index, delivery in enumerate(batch):
            if index:  # re-read right before each send (the claim read it for the first)
                endpoint = sender.reread(endpoint)
            rest = batch[index:]
            if not _usable(endpoint):
                flush()
                _release(rest, lease_until, cancel=True)
                _cancel_due(endpoint_id)
                return DrainResult(sent, more=False, lane=lane), sent
            now = time.monotonic()
            lease_left = LEASE.total_seconds() - (now - claimed_at)
            if (
                lane_for(endpoint) != lane
                or now >= deadline
                or lease_left < ATTEMPT_SECONDS + LEASE_MARGIN_SECONDS
            ):
                flush()
                _release(rest, lease_until, cancel=False)
                return DrainResult(sent, more=True, lane=lane_for(endpoint)), sent
            if not subscribed(endpoint, delivery):
                _release([delivery], lease_until, cancel=True)
                continue
            outcome = sender.post(delivery, endpoint)
            sent += 1
            unrecorded.append(outcome)
            if not outcome.changes_nothing_for(endpoint):
                flush()
    finally:
        # Also when a database error stops the batch: what was sent is recorded if the
        # database allows; otherwise those rows are sent again when their lease runs out.
        flush()
    return None, sent


def drain(
    endpoint_id: str,
    lane: str,
    *,
    budget: float = BUDGET_SECONDS,
    on_backlog: Callable[[], object] | None = None,
) -> DrainResult:
    """Send the endpoint's due deliveries for up to `budget` seconds in one of its slots.

    `lane` is the lane (webhooks/lanes.py FAST or SLOW) this drain was queued on; when the
    endpoint belongs in the other one the drain stops and says so in the result. The first
    time a claim comes back full, `on_backlog()` is called once (the task queues one more
    drain, which takes another free slot or returns at once). Returns a `DrainResult`; the
    caller queues the next drain when `more` is True. Never raises for a failed POST (that is
    a recorded attempt); database errors propagate.
    """
    deadline = time.monotonic() + budget
    with endpoint_slot(endpoint_id) as slot:
        if slot is None:
            return DrainResult(0, more=False, lane=lane, slot=False)
        with drain_pool() as pool:
            result = _send_batches(endpoint_id, lane, deadline, on_backlog, _Sender(pool))
    if not result.more and _due(endpoint_id, timezone.now()).exists():
        endpoint = WebhookEndpoint.objects.filter(pk=endpoint_id).first()
        return DrainResult(result.sent, more=True, lane=lane_for(endpoint) if endpoint else lane)
    return result
