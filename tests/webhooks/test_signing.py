"""Standard Webhooks signatures (docs/events.md): what a real receiver gets verifies with the
`standardwebhooks` package; after a rotation both secrets sign for 24 h, then only the new."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from tests.conftest import Api
from tests.factories import AccountFactory, make_key
from tests.webhooks.support import make_due, make_endpoint, owe_delivery
from webhooks import signing
from webhooks.delivery import attempt
from webhooks.models import Event, WebhookEndpoint

pytestmark = pytest.mark.django_db


@pytest.fixture
def endpoint(receiver):
    return make_endpoint(AccountFactory(), url=receiver.url, events=["project.created"])


def _deliver(endpoint, receiver):
    """Owe the endpoint one delivery, send it, and return (delivery, the request received)."""
    delivery = owe_delivery(endpoint)
    count = len(receiver.requests)
    assert attempt(delivery.pk) == "succeeded"
    assert len(receiver.requests) == count + 1
    return delivery, receiver.requests[-1]


def test_the_standard_webhooks_test_vector():
    signature = signing.sign(
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "msg_p5jXN8AQM9LWM0D4loKWxJek",
        1614265330,
        b'{"test": 2432232314}',
    )
    assert signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_a_delivery_carries_the_three_headers_and_verifies(endpoint, receiver):
    before = int(time.time())
    delivery, request = _deliver(endpoint, receiver)
    headers = request.headers
    assert headers["webhook-id"] == delivery.pk
    assert before <= int(headers["webhook-timestamp"]) <= int(time.time())
    assert headers["content-type"] == "application/json"
    [signature] = headers["webhook-signature"].split(" ")
    assert signature == signing.sign(
        endpoint.secret, delivery.pk, int(headers["webhook-timestamp"]), request.body
    )
    payload = Webhook(endpoint.secret).verify(request.body, headers)
    event = Event.objects.get(pk=delivery.event_id)
    assert payload["id"] == event.pk and payload["type"] == "project.created"
    assert payload["api_version"] == endpoint.api_version
    assert json.loads(request.body) == payload


def test_a_wrong_secret_or_an_altered_body_does_not_verify(endpoint, receiver):
    _delivery, request = _deliver(endpoint, receiver)
    with pytest.raises(WebhookVerificationError):
        Webhook(signing.new_secret()).verify(request.body, request.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(endpoint.secret).verify(
            request.body.replace(b"project", b"pr0ject"), request.headers
        )


def test_after_a_rotation_both_secrets_sign_for_24_hours_then_only_the_new(receiver):
    account = AccountFactory()
    api = Api(make_key(account, "admin")[1])
    created = api.post("/v1/webhooks", {"url": receiver.url, "events": ["project.created"]})
    old = created.json()["secret"]
    new = api.post(f"/v1/webhooks/{created.json()['id']}/rotate-secret").json()["secret"]
    endpoint = WebhookEndpoint.objects.get(pk=created.json()["id"])

    _delivery, request = _deliver(endpoint, receiver)
    assert len(request.headers["webhook-signature"].split(" ")) == 2
    assert Webhook(old).verify(request.body, request.headers)["type"] == "project.created"
    assert Webhook(new).verify(request.body, request.headers)["type"] == "project.created"

    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        previous_secret_expires_at=timezone.now() - timedelta(seconds=1)
    )
    _delivery, request = _deliver(endpoint, receiver)
    assert len(request.headers["webhook-signature"].split(" ")) == 1
    assert Webhook(new).verify(request.body, request.headers)["type"] == "project.created"
    with pytest.raises(WebhookVerificationError):
        Webhook(old).verify(request.body, request.headers)


def test_a_retry_keeps_the_webhook_id_and_body_and_signs_again(endpoint, receiver):
    receiver.statuses = [500, 200]
    delivery = owe_delivery(endpoint)
    attempt(delivery.pk)
    make_due(delivery)
    attempt(delivery.pk)
    first, second = receiver.requests
    assert second.headers["webhook-id"] == first.headers["webhook-id"] == delivery.pk
    assert second.body == first.body
    for request in (first, second):
        assert Webhook(endpoint.secret).verify(request.body, request.headers)["id"]
