"""Webhook endpoints, events and deliveries in the back office: view-only pages with masked
secrets, filters and search, deliveries with their attempts, and the two actions (enable /
disable an endpoint, re-send a delivery) going through the services with the user as actor."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from audit.models import AuditEntry
from jobcost.services.commitments import commitment_execute
from tests.factories import AccountFactory, CommitmentFactory, ProjectFactory
from tests.jobcost.admin.pages import act_on_list, admin_url, messages_of, readonly, text
from webhooks import delivery as delivery_module
from webhooks import services
from webhooks.models import Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint

ENDPOINTS = "/admin/webhooks/webhookendpoint/"
EVENTS = "/admin/webhooks/event/"
DELIVERIES = "/admin/webhooks/webhookdelivery/"
VERSION = "2026-11-20-preview"


@pytest.fixture
def web(db) -> Client:
    """A browser session signed in as the superuser `accountant`."""
    user = get_user_model().objects.create_superuser(
        username="accountant", email="accountant@example.com", password=None
    )
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def hooks(db, receiver):
    """Two endpoints of one account (all events, and executions only) and one executed
    commitment: its `commitment.executed` event owes one pending delivery to each."""
    account = AccountFactory(name="Harbor Build Co")
    commitment = CommitmentFactory(project=ProjectFactory(account=account, number="J-2401"))
    everything = services.endpoint_create(
        account_id=account.pk, url=receiver.url, events=["*"], api_version=VERSION
    )
    executions = services.endpoint_create(
        account_id=account.pk,
        url=receiver.url + "/executions",
        events=["commitment.executed"],
        api_version=VERSION,
        description="Executions only",
    )
    commitment_execute(commitment_id=commitment.pk)
    event = Event.objects.get(type="commitment.executed")
    return SimpleNamespace(
        account=account,
        commitment=commitment,
        everything=everything,
        executions=executions,
        event=event,
        to_everything=WebhookDelivery.objects.get(event=event, endpoint=everything),
        to_executions=WebhookDelivery.objects.get(event=event, endpoint=executions),
    )


def _fail_for_good(delivery: WebhookDelivery, receiver) -> WebhookDelivery:
    """Eight real attempts while the receiver answers 500, each made due at once (as if its
    retry delay had passed): the delivery ends `failed`. The receiver answers 200 again
    afterwards."""
    receiver.statuses = [500]
    for _ in range(delivery_module.MAX_ATTEMPTS):
        WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        delivery_module.attempt(delivery.pk)
    receiver.statuses = [200]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("failed", 8)
    return delivery


def _act(web, changelist: str, action: str, *objects):
    """The action through its confirmation page (where it is the user's to run)."""
    return act_on_list(web, changelist, action, objects)


def label(obj) -> str:
    """How the action messages name an endpoint or a delivery."""
    if isinstance(obj, WebhookEndpoint):
        return f"Endpoint {obj.url}"
    return f"Delivery {obj.pk} ({obj.event.type} → {obj.endpoint.url})"


def _audit_count(obj) -> int:
    return AuditEntry.objects.filter(target_id=obj.pk).count()


def test_pages_load_and_never_show_a_secret(web, hooks):
    services.endpoint_rotate_secret(endpoint_id=hooks.everything.pk)
    everything = WebhookEndpoint.objects.get(pk=hooks.everything.pk)
    secrets = {everything.secret, everything.previous_secret, hooks.executions.secret}

    pages = {
        "endpoints": web.get(ENDPOINTS),
        "endpoint": web.get(admin_url(everything)),
        "events": web.get(EVENTS),
        "event": web.get(admin_url(hooks.event)),
        "deliveries": web.get(DELIVERIES),
        "delivery": web.get(admin_url(hooks.to_everything)),
        "audit": web.get("/admin/audit/auditentry/", {"q": everything.pk}),
    }

    for name, response in pages.items():
        assert response.status_code == 200, name
        page = text(response)
        assert not any(secret in page for secret in secrets), name
        assert not any(secret[6:] in page for secret in secrets), name
    listed = text(pages["endpoints"])
    assert f"whsec_…{everything.secret[-4:]}" in listed
    assert f"whsec_…{hooks.executions.secret[-4:]}" in listed
    assert readonly(pages["endpoint"], "secret_masked") == f"whsec_…{everything.secret[-4:]}"
    assert readonly(pages["endpoint"], "previous_secret_display") == (
        f"whsec_…{everything.previous_secret[-4:]}"
    )
    assert readonly(pages["event"], "type") == "commitment.executed"
    assert readonly(pages["event"], "object_id") == hooks.commitment.pk
    assert hooks.to_executions.pk in text(pages["event"])  # the deliveries inline
    assert readonly(pages["delivery"], "status") == "Pending"
    assert readonly(pages["delivery"], "event_type") == "commitment.executed"


def test_the_audit_trail_keeps_secrets_masked(web, hooks):
    services.endpoint_rotate_secret(endpoint_id=hooks.everything.pk)
    everything = WebhookEndpoint.objects.get(pk=hooks.everything.pk)

    created = AuditEntry.objects.get(target_id=everything.pk, action="created")
    rotated = AuditEntry.objects.get(target_id=everything.pk, action="secret_rotated")

    assert created.changes["secret"] == {
        "before": None,
        "after": f"whsec_…{everything.previous_secret[-4:]}",
    }
    assert rotated.changes["secret"] == {
        "before": f"whsec_…{everything.previous_secret[-4:]}",
        "after": f"whsec_…{everything.secret[-4:]}",
    }
    assert rotated.changes["previous_secret"]["after"] == (
        f"whsec_…{everything.previous_secret[-4:]}"
    )
    page = text(web.get(admin_url(rotated)))
    assert everything.secret not in page and everything.previous_secret not in page


def test_nothing_is_added_or_edited_by_hand(web, hooks):
    for changelist in (ENDPOINTS, EVENTS, DELIVERIES):
        assert web.get(changelist + "add/").status_code == 403
    url_before = hooks.everything.url

    response = web.post(admin_url(hooks.everything), {"url": "http://127.0.0.1:9/elsewhere"})

    assert response.status_code == 403
    hooks.everything.refresh_from_db()
    assert hooks.everything.url == url_before


def test_a_delivery_shows_its_attempts(web, hooks, receiver):
    receiver.statuses = [500, 200]
    delivery_module.attempt(hooks.to_everything.pk)
    WebhookDelivery.objects.filter(pk=hooks.to_everything.pk).update(next_attempt_at=timezone.now())
    delivery_module.attempt(hooks.to_everything.pk)

    page = web.get(admin_url(hooks.to_everything))

    assert readonly(page, "status") == "Succeeded"
    assert readonly(page, "attempts") == "2"
    rows = text(page)
    assert "attempt_log-0" in rows and "attempt_log-1" in rows and "attempt_log-2" not in rows
    assert [(a.number, a.response_status, a.succeeded) for a in WebhookAttempt.objects.all()] == [
        (1, 500, False),
        (2, 200, True),
    ]


def test_search_and_filters(web, hooks, receiver):
    other = services.endpoint_create(
        account_id=AccountFactory().pk,
        url="http://127.0.0.1:9/other-account",
        events=["*"],
        api_version=VERSION,
    )
    _fail_for_good(hooks.to_executions, receiver)

    def listed(path, **params) -> set[str]:
        """The IDs of the rows the list page links to."""
        response = web.get(path, params)
        assert response.status_code == 200
        page = response.content.decode()
        model = {DELIVERIES: WebhookDelivery, ENDPOINTS: WebhookEndpoint, EVENTS: Event}[path]
        return {obj.pk for obj in model.objects.all() if f'href="{admin_url(obj)}' in page}

    executed = {hooks.to_everything.pk, hooks.to_executions.pk}
    assert listed(DELIVERIES, q="/executions") == {hooks.to_executions.pk}
    assert listed(DELIVERIES, q="commitment.executed") == executed
    assert listed(DELIVERIES, q=hooks.commitment.pk) == executed
    assert listed(DELIVERIES, status__exact="failed") == {hooks.to_executions.pk}
    assert listed(DELIVERIES, event_type="commitment.created") == set()
    assert listed(DELIVERIES, endpoint__id__exact=hooks.executions.pk) == {hooks.to_executions.pk}
    assert listed(DELIVERIES, account__id__exact=other.account_id) == set()

    assert listed(ENDPOINTS, q="other-account") == {other.pk}
    assert listed(ENDPOINTS, account__id__exact=hooks.account.pk) == {
        hooks.everything.pk,
        hooks.executions.pk,
    }
    assert listed(EVENTS, type="commitment.executed") == {hooks.event.pk}
    of_commitment = set(
        Event.objects.filter(object_id=hooks.commitment.pk).values_list("pk", flat=True)
    )
    assert len(of_commitment) == 2  # created, executed
    assert listed(EVENTS, q=hooks.commitment.pk) == of_commitment
    assert listed(EVENTS, type="invoice.paid") == set()


def test_resend_moves_a_failed_delivery_back_to_pending(web, hooks, receiver):
    failed = _fail_for_good(hooks.to_everything, receiver)

    response = _act(web, DELIVERIES, "resend", failed)

    assert ("success", f"{label(failed)}: queued again (pending).") in messages_of(response)
    failed.refresh_from_db()
    assert (failed.status, failed.attempts) == ("pending", 0)
    assert failed.next_attempt_at <= timezone.now()
    assert WebhookAttempt.objects.filter(delivery=failed).count() == 8  # history kept
    assert delivery_module.attempt(failed.pk) == "succeeded"  # the receiver now answers 200


def test_resend_refuses_a_pending_delivery_and_changes_nothing(web, hooks):
    pending = hooks.to_everything
    before = WebhookDelivery.objects.filter(pk=pending.pk).values().get()

    response = _act(web, DELIVERIES, "resend", pending)

    assert (
        "error",
        f"{label(pending)}: Only failed or cancelled deliveries can be re-sent; "
        "this one is pending.",
    ) in messages_of(response)
    assert WebhookDelivery.objects.filter(pk=pending.pk).values().get() == before


def test_resend_reports_each_delivery(web, hooks, receiver):
    failed = _fail_for_good(hooks.to_executions, receiver)

    response = _act(web, DELIVERIES, "resend", failed, hooks.to_everything)

    shown = messages_of(response)
    assert ("success", f"{label(failed)}: queued again (pending).") in shown
    assert (
        "error",
        f"{label(hooks.to_everything)}: Only failed or cancelled deliveries can be re-sent; "
        "this one is pending.",
    ) in shown
    failed.refresh_from_db()
    assert failed.status == "pending"


def test_disable_cancels_pending_deliveries_and_is_audited(web, hooks):
    audit_before = _audit_count(hooks.everything)

    response = _act(web, ENDPOINTS, "disable", hooks.everything)

    assert (
        "success",
        f"{label(hooks.everything)}: disabled; its pending deliveries are cancelled.",
    ) in messages_of(response)
    hooks.everything.refresh_from_db()
    assert (hooks.everything.status, hooks.everything.disabled_reason) == ("disabled", "manual")
    hooks.to_everything.refresh_from_db()
    assert (hooks.to_everything.status, hooks.to_everything.next_attempt_at) == ("cancelled", None)
    hooks.to_executions.refresh_from_db()
    assert hooks.to_executions.status == "pending"  # the other endpoint's delivery
    assert _audit_count(hooks.everything) == audit_before + 1
    entry = AuditEntry.objects.filter(target_id=hooks.everything.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("disabled", "user", "accountant")
    assert entry.changes["status"] == {"before": "enabled", "after": "disabled"}


def test_enable_turns_a_disabled_endpoint_back_on_and_is_audited(web, hooks):
    _act(web, ENDPOINTS, "disable", hooks.everything)

    response = _act(web, ENDPOINTS, "enable", hooks.everything)

    assert ("success", f"{label(hooks.everything)}: enabled.") in messages_of(response)
    hooks.everything.refresh_from_db()
    assert (hooks.everything.status, hooks.everything.disabled_reason) == ("enabled", "")
    entry = AuditEntry.objects.filter(target_id=hooks.everything.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("enabled", "user", "accountant")
    # The cancelled delivery can now be re-sent.
    resent = _act(web, DELIVERIES, "resend", hooks.to_everything)
    assert ("success", f"{label(hooks.to_everything)}: queued again (pending).") in messages_of(
        resent
    )


def test_resend_refuses_while_the_endpoint_is_disabled(web, hooks):
    _act(web, ENDPOINTS, "disable", hooks.everything)
    before = WebhookDelivery.objects.filter(pk=hooks.to_everything.pk).values().get()

    response = _act(web, DELIVERIES, "resend", hooks.to_everything)

    assert (
        "error",
        f"{label(hooks.to_everything)}: Enable the endpoint before re-sending its deliveries.",
    ) in messages_of(response)
    assert WebhookDelivery.objects.filter(pk=hooks.to_everything.pk).values().get() == before


def test_a_deleted_endpoint_is_not_enabled_again(web, hooks):
    services.endpoint_delete(endpoint_id=hooks.executions.pk)
    audit_before = _audit_count(hooks.executions)

    response = _act(web, ENDPOINTS, "enable", hooks.executions)

    assert (
        "error",
        f"{label(hooks.executions)}: This endpoint was deleted; create a new one.",
    ) in messages_of(response)
    hooks.executions.refresh_from_db()
    assert (hooks.executions.status, hooks.executions.disabled_reason) == ("disabled", "deleted")
    assert _audit_count(hooks.executions) == audit_before


def _queries(web, path) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert web.get(path).status_code == 200
    return len(captured)


def test_list_pages_cost_the_same_queries_whatever_the_rows(web, hooks):
    lists = (ENDPOINTS, EVENTS, DELIVERIES)
    before = {path: _queries(web, path) for path in lists}
    for _ in range(3):
        account = AccountFactory()
        services.endpoint_create(
            account_id=account.pk, url="http://127.0.0.1:9/more", events=["*"], api_version=VERSION
        )
        CommitmentFactory(project=ProjectFactory(account=account), executed=True)
    assert WebhookDelivery.objects.count() > 10
    after = {path: _queries(web, path) for path in lists}
    assert after == before
