"""Webhook endpoints over the API (docs/resources.md, webhook_endpoint): create, list, retrieve,
PATCH, DELETE and rotate-secret; the full secret only in the create and rotate responses;
`api_version` pinned. URL rules are in test_urlguard.py, roles in test_webhook_roles.py."""

from __future__ import annotations

import base64
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from tests.conftest import error_of
from tests.factories import ProjectFactory
from tests.webhooks.support import PUBLIC_URL, VERSION, owe_delivery, webhook_state
from webhooks.models import WebhookDelivery, WebhookEndpoint

OLDER = "2026-06-01-preview"
FIELDS = {
    "id",
    "object",
    "url",
    "description",
    "events",
    "status",
    "disabled_reason",
    "api_version",
    "secret",
    "created_at",
    "updated_at",
    "audit_trail",
}
BODY = {"url": PUBLIC_URL, "events": ["invoice.paid", "commitment.executed"]}


def _create(api, **override):
    response = api.post("/v1/webhooks", {**BODY, **override})
    assert response.status_code == 201, response.content
    return response.json()


def _masked(secret: str) -> str:
    return "whsec_…" + secret[-4:]


def test_create_returns_the_endpoint_with_its_full_secret(api):
    created = _create(api, description="Accounting sync")
    assert set(created) == FIELDS
    assert re.fullmatch(r"we_[0-9A-Za-z]{24}", created["id"])
    assert created["object"] == "webhook_endpoint"
    assert (created["url"], created["description"]) == (PUBLIC_URL, "Accounting sync")
    assert created["events"] == ["commitment.executed", "invoice.paid"]
    assert (created["status"], created["disabled_reason"]) == ("enabled", "")
    assert created["api_version"] == VERSION
    assert created["audit_trail"] == f"/v1/webhooks/{created['id']}/audit"
    secret = created["secret"]
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"), validate=True)) == 32
    stored = WebhookEndpoint.objects.get(pk=created["id"])
    assert stored.secret == secret and stored.account_id == api.key.account_id
    [entry] = AuditEntry.objects.filter(target_id=created["id"])
    assert entry.action == "created"
    assert entry.changes["secret"]["after"] == _masked(secret)  # never in full on the trail


def test_list_and_retrieve_mask_the_secret(api):
    first, second = _create(api), _create(api, events=["*"])
    listed = api.get("/v1/webhooks").json()
    assert [e["id"] for e in listed["data"]] == [second["id"], first["id"]]
    assert [e["secret"] for e in listed["data"]] == [
        _masked(second["secret"]),
        _masked(first["secret"]),
    ]
    retrieved = api.get(f"/v1/webhooks/{first['id']}").json()
    assert retrieved == {**first, "secret": _masked(first["secret"])}


def test_list_filters_by_status(api):
    enabled, disabled = _create(api), _create(api)
    api.patch(f"/v1/webhooks/{disabled['id']}", {"status": "disabled"})
    for status, expected in (("enabled", enabled), ("disabled", disabled)):
        listed = api.get("/v1/webhooks", {"status": status}).json()["data"]
        assert [e["id"] for e in listed] == [expected["id"]]
    refused = api.get("/v1/webhooks", {"status": "paused"})
    assert (refused.status_code, error_of(refused)["param"]) == (400, "status")


def test_patch_changes_url_events_and_description(api):
    created = _create(api)
    body = {"url": "https://hooks.example.com/v2/hooks", "events": ["*"], "description": "All"}
    updated = api.patch(f"/v1/webhooks/{created['id']}", body)
    assert updated.status_code == 200
    data = updated.json()
    assert {k: data[k] for k in body} == body
    assert data["secret"] == _masked(created["secret"])
    assert data["updated_at"] >= created["updated_at"]
    entry = AuditEntry.objects.filter(target_id=created["id"], action="updated").get()
    assert entry.changes["url"] == {"before": PUBLIC_URL, "after": body["url"]}


@pytest.mark.parametrize(
    "body,param,code",
    [
        ({"api_version": VERSION}, "api_version", "parameter_read_only"),
        ({"secret": "whsec_x"}, "secret", "parameter_read_only"),
        ({"disabled_reason": "x"}, "disabled_reason", "parameter_read_only"),
        ({"events": []}, "events", "parameter_invalid"),
        ({"events": ["invoice.exploded"]}, "events", "parameter_invalid"),
        ({"events": ["lien_waiver.rejected"]}, "events", "parameter_invalid"),
        ({"status": "paused"}, "status", "parameter_invalid"),
        ({"colour": "red"}, "colour", "parameter_unknown"),
    ],
)
def test_patch_refuses_what_it_cannot_change(api, body, param, code):
    created = _create(api)
    before = webhook_state()
    refused = api.patch(f"/v1/webhooks/{created['id']}", body)
    assert refused.status_code == 400
    assert (error_of(refused)["code"], error_of(refused)["param"]) == (code, param)
    assert webhook_state() == before


@pytest.mark.parametrize(
    "body,param",
    [
        ({"url": PUBLIC_URL}, "events"),
        ({"events": ["*"]}, "url"),
    ],
)
def test_create_needs_url_and_events(api, body, param):
    refused = api.post("/v1/webhooks", body)
    assert refused.status_code == 400
    assert (error_of(refused)["code"], error_of(refused)["param"]) == ("parameter_missing", param)
    assert not WebhookEndpoint.objects.exists()


def test_create_refuses_unknown_event_types(api):
    refused = api.post("/v1/webhooks", {**BODY, "events": ["invoice.paid", "invoice.lost"]})
    assert refused.status_code == 400
    error = error_of(refused)
    assert (error["code"], error["param"]) == ("parameter_invalid", "events")
    assert "invoice.lost" in error["message"]
    assert not WebhookEndpoint.objects.exists()


def test_disabling_cancels_pending_deliveries_and_enabling_turns_it_back_on(api, receiver):
    created = _create(api, url=receiver.url, events=["project.created"])
    endpoint = WebhookEndpoint.objects.get(pk=created["id"])
    pending = owe_delivery(endpoint)
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(failing_since=timezone.now())
    disabled = api.patch(f"/v1/webhooks/{endpoint.pk}", {"status": "disabled"}).json()
    assert (disabled["status"], disabled["disabled_reason"]) == ("disabled", "manual")
    assert WebhookDelivery.objects.get(pk=pending.pk).status == "cancelled"
    assert not _owed_after_a_change(endpoint)  # a disabled endpoint is owed nothing new
    enabled = api.patch(f"/v1/webhooks/{endpoint.pk}", {"status": "enabled"}).json()
    assert (enabled["status"], enabled["disabled_reason"]) == ("enabled", "")
    endpoint.refresh_from_db()
    assert endpoint.failing_since is None
    actions = list(
        AuditEntry.objects.filter(target_id=endpoint.pk)
        .order_by("created_at")
        .values_list("action", flat=True)
    )
    assert actions[-2:] == ["disabled", "enabled"]
    assert WebhookDelivery.objects.get(pk=pending.pk).status == "cancelled"  # stays so
    assert _owed_after_a_change(endpoint)


def _owed_after_a_change(endpoint) -> bool:
    """Whether a new project in the endpoint's account owes it a delivery."""
    project = ProjectFactory(account=endpoint.account)
    return WebhookDelivery.objects.filter(endpoint=endpoint, event__object_id=project.pk).exists()


def test_delete_confirms_hides_the_endpoint_and_cancels_its_deliveries(api, receiver):
    created = _create(api, url=receiver.url, events=["project.created"])
    endpoint = WebhookEndpoint.objects.get(pk=created["id"])
    pending = owe_delivery(endpoint)
    deleted = api.delete(f"/v1/webhooks/{endpoint.pk}")
    assert deleted.status_code == 200
    assert deleted.json() == {"id": endpoint.pk, "object": "webhook_endpoint", "deleted": True}
    assert WebhookDelivery.objects.get(pk=pending.pk).status == "cancelled"
    assert api.get(f"/v1/webhooks/{endpoint.pk}").status_code == 404
    assert api.get("/v1/webhooks").json()["data"] == []
    again = api.delete(f"/v1/webhooks/{endpoint.pk}")
    assert (again.status_code, error_of(again)["code"]) == (404, "resource_missing")
    refused = api.patch(f"/v1/webhooks/{endpoint.pk}", {"status": "enabled"})
    assert refused.status_code == 404
    # Soft delete: the row and its history stay, disabled, and it is owed nothing new.
    endpoint.refresh_from_db()
    assert endpoint.deleted_at is not None and endpoint.status == "disabled"
    assert AuditEntry.objects.filter(target_id=endpoint.pk, action="deleted").count() == 1
    assert not _owed_after_a_change(endpoint)


def test_rotate_secret_shows_the_new_secret_once_and_keeps_the_old_for_24_hours(api):
    created = _create(api)
    before = timezone.now()
    rotated = api.post(f"/v1/webhooks/{created['id']}/rotate-secret")
    assert rotated.status_code == 200
    new = rotated.json()["secret"]
    assert new.startswith("whsec_") and new != created["secret"]
    assert api.get(f"/v1/webhooks/{created['id']}").json()["secret"] == _masked(new)
    endpoint = WebhookEndpoint.objects.get(pk=created["id"])
    assert (endpoint.secret, endpoint.previous_secret) == (new, created["secret"])
    expires = endpoint.previous_secret_expires_at
    assert before + timedelta(hours=24) <= expires <= timezone.now() + timedelta(hours=24)
    assert endpoint.signing_secrets() == [new, created["secret"]]
    assert endpoint.signing_secrets(now=expires) == [new]
    entry = AuditEntry.objects.filter(target_id=endpoint.pk, action="secret_rotated").get()
    assert entry.changes["secret"] == {
        "before": _masked(created["secret"]),
        "after": _masked(new),
    }


def test_a_replayed_create_answers_the_same_endpoint_once(api):
    first = api.post("/v1/webhooks", BODY, idem="hook-1")
    again = api.post("/v1/webhooks", BODY, idem="hook-1")
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert WebhookEndpoint.objects.count() == 1


def test_api_version_defaults_to_the_keys_pinned_version(settings, api):
    settings.JOBCOST_API_VERSIONS = [OLDER, VERSION]
    api.key.api_version = OLDER
    api.key.save()
    assert _create(api)["api_version"] == OLDER
    assert _create(api, api_version=VERSION)["api_version"] == VERSION


def test_an_unknown_api_version_is_refused(api):
    refused = api.post("/v1/webhooks", {**BODY, "api_version": "2020-01-01"})
    assert refused.status_code == 400
    error = error_of(refused)
    assert (error["code"], error["param"]) == ("api_version_unknown", "api_version")
    assert not WebhookEndpoint.objects.exists()


def test_create_refuses_a_status_or_secret_in_the_body(api):
    for field, value in (("status", "disabled"), ("secret", "whsec_mine")):
        refused = api.post("/v1/webhooks", {**BODY, field: value})
        assert (refused.status_code, error_of(refused)["param"]) == (400, field)
        assert error_of(refused)["code"] == "parameter_read_only"
    assert not WebhookEndpoint.objects.exists()


def test_ids_of_another_prefix_are_404(api):
    _create(api)
    for path in ("/v1/webhooks/prj_nope", "/v1/webhooks/evt_nope/deliveries"):
        response = api.get(path)
        assert (response.status_code, error_of(response)["param"]) == (404, "id")
