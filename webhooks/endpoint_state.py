"""Turning an endpoint off: disable it (audited) and cancel its pending deliveries at once
(docs/webhooks.md, "Delivery, retries and disabling"). Below the services and the delivery code,
which both disable: the services on a PATCH or a delete, a delivery on a 410 or after 3 days of
failures."""

from __future__ import annotations

from django.utils import timezone

from jobcost.services.common import save_audited
from webhooks.models import DeliveryStatus, EndpointStatus, WebhookDelivery, WebhookEndpoint


def cancel_pending(endpoint: WebhookEndpoint) -> int:
    """Cancel the endpoint's pending deliveries; returns how many.

    Emits: none.
    """
    return WebhookDelivery.objects.filter(endpoint=endpoint, status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.CANCELLED, next_attempt_at=None, updated_at=timezone.now()
    )


def endpoint_disable(*, endpoint: WebhookEndpoint, reason: str) -> WebhookEndpoint:
    """Disable (audit action `disabled`) and cancel pending deliveries; `reason` is `manual`,
    `gone` (410) or `failing` (3 days of failures). Call inside a transaction with the row
    locked.

    Emits: audit webhook_endpoint.disabled; events none.
    """
    endpoint.status = EndpointStatus.DISABLED
    endpoint.disabled_reason = reason
    save_audited(endpoint, action="disabled", note=f"Disabled: {reason}.")
    cancel_pending(endpoint)
    return endpoint
