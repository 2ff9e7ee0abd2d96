"""Helpers for the webhook tests: endpoints made through the services, deliveries owed by a
real audited change, and the webhook rows a refused request must leave untouched."""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import ProjectFactory
from webhooks import services
from webhooks.delivery import attempt
from webhooks.models import Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint

VERSION = settings.JOBCOST_API_VERSIONS[-1]
# A public name: the tests' resolver answers it (tests/webhooks/resolvers.py, no DNS query),
# and no test ever sends to it (tests/network.py would refuse the connection).
PUBLIC_URL = "https://hooks.example.com/hooks"


def make_endpoint(account, url: str = PUBLIC_URL, events=("*",)) -> WebhookEndpoint:
    """An enabled endpoint of `account`, created by `endpoint_create`."""
    return services.endpoint_create(
        account_id=account.pk, url=url, events=list(events), api_version=VERSION
    )


def owe_delivery(endpoint: WebhookEndpoint) -> WebhookDelivery:
    """Create a project in the endpoint's account (a `project.created` event) and return the
    pending delivery it owes the endpoint."""
    project = ProjectFactory(account=endpoint.account)
    return WebhookDelivery.objects.get(endpoint=endpoint, event__object_id=project.pk)


def make_due(delivery: WebhookDelivery) -> None:
    """Let the time pass until the delivery's next attempt."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())


def fail_completely(delivery: WebhookDelivery) -> WebhookDelivery:
    """Run all eight attempts against a receiver that keeps failing; returns it `failed`."""
    for _ in range(8):
        make_due(delivery)
        attempt(delivery.pk)
    delivery.refresh_from_db()
    assert delivery.status == "failed", delivery.status
    return delivery


# The tables `webhook_state()` reads, for `tests.jobcost.api.state.digest`.
WEBHOOK_MODELS = (WebhookEndpoint, Event, WebhookDelivery, WebhookAttempt)


def webhook_state() -> dict:
    """Every endpoint, event, delivery and attempt row, and the audit row count."""
    return {
        "endpoints": list(WebhookEndpoint.objects.order_by("pk").values()),
        "events": list(Event.objects.order_by("pk").values()),
        "deliveries": list(WebhookDelivery.objects.order_by("pk").values()),
        "attempts": list(WebhookAttempt.objects.order_by("pk").values()),
        "audit_entries": AuditEntry.objects.count(),
    }
