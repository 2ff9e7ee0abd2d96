"""Celery tasks: each takes IDs only and is safe to run twice (STYLE §9). Schedules are in
config/celery.py."""

from __future__ import annotations

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from webhooks import delivery
from webhooks.models import DeliveryStatus, WebhookDelivery

SWEEP_BATCH = 500


@shared_task(name="webhooks.tasks.deliver", ignore_result=True)
def deliver(delivery_id: str) -> str | None:
    """Make the next attempt of one delivery (a no-op when it is not due or is claimed)."""
    return delivery.attempt(delivery_id)


@shared_task(name="webhooks.tasks.sweep_due_deliveries", ignore_result=True)
def sweep_due_deliveries() -> int:
    """Queue every due pending delivery: first attempts a broker outage dropped, retries
    whose time has come, and leases of workers that died mid-send. Rows other sweepers hold
    are skipped (`SKIP LOCKED`); the claim in `delivery.attempt` makes a double queue
    harmless."""
    with transaction.atomic():
        due = list(
            WebhookDelivery.objects.select_for_update(skip_locked=True)
            .filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=timezone.now())
            .order_by("next_attempt_at")
            .values_list("id", flat=True)[:SWEEP_BATCH]
        )
    for delivery_id in due:
        deliver.delay(delivery_id)
    return len(due)


@shared_task(name="webhooks.tasks.purge_old_events", ignore_result=True)
def purge_old_events() -> int:
    """SPEC §8 event: events are kept 30 days (their deliveries and attempts go with them)."""
    from webhooks.services import events_purge

    return events_purge()
