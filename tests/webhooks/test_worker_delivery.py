"""Delivery by real Celery workers on Redis to a real HTTP receiver (docs/events.md)."""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from jobcost.services import commitments as commitment_services
from tests.conftest import Api
from tests.factories import AccountFactory, CommitmentFactory, ProjectFactory, make_key
from tests.waiting import until
from webhooks.models import DeliveryStatus, Event, WebhookDelivery, WebhookEndpoint
from webhooks.tasks import sweep_due_deliveries

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def _setup(receiver, events=("*",)):
    account = AccountFactory()
    _, secret = make_key(account, "admin")
    api = Api(secret)
    created = api.post("/v1/webhooks", {"url": receiver.url, "events": list(events)})
    assert created.status_code == 201, created.content
    project = ProjectFactory(account=account)
    commitment = CommitmentFactory(project=project)
    return api, created.json(), commitment


def _wait_status(delivery_id: str, status: str, timeout: float = 30.0) -> WebhookDelivery:
    return until(
        lambda: WebhookDelivery.objects.filter(pk=delivery_id, status=status).first(),
        timeout=timeout,
        what=lambda: (
            f"{delivery_id} to be {status}, not "
            + WebhookDelivery.objects.get(pk=delivery_id).status
        ),
    )


def test_delivered_body_verifies_and_carries_the_change(receiver, workers):
    workers.start(slow_lane=False)
    api, endpoint, commitment = _setup(receiver, events=["commitment.executed"])
    executed = api.post(f"/v1/commitments/{commitment.pk}/execute", idem="exec-1")
    assert executed.status_code == 200
    [request] = receiver.wait_for(1)
    payload = Webhook(endpoint["secret"]).verify(request.body, request.headers)
    delivery = WebhookDelivery.objects.get()
    assert request.headers["webhook-id"] == delivery.pk
    assert payload["type"] == "commitment.executed"
    assert payload["object"] == "event"
    assert payload["data"]["object"]["id"] == commitment.pk
    assert payload["data"]["object"]["status"] == "executed"
    assert payload["data"]["previous_attributes"]["status"] == "draft"
    assert payload["request"] == {"id": executed["Request-Id"], "idempotency_key": "exec-1"}
    assert payload["api_version"] == endpoint["api_version"]
    assert _wait_status(delivery.pk, "succeeded").last_response_status == 200


def test_subscriptions_filter_what_each_endpoint_receives(receiver, workers):
    workers.start(slow_lane=False)
    api, _, commitment = _setup(receiver, events=["commitment.executed"])
    other = api.post("/v1/webhooks", {"url": receiver.url + "/other", "events": ["invoice.paid"]})
    api.post(f"/v1/commitments/{commitment.pk}/execute")
    [request] = receiver.wait_for(1)
    assert request.path == "/hooks"
    assert not WebhookDelivery.objects.filter(endpoint_id=other.json()["id"]).exists()
    assert Event.objects.filter(type="commitment.executed").count() == 1


def test_a_500_then_a_200_sends_the_same_webhook_id_twice(receiver, workers):
    receiver.statuses = [500, 200]
    workers.start()
    api, _, commitment = _setup(receiver, events=["commitment.executed"])
    api.post(f"/v1/commitments/{commitment.pk}/execute")
    receiver.wait_for(1)
    delivery = WebhookDelivery.objects.get()
    until(
        lambda: WebhookDelivery.objects.get(pk=delivery.pk).last_response_status == 500,
        timeout=10,
        what="the 500 recorded on the delivery",
    )
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING and delivery.attempts == 1
    # docs/events.md: the first retry is due 5 s after the failure; the beat sweep sends it.
    # Measured from the failure as the worker recorded it (the endpoint's `failing_since`),
    # not from this test's clock, which a loaded machine can hold back by seconds.
    failed_at = WebhookEndpoint.objects.get(pk=delivery.endpoint_id).failing_since
    due_after = (delivery.next_attempt_at - failed_at).total_seconds()
    assert 5 <= due_after < 5.1, due_after
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    assert sweep_due_deliveries() == 1
    first, second = receiver.wait_for(2)
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == delivery.pk
    assert first.body == second.body
    done = _wait_status(delivery.pk, "succeeded")
    assert done.attempts == 2
    assert [a.response_status for a in done.attempt_log.all()] == [500, 200]


def test_an_event_committed_while_no_worker_runs_is_delivered_when_one_starts(receiver, workers):
    api, _, commitment = _setup(receiver, events=["commitment.executed"])
    api.post(f"/v1/commitments/{commitment.pk}/execute")
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == DeliveryStatus.PENDING and receiver.requests == []
    workers.start(slow_lane=False)
    receiver.wait_for(1)
    assert _wait_status(delivery.pk, "succeeded").attempts == 1


def test_a_rolled_back_change_emits_nothing(receiver, workers):
    workers.start(slow_lane=False)
    api, _, commitment = _setup(receiver)
    # A service that fails after writing: executing without a cost code is refused (422)
    # after the row lock; and a change inside a transaction that rolls back.
    commitment.cost_code = None
    commitment.save()
    before = (Event.objects.count(), WebhookDelivery.objects.count())
    bad = api.post(f"/v1/commitments/{commitment.pk}/execute")
    assert bad.status_code == 422
    with pytest.raises(RuntimeError), transaction.atomic():
        commitment_services.commitment_update(
            commitment_id=commitment.pk, changes={"description": "rolled back"}
        )
        assert Event.objects.count() == before[0] + 1  # written inside the transaction
        raise RuntimeError("roll back")
    assert (Event.objects.count(), WebhookDelivery.objects.count()) == before
    receiver.wait_for(before[1])  # what the setup emitted, and nothing more:
    workers.wait_idle()  # every task queued so far has run
    assert len(receiver.requests) == before[1]


def test_deleting_an_endpoint_stops_its_deliveries_at_once(receiver, workers):
    api, endpoint, commitment = _setup(receiver, events=["commitment.executed"])
    api.post(f"/v1/commitments/{commitment.pk}/execute")
    delivery = WebhookDelivery.objects.get()
    deleted = api.delete(f"/v1/webhooks/{endpoint['id']}")
    assert deleted.json() == {"id": endpoint["id"], "object": "webhook_endpoint", "deleted": True}
    assert WebhookDelivery.objects.get(pk=delivery.pk).status == DeliveryStatus.CANCELLED
    workers.start(slow_lane=False)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    sweep_due_deliveries()
    workers.wait_idle()  # whatever the sweep queued has run
    assert receiver.requests == []
    assert WebhookDelivery.objects.get(pk=delivery.pk).status == DeliveryStatus.CANCELLED


def test_two_workers_sweeping_together_send_each_attempt_once(receiver, workers):
    api, _, _ = _setup(receiver, events=["project.created"])
    owner = api.post("/v1/owners", {"name": "Owner"}).json()
    for n in range(30):
        created = api.post(
            "/v1/projects",
            {
                "number": f"W-{n}",
                "name": f"W {n}",
                "owner": owner["id"],
                "contract_amount": 100,
            },
        )
        assert created.status_code == 201
    # 30 projects here and the one the setup made, each a project.created event.
    assert WebhookDelivery.objects.filter(status="pending").count() == 31
    # With the slow lane: on a loaded machine an answer can take the 2 s that moves the
    # endpoint there, and its next drain must find a worker (wait_idle counts that queue).
    workers.start(count=2)
    # Both workers run the tasks queued on commit, and two sweeps queue everything again.
    sweep_due_deliveries()
    sweep_due_deliveries()
    requests = receiver.wait_for(31)
    workers.wait_idle()  # a second send of any of them would have arrived by now
    ids = [r.headers["webhook-id"] for r in receiver.requests]
    assert len(ids) == len(set(ids)) == 31
    assert WebhookDelivery.objects.filter(status="succeeded", attempts=1).count() == 31
    assert {json.loads(r.body)["type"] for r in requests} == {"project.created"}
