"""Visible webhook endpoints, events and deliveries."""

from django.db.models import QuerySet

from jobcost.scope import Scope
from webhooks.models import Event, WebhookDelivery, WebhookEndpoint


def endpoint_list(scope: Scope) -> QuerySet[WebhookEndpoint]:
    """The account's endpoints that are not deleted."""
    return scope.filter(WebhookEndpoint.objects.filter(deleted_at__isnull=True), None)


def event_list(scope: Scope) -> QuerySet[Event]:
    """The account's events (a project-restricted key sees its projects' events)."""
    return scope.filter(Event.objects.all(), "project")


def delivery_list(endpoint: WebhookEndpoint) -> QuerySet[WebhookDelivery]:
    return (
        WebhookDelivery.objects.filter(endpoint=endpoint)
        .select_related("event")
        .prefetch_related("attempt_log")
    )
