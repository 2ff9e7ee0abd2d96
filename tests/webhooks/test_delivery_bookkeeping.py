"""Delivery bookkeeping: the endpoint's failure clock stays off the audit trail, and an
attempt that finishes after its delivery was cancelled leaves it cancelled."""

from django.utils import timezone

from audit.models import AuditEntry
from tests.webhooks.support import make_due, make_endpoint, owe_delivery
from webhooks.delivery import attempt, record
from webhooks.models import DeliveryStatus, WebhookEndpoint


def test_the_failure_clock_moves_without_audit_entries(account, receiver):
    receiver.statuses = [500, 200]
    endpoint = make_endpoint(account, url=receiver.url)
    delivery = owe_delivery(endpoint)
    entries = AuditEntry.objects.filter(target_id=endpoint.pk).count()
    attempt(delivery.pk)
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).failing_since is not None
    make_due(delivery)
    attempt(delivery.pk)
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).failing_since is None
    assert AuditEntry.objects.filter(target_id=endpoint.pk).count() == entries


def test_an_attempt_landing_after_a_cancel_keeps_the_delivery_cancelled(account):
    endpoint = make_endpoint(account)
    delivery = owe_delivery(endpoint)
    delivery.status = DeliveryStatus.CANCELLED
    delivery.attempts = 1
    delivery.next_attempt_at = None
    delivery.save()
    assert record(delivery.pk, timezone.now(), 12, 500, "") == DeliveryStatus.CANCELLED
    delivery.refresh_from_db()
    assert (delivery.status, delivery.next_attempt_at, delivery.last_response_status) == (
        DeliveryStatus.CANCELLED,
        None,
        500,
    )
    assert [a.response_status for a in delivery.attempt_log.all()] == [500]
