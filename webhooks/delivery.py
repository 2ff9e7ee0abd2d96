"""Sending one delivery attempt (README "Webhooks and events").

`attempt(delivery_id)`: claim the delivery — `SELECT … FOR UPDATE SKIP LOCKED`, due, pending —
and move its `next_attempt_at` a lease ahead in a short transaction, so no other worker can
send the same attempt; re-check the endpoint (deleted or disabled → cancelled); POST the
payload rendered at the endpoint's `api_version` with Standard Webhooks headers, 10 s timeout,
no redirects; then record the attempt: 2xx succeeded; 410 Gone disables the endpoint at once;
otherwise retry after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts) and then failed;
an endpoint that has seen nothing but failures for 3 days is disabled. Each attempt also
notes whether the endpoint was slow (`slow_since`), which picks its lane (webhooks/lanes.py).

`attempt` claims one delivery by ID (the `deliver` task, kept for messages queued before the
per-endpoint drains); webhooks/drain.py claims a batch of one endpoint's due deliveries and
calls `send_claimed` for each.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from datetime import timedelta

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from webhooks import signing
from webhooks.endpoint_state import endpoint_disable
from webhooks.lanes import SLOW_AFTER_MS
from webhooks.models import (
    DeliveryStatus,
    EndpointStatus,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)
from webhooks.transport import new_client
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


_client: httpx.Client | None = None
_client_key: tuple | None = None
_client_lock = threading.Lock()


def shared_client() -> httpx.Client:
    """The worker process's one HTTP client (`webhooks.transport.new_client`: connects only
    to addresses the SSRF guard checked, no redirects; each POST passes the timeout).
    Built once per process (after a fork too, and again if WEBHOOKS_CA_BUNDLE changes):
    building one loads the CA bundle (~20 ms, more than the POST itself on a fast receiver).
    It also keeps connections to endpoints alive."""
    global _client, _client_key
    key = (os.getpid(), settings.WEBHOOKS_CA_BUNDLE)
    with _client_lock:  # the worker's threads share it: build it once, not once per thread
        if _client is None or _client_key != key:
            _client = new_client(timeout=TIMEOUT_SECONDS)
            _client_key = key
        return _client


def _claim(delivery_id: str):
    """Lock the due delivery (skipping it if another worker holds it) and lease it."""
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(skip_locked=True)
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
        if endpoint.deleted_at is not None or endpoint.status != EndpointStatus.ENABLED:
            delivery.status = DeliveryStatus.CANCELLED
            delivery.next_attempt_at = None
            delivery.save(update_fields=["status", "next_attempt_at", "updated_at"])
            return None
        delivery.attempts += 1
        delivery.next_attempt_at = timezone.now() + LEASE
        delivery.save(update_fields=["attempts", "next_attempt_at", "updated_at"])
        return delivery, endpoint


def attempt(delivery_id: str, *, client: httpx.Client | None = None) -> str | None:
    """Make the next attempt of a due delivery; returns its new status, or None when there
    was nothing to do (not due, already claimed, finished or cancelled)."""
    claimed = _claim(delivery_id)
    if claimed is None:
        return None
    delivery, endpoint = claimed
    return send_claimed(delivery, endpoint, client=client)


def send_claimed(
    delivery: WebhookDelivery, endpoint: WebhookEndpoint, *, client: httpx.Client | None = None
) -> str:
    """POST a delivery this worker has claimed (leased, `attempts` counted) to `endpoint`, as
    just re-read, and record the attempt; returns the delivery's new status. The URL is checked
    by the SSRF guard first; a refused URL is a failed attempt."""
    body = json.dumps(
        render_payload(delivery.event, endpoint.api_version), separators=(",", ":")
    ).encode()
    started = timezone.now()
    clock = time.monotonic()
    status_code, error = None, ""
    try:
        # The URL's own rules here; its addresses when the transport connects (no second
        # lookup that DNS could answer differently).
        check_url(endpoint.url, resolve=False)
        headers = signing.headers(endpoint.signing_secrets(), delivery.pk, int(time.time()), body)
        response = (client or shared_client()).post(
            endpoint.url, content=body, headers=headers, timeout=TIMEOUT_SECONDS
        )
        status_code = response.status_code
    except UrlRefused as exc:
        error = f"url_refused: {exc}"
    except httpx.HTTPError as exc:
        # The guarded transport's messages name no address (webhooks/transport.py).
        error = f"{exc.__class__.__name__}: {exc}"[:500]
    duration_ms = int((time.monotonic() - clock) * 1000)
    return record(delivery.pk, started, duration_ms, status_code, error)


def _note_speed(endpoint: WebhookEndpoint, duration_ms: int) -> None:
    """Move the endpoint between the lanes (webhooks/lanes.py): an attempt of `SLOW_AFTER_MS` or
    more starts `slow_since`, a quicker one clears it. Written only when it changes."""
    slow = duration_ms >= SLOW_AFTER_MS
    if slow == (endpoint.slow_since is not None):
        return
    endpoint.slow_since = timezone.now() if slow else None
    endpoint.save(update_fields=["slow_since", "updated_at"])


@transaction.atomic
def record(delivery_id: str, started, duration_ms: int, status_code: int | None, error: str) -> str:
    """Write the attempt row and move the delivery (and perhaps its endpoint) on."""
    delivery = WebhookDelivery.objects.select_for_update().get(pk=delivery_id)
    endpoint = WebhookEndpoint.objects.select_for_update().get(pk=delivery.endpoint_id)
    ok = status_code is not None and 200 <= status_code < 300
    # `attempts` counts the current series (a re-send starts a new one at 0); the log numbers
    # every POST of the delivery, so a re-sent delivery's rows continue after the old ones.
    previous = delivery.attempt_log.aggregate(last=Max("number"))["last"] or 0
    WebhookAttempt.objects.create(
        delivery=delivery,
        number=previous + 1,
        started_at=started,
        duration_ms=duration_ms,
        response_status=status_code,
        error=error,
        succeeded=ok,
    )
    delivery.last_response_status = status_code
    delivery.last_error = error
    _note_speed(endpoint, duration_ms)
    if delivery.status != DeliveryStatus.PENDING:
        # Cancelled while this attempt was in flight (endpoint deleted or disabled): the
        # attempt is logged, the delivery stays as it is.
        delivery.save(update_fields=["last_response_status", "last_error", "updated_at"])
        return delivery.status
    now = timezone.now()
    if ok:
        delivery.status = DeliveryStatus.SUCCEEDED
        delivery.next_attempt_at = None
        if endpoint.failing_since is not None:
            endpoint.failing_since = None
            endpoint.save(update_fields=["failing_since", "updated_at"])
    else:
        if endpoint.failing_since is None:
            endpoint.failing_since = now
            endpoint.save(update_fields=["failing_since", "updated_at"])
        if status_code == 410:
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
    delivery.save()
    return delivery.status
