"""Where a webhook signing secret may be (docs/webhooks.md, "Managing endpoints"): in full only in
the endpoint's own row and in the create / rotate-secret response — and its replay, to the same
API key, within 24 h. Never in the stored idempotent response (nor the admin page that shows
it), the audit trail, events or logs."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from audit.models import AuditEntry
from jobcost.models import IdempotencyRecord
from tests.webhooks.support import PUBLIC_URL
from webhooks.models import Event, WebhookEndpoint

BODY = {"url": PUBLIC_URL, "events": ["*"]}
RECORDS = "/admin/jobcost/idempotencyrecord/"


@pytest.fixture
def web(db) -> Client:
    """A browser session signed in as a superuser."""
    user = get_user_model().objects.create_superuser(
        username="accountant", email="accountant@example.com", password=None
    )
    client = Client()
    client.force_login(user)
    return client


def _stored(key: str) -> IdempotencyRecord:
    return IdempotencyRecord.objects.get(key=key)


def _admin_pages(web, record: IdempotencyRecord) -> str:
    pages = [web.get(RECORDS), web.get(f"{RECORDS}{record.pk}/change/")]
    assert [p.status_code for p in pages] == [200, 200]
    return "".join(p.content.decode() for p in pages)


def test_a_created_secret_is_withheld_from_the_store_and_the_admin_but_replayed(api, web):
    first = api.post("/v1/webhooks", BODY, idem="create-1")
    assert first.status_code == 201
    secret = first.json()["secret"]
    record = _stored("create-1")
    assert secret not in record.response_body
    assert secret[6:] not in record.response_body  # not even the base64 part
    stored = json.loads(record.response_body)
    assert stored["secret"].startswith(f"withheld:whsec_…{secret[-4:]}:")
    assert secret[6:20] not in _admin_pages(web, record)
    again = api.post("/v1/webhooks", BODY, idem="create-1")
    assert again["Idempotent-Replayed"] == "true"
    assert (again.status_code, again.content) == (201, first.content)
    assert WebhookEndpoint.objects.count() == 1


def test_a_rotated_secret_is_withheld_from_the_store_and_the_admin_but_replayed(api, web):
    endpoint_id = api.post("/v1/webhooks", BODY).json()["id"]
    path = f"/v1/webhooks/{endpoint_id}/rotate-secret"
    first = api.post(path, idem="rotate-1")
    secret = first.json()["secret"]
    record = _stored("rotate-1")
    assert secret[6:] not in record.response_body
    assert secret[6:20] not in _admin_pages(web, record)
    again = api.post(path, idem="rotate-1")
    assert again["Idempotent-Replayed"] == "true"
    assert (again.status_code, again.content) == (200, first.content)
    assert WebhookEndpoint.objects.get(pk=endpoint_id).secret == secret  # not rotated twice


def test_a_replay_returns_the_secret_only_while_it_still_signs(api):
    created = api.post("/v1/webhooks", BODY, idem="c")
    path = f"/v1/webhooks/{created.json()['id']}/rotate-secret"
    rotated = api.post(path, idem="r1")
    api.post(path, idem="r2")  # a second rotation: the created secret stops signing at once
    # The first rotation's secret still signs beside the newest (24 h): replayed in full.
    assert api.post(path, idem="r1").content == rotated.content
    # The created secret signs no more: replayed masked, the rest of the body unchanged.
    replayed = api.post("/v1/webhooks", BODY, idem="c")
    assert replayed["Idempotent-Replayed"] == "true"
    secret = created.json()["secret"]
    assert replayed.json() == {**created.json(), "secret": "whsec_…" + secret[-4:]}
    # And once the overlap is over, the first rotation's secret is masked too.
    WebhookEndpoint.objects.filter(pk=created.json()["id"]).update(
        previous_secret_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert api.post(path, idem="r1").json()["secret"] == "whsec_…" + rotated.json()["secret"][-4:]


def test_no_trail_event_log_or_stored_response_carries_a_full_secret(api, caplog):
    caplog.set_level(logging.DEBUG)
    created = api.post("/v1/webhooks", BODY).json()
    path = f"/v1/webhooks/{created['id']}/rotate-secret"
    secrets = [created["secret"]] + [api.post(path).json()["secret"] for _ in range(2)]
    api.patch(f"/v1/webhooks/{created['id']}", {"description": "x"})
    trail = api.get(f"/v1/webhooks/{created['id']}/audit")
    assert trail.status_code == 200
    stored = [
        *AuditEntry.objects.values(),
        *Event.objects.values(),
        *IdempotencyRecord.objects.values(),
    ]
    assert len(stored) >= 4 + 4
    haystack = json.dumps(stored, default=str) + trail.content.decode() + caplog.text
    for secret in secrets:
        assert secret[6:] not in haystack
    assert "whsec_…" + secrets[-1][-4:] in trail.content.decode()
