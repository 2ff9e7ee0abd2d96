"""Webhook endpoints: create, update, delete, rotate the secret, disable and re-enable; re-send
a delivery (docs/webhooks.md, "Managing endpoints"); disabling is `endpoint_state`, the retention of
events `retention`."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from jobcost.error_codes import RequestErrorCode
from jobcost.errors import InvalidRequest
from jobcost.services.common import apply_changes, lock, not_allowed, save_audited, service
from webhooks import signing
from webhooks.catalogue import CATALOGUE
from webhooks.endpoint_state import cancel_pending, endpoint_disable
from webhooks.errors import WebhookErrorCode
from webhooks.lanes import lane_for
from webhooks.models import (
    DeliveryStatus,
    EndpointStatus,
    WebhookDelivery,
    WebhookEndpoint,
)
from webhooks.tasks import queue_drains
from webhooks.urlguard import UrlRefused, check_url

ROTATION_OVERLAP = timedelta(hours=24)


def _check(url: str | None, events: list[str] | None, api_version: str | None) -> None:
    if url is not None:
        try:
            check_url(url)
        except UrlRefused as exc:
            raise InvalidRequest(str(exc), code=WebhookErrorCode.URL_INVALID, param="url") from exc
    if events is not None:
        unknown = [e for e in events if e != "*" and e not in CATALOGUE]
        if not events or unknown:
            raise InvalidRequest(
                f"Unknown event types: {', '.join(unknown)}."
                if unknown
                else "List at least one event type, or '*'.",
                param="events",
            )
    if api_version is not None and api_version not in settings.JOBCOST_API_VERSIONS:
        raise InvalidRequest(
            f"Unknown API version '{api_version}'.",
            code=RequestErrorCode.API_VERSION_UNKNOWN,
            param="api_version",
        )


@service
def endpoint_create(
    *, account_id: str, url: str, events: list[str], api_version: str, description: str = ""
) -> WebhookEndpoint:
    """Create an enabled endpoint with a new `whsec_` secret, pinned to `api_version`.
    Raises 400 `url_invalid` (not HTTPS, or an address inside a private network).

    Emits: audit webhook_endpoint.created; events none.
    """
    _check(url, events, api_version)
    return save_audited(
        WebhookEndpoint(
            account_id=account_id,
            url=url,
            events=sorted(set(events)),
            api_version=api_version,
            description=description,
            secret=signing.new_secret(),
        )
    )


@service
def endpoint_update(*, endpoint_id: str, changes: dict) -> WebhookEndpoint:
    """PATCH `url`, `events`, `description`, `status` (`disabled` cancels pending deliveries
    at once; `enabled` turns a disabled endpoint back on and clears its failure clock).
    A deleted endpoint is never changed (409 `invalid_state_transition`).

    Emits: audit webhook_endpoint.disabled, webhook_endpoint.enabled, webhook_endpoint.updated;
    events none.
    """
    endpoint = lock(WebhookEndpoint, endpoint_id)
    if endpoint.deleted_at is not None:
        raise not_allowed(
            endpoint,
            message="This endpoint was deleted; create a new one.",
        )
    _check(changes.get("url"), changes.get("events"), None)
    status = changes.pop("status", endpoint.status)
    if "events" in changes:
        changes["events"] = sorted(set(changes["events"]))
    apply_changes(endpoint, changes, frozenset({"url", "events", "description"}))
    if status != endpoint.status:
        if status == EndpointStatus.DISABLED:
            return endpoint_disable(endpoint=endpoint, reason="manual")
        endpoint.status = EndpointStatus.ENABLED
        endpoint.disabled_reason = ""
        endpoint.failing_since = None
        return save_audited(endpoint, action="enabled")
    return save_audited(endpoint)


@service
def endpoint_delete(*, endpoint_id: str) -> WebhookEndpoint:
    """Delete: the endpoint disappears from the API and its pending deliveries are cancelled
    at once (history is kept).

    Emits: audit webhook_endpoint.deleted; events none.
    """
    endpoint = lock(WebhookEndpoint, endpoint_id)
    endpoint.deleted_at = timezone.now()
    endpoint.status = EndpointStatus.DISABLED
    endpoint.disabled_reason = "deleted"
    save_audited(endpoint, action="deleted")
    cancel_pending(endpoint)
    return endpoint


@service
def endpoint_rotate_secret(*, endpoint_id: str) -> WebhookEndpoint:
    """A new secret signs from now on; the old one keeps signing alongside for 24 h. At most
    two secrets are live: a second rotation within 24 h drops the oldest at once (docs/webhooks.md,
    "Decisions (webhooks)").

    Emits: audit webhook_endpoint.secret_rotated; events none.
    """
    endpoint = lock(WebhookEndpoint, endpoint_id)
    endpoint.previous_secret = endpoint.secret
    endpoint.previous_secret_expires_at = timezone.now() + ROTATION_OVERLAP
    endpoint.secret = signing.new_secret()
    return save_audited(endpoint, action="secret_rotated")


@service
def delivery_resend(*, delivery_id: str) -> WebhookDelivery:
    """Queue a failed (or cancelled) delivery again, now, for a fresh series of attempts.
    The endpoint must be enabled (409 `invalid_state_transition` otherwise).

    Emits: none.
    """
    delivery = WebhookDelivery.objects.select_for_update().get(pk=delivery_id)
    endpoint = WebhookEndpoint.objects.get(pk=delivery.endpoint_id)
    if delivery.status not in (DeliveryStatus.FAILED, DeliveryStatus.CANCELLED):
        raise not_allowed(
            delivery,
            message="Only failed or cancelled deliveries can be re-sent; this one is "
            f"{delivery.status}.",
        )
    if endpoint.status != EndpointStatus.ENABLED or endpoint.deleted_at:
        raise not_allowed(
            delivery,
            message="Enable the endpoint before re-sending its deliveries.",
        )
    delivery.status = DeliveryStatus.PENDING
    delivery.attempts = 0
    delivery.next_attempt_at = timezone.now()
    delivery.save()
    lanes = {endpoint.pk: lane_for(endpoint)}
    transaction.on_commit(lambda: queue_drains(lanes))
    return delivery
