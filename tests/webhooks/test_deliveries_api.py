"""An endpoint's deliveries over the API (docs/resources.md, webhook delivery): GET
/v1/webhooks/{id}/deliveries lists them with every attempt; POST
/v1/webhooks/{id}/deliveries/{wd}/retry re-sends a failed or cancelled one."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.conftest import error_of
from tests.webhooks.support import (
    fail_completely,
    make_due,
    make_endpoint,
    owe_delivery,
    webhook_state,
)
from webhooks.delivery import attempt
from webhooks.models import WebhookDelivery, WebhookEndpoint

FIELDS = {
    "id",
    "object",
    "endpoint",
    "event",
    "event_type",
    "status",
    "attempts",
    "next_attempt_at",
    "last_response_status",
    "last_error",
    "attempt_log",
    "created_at",
    "updated_at",
}


@pytest.fixture
def endpoint(api, receiver):
    return make_endpoint(api.key.account, url=receiver.url, events=["project.created"])


def _deliveries(api, endpoint, **params):
    response = api.get(f"/v1/webhooks/{endpoint.pk}/deliveries", params)
    assert response.status_code == 200, response.content
    return response.json()


def test_deliveries_are_listed_newest_first_with_every_attempt(api, endpoint, receiver):
    receiver.statuses = [500, 200]
    first, second = owe_delivery(endpoint), owe_delivery(endpoint)
    attempt(first.pk)
    make_due(first)
    attempt(first.pk)
    page = _deliveries(api, endpoint)
    assert page["url"] == f"/v1/webhooks/{endpoint.pk}/deliveries"
    assert [d["id"] for d in page["data"]] == [second.pk, first.pk]
    pending, done = page["data"]
    assert set(done) == FIELDS
    assert (done["object"], done["endpoint"], done["event"]) == (
        "webhook_delivery",
        endpoint.pk,
        first.event_id,
    )
    assert (done["event_type"], done["status"], done["attempts"]) == (
        "project.created",
        "succeeded",
        2,
    )
    assert (done["last_response_status"], done["next_attempt_at"]) == (200, None)
    assert [
        (a["number"], a["response_status"], a["succeeded"], a["error"]) for a in done["attempt_log"]
    ] == [(1, 500, False, ""), (2, 200, True, "")]
    assert all(a["duration_ms"] >= 0 and a["started_at"].endswith("Z") for a in done["attempt_log"])
    assert (pending["status"], pending["attempts"], pending["attempt_log"]) == ("pending", 0, [])


def test_the_list_pages_and_costs_a_bounded_number_of_queries(
    api, endpoint, receiver, django_assert_max_num_queries
):
    for _ in range(6):
        attempt(owe_delivery(endpoint).pk)
    # The key, its projects, the endpoint, the page of deliveries with their events, and
    # their attempts: however many deliveries the page holds.
    with django_assert_max_num_queries(5):
        page = _deliveries(api, endpoint, limit=4)
    assert len(page["data"]) == 4 and page["has_more"] is True
    rest = _deliveries(api, endpoint, limit=4, cursor=page["next_cursor"])
    assert len(rest["data"]) == 2 and rest["has_more"] is False


def test_a_failed_delivery_is_resent_for_a_new_series_of_attempts(api, endpoint, receiver):
    receiver.statuses = [500] * 8 + [200]
    delivery = fail_completely(owe_delivery(endpoint))
    before = timezone.now()
    resent = api.post(f"/v1/webhooks/{endpoint.pk}/deliveries/{delivery.pk}/retry")
    assert resent.status_code == 200, resent.content
    body = resent.json()
    assert (body["id"], body["status"], body["attempts"]) == (delivery.pk, "pending", 0)
    assert len(body["attempt_log"]) == 8  # the history stays
    delivery.refresh_from_db()
    assert before <= delivery.next_attempt_at <= timezone.now()
    assert attempt(delivery.pk) == "succeeded"
    delivery.refresh_from_db()
    assert delivery.attempts == 1
    assert [a.number for a in delivery.attempt_log.all()] == list(range(1, 10))
    assert len(receiver.requests) == 9


def test_a_cancelled_delivery_can_be_resent_once_the_endpoint_is_enabled(api, endpoint):
    delivery = owe_delivery(endpoint)
    api.patch(f"/v1/webhooks/{endpoint.pk}", {"status": "disabled"})
    path = f"/v1/webhooks/{endpoint.pk}/deliveries/{delivery.pk}/retry"
    refused = api.post(path)
    assert (refused.status_code, error_of(refused)["code"]) == (409, "invalid_state_transition")
    assert WebhookDelivery.objects.get(pk=delivery.pk).status == "cancelled"
    api.patch(f"/v1/webhooks/{endpoint.pk}", {"status": "enabled"})
    assert api.post(path).json()["status"] == "pending"


@pytest.mark.parametrize("state", ["pending", "succeeded"])
def test_only_failed_or_cancelled_deliveries_can_be_resent(api, endpoint, receiver, state):
    delivery = owe_delivery(endpoint)
    if state == "succeeded":
        attempt(delivery.pk)
    before = webhook_state()
    refused = api.post(f"/v1/webhooks/{endpoint.pk}/deliveries/{delivery.pk}/retry")
    assert refused.status_code == 409
    error = error_of(refused)
    assert (error["code"], error["object"]) == ("invalid_state_transition", delivery.pk)
    assert state in error["message"]
    assert webhook_state() == before


def test_resending_a_delivery_of_another_endpoint_is_404(api, endpoint, receiver):
    other = make_endpoint(api.key.account, url=receiver.url, events=["project.created"])
    delivery = owe_delivery(other)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status="failed")
    before = webhook_state()
    for delivery_id in (delivery.pk, "wd_nope", endpoint.pk):
        refused = api.post(f"/v1/webhooks/{endpoint.pk}/deliveries/{delivery_id}/retry")
        assert refused.status_code == 404
        assert (error_of(refused)["code"], error_of(refused)["param"]) == (
            "resource_missing",
            "delivery_id",
        )
    assert webhook_state() == before


def test_a_deleted_endpoint_has_no_deliveries_route(api, endpoint):
    owe_delivery(endpoint)
    api.delete(f"/v1/webhooks/{endpoint.pk}")
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).deleted_at is not None
    response = api.get(f"/v1/webhooks/{endpoint.pk}/deliveries")
    assert (response.status_code, error_of(response)["code"]) == (404, "resource_missing")
