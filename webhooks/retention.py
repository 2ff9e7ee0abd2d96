"""How long events are kept: 30 days, then the beat job `purge_old_events` deletes them with
their deliveries and attempts (docs/webhooks.md, "The payload")."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from webhooks.models import Event

EVENT_RETENTION = timedelta(days=30)


def events_purge() -> int:
    """Delete events older than `EVENT_RETENTION` (with their deliveries); returns how many."""
    cutoff = timezone.now() - EVENT_RETENTION
    _deleted, by_model = Event.objects.filter(created_at__lt=cutoff).delete()
    return by_model.get("webhooks.Event", 0)
