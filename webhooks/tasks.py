"""Celery tasks: each takes IDs only and is safe to run twice. Schedules are in
config/celery.py; the queues (lanes) and the worker commands are in docs/operations/workers.md.

Webhook work is queued per endpoint: `drain_endpoint` sends one endpoint's due deliveries in
one of its slots (webhooks/drain.py), on its lane's queue (webhooks/lanes.py). `deliver`, one
attempt of one delivery, stays for messages queued before the drains existed."""

from __future__ import annotations

import logging

from celery import shared_task
from django.utils import timezone

from webhooks import delivery, drain
from webhooks.lanes import FAST, lane_of, queue_for
from webhooks.models import DeliveryStatus, WebhookDelivery
from webhooks.retention import events_purge

logger = logging.getLogger("jobcost.webhooks")

# Endpoints one sweep queues a drain for at most (the next sweep, 5 s later, takes the rest).
SWEEP_BATCH = 500
# A drain message is a hint (the rows are the truth): one that waited this long in a backed-up
# lane is dropped unrun, since the sweep has queued a fresh one meanwhile. This bounds a lane's
# queue when many dead endpoints keep the slow lane's threads busy.
DRAIN_EXPIRES_SECONDS = 60


def queue_drains(lanes: dict[str, str]) -> int:
    """Queue one `drain_endpoint` per endpoint ID in `lanes` ({endpoint_id: FAST or SLOW}) on
    its lane's queue; returns how many were queued. A broker that is down loses nothing: the
    rows are committed and the beat sweep queues their drains once it is back."""
    queued = 0
    for endpoint_id, lane in lanes.items():
        try:
            drain_endpoint.apply_async(
                (endpoint_id, lane), queue=queue_for(lane), expires=DRAIN_EXPIRES_SECONDS
            )
        except Exception:  # kombu/redis errors: the sweep is the safety net
            logger.warning("could not queue a drain of %s; the sweep will queue it", endpoint_id)
            return queued
        queued += 1
    return queued


@shared_task(name="webhooks.tasks.drain_endpoint", ignore_result=True)
def drain_endpoint(endpoint_id: str, lane: str = FAST) -> int:
    """Send the endpoint's due deliveries for a while (webhooks/drain.py) and queue the next
    drain, on the endpoint's lane now, if some remain; returns the attempts made."""
    result = drain.drain(endpoint_id, lane, on_backlog=lambda: queue_drains({endpoint_id: lane}))
    if result.more:
        queue_drains({endpoint_id: result.lane})
    return result.sent


@shared_task(name="webhooks.tasks.deliver", ignore_result=True)
def deliver(delivery_id: str) -> str | None:
    """Make the next attempt of one delivery (a no-op when it is not due or is claimed)."""
    return delivery.attempt(delivery_id)


@shared_task(name="webhooks.tasks.sweep_due_deliveries", ignore_result=True)
def sweep_due_deliveries() -> int:
    """Queue a drain for every endpoint with due pending deliveries — first attempts a broker
    outage dropped, retries whose time has come, leases of workers that died mid-send — on
    the endpoint's lane. Returns the number of drains queued (endpoints, not deliveries). A
    drain finding every slot of its endpoint taken returns at once, so a double queue costs
    one cheap task."""
    due = (
        WebhookDelivery.objects.filter(
            status=DeliveryStatus.PENDING, next_attempt_at__lte=timezone.now()
        )
        .values_list("endpoint_id", "endpoint__failing_since", "endpoint__slow_since")
        .distinct()[:SWEEP_BATCH]
    )
    return queue_drains({endpoint_id: lane_of(failing, slow) for endpoint_id, failing, slow in due})


@shared_task(name="webhooks.tasks.purge_old_events", ignore_result=True)
def purge_old_events() -> int:
    """Events are kept 30 days; their deliveries and attempts go with them (`retention`)."""
    return events_purge()
