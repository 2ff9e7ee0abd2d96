"""Events (docs/resources.md, event, §10): written from the audit trail in the change's
transaction, with the object as a GET shows it, `previous_attributes` on updates and the request
that made the
change (null for the system). GET /v1/events and /v1/events/{id}; kept 30 days."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from jobcost.services.projects import project_update
from tests.conftest import error_of
from tests.factories import AccountFactory, CommitmentFactory, OwnerFactory, ProjectFactory
from tests.webhooks.support import make_endpoint, owe_delivery
from webhooks.delivery import attempt
from webhooks.models import Event, WebhookAttempt, WebhookDelivery
from webhooks.tasks import purge_old_events

FIELDS = {"id", "object", "type", "api_version", "created_at", "project", "data", "request"}


def _project_body(account, number="J-100"):
    owner = OwnerFactory(account=account)
    return {"number": number, "name": "Library", "owner": owner.pk, "contract_amount": 1_000}


def test_an_api_change_is_an_event_with_the_object_and_its_request(api, account):
    created = api.post("/v1/projects", _project_body(account), idem="new-library")
    assert created.status_code == 201
    project = created.json()
    listed = api.get("/v1/events", {"type": "project.created"}).json()["data"]
    [event] = listed
    assert set(event) == FIELDS
    assert event["id"].startswith("evt_") and event["object"] == "event"
    assert (event["type"], event["project"]) == ("project.created", project["id"])
    assert event["api_version"] == api.key.api_version
    assert event["data"] == {"object": project, "previous_attributes": None}
    assert event["data"]["object"] == api.get(f"/v1/projects/{project['id']}").json()
    assert event["request"] == {"id": created["Request-Id"], "idempotency_key": "new-library"}
    assert api.get(f"/v1/events/{event['id']}").json() == event


def test_an_update_carries_the_previous_values_of_what_changed(api, account):
    project = api.post("/v1/projects", _project_body(account)).json()
    api.patch(f"/v1/projects/{project['id']}", {"status": "active"}, idem="go-active")
    renamed = api.patch(f"/v1/projects/{project['id']}", {"name": "Library wing"})
    events = api.get("/v1/events", {"type": "project.updated"}).json()["data"]
    assert [e["data"]["previous_attributes"] for e in events] == [
        {"name": "Library"},
        {"status": "bid"},
    ]
    assert [e["data"]["object"]["status"] for e in events] == ["active", "active"]
    assert events[0]["data"]["object"]["name"] == "Library wing"
    assert events[1]["request"]["idempotency_key"] == "go-active"
    assert events[0]["request"]["id"] == renamed["Request-Id"]


def test_a_change_made_by_the_system_has_no_request(api, account):
    project = ProjectFactory(account=account, status="bid")
    project_update(project_id=project.pk, changes={"status": "active"})
    [event] = api.get("/v1/events", {"type": "project.updated"}).json()["data"]
    assert event["request"] is None
    assert event["data"]["previous_attributes"] == {"status": "bid"}


def test_a_refused_request_emits_nothing(api, account):
    commitment = CommitmentFactory(project=ProjectFactory(account=account), cost_code=None)
    before = Event.objects.count()
    refused = api.post(f"/v1/commitments/{commitment.pk}/execute")
    assert refused.status_code == 422
    assert Event.objects.count() == before


def test_changes_outside_the_catalogue_emit_nothing(api, account):
    make_endpoint(account)
    api.post("/v1/owners", {"name": "City"})
    api.post("/v1/vendors", {"name": "Acme"})
    hook = api.post("/v1/webhooks", {"url": "https://hooks.example.com/x", "events": ["*"]}).json()
    api.post(f"/v1/webhooks/{hook['id']}/rotate-secret")
    assert not Event.objects.exists()


def test_list_filters_by_type_project_and_creation_time(api, account):
    first = ProjectFactory(account=account)
    second = ProjectFactory(account=account)
    CommitmentFactory(project=second)
    by_project = api.get("/v1/events", {"project": first.pk}).json()["data"]
    assert {(e["type"], e["project"]) for e in by_project} == {("project.created", first.pk)}
    created = api.get("/v1/events", {"type": "commitment.created"}).json()["data"]
    assert [e["project"] for e in created] == [second.pk]
    Event.objects.filter(project_id=first.pk).update(created_at=timezone.now() - timedelta(days=2))
    since = (timezone.now() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    recent = api.get("/v1/events", {"created[gte]": since}).json()["data"]
    assert recent and all(e["project"] == second.pk for e in recent)
    older = api.get("/v1/events", {"created[lt]": since}).json()["data"]
    assert {e["project"] for e in older} == {first.pk}


def test_list_is_newest_first_and_pages_with_a_cursor(api, account):
    for _ in range(3):
        ProjectFactory(account=account)
    page = api.get("/v1/events", {"type": "project.created", "limit": 2}).json()
    assert page["has_more"] is True and len(page["data"]) == 2
    rest = api.get(
        "/v1/events", {"type": "project.created", "limit": 2, "cursor": page["next_cursor"]}
    ).json()
    ids = [e["id"] for e in page["data"] + rest["data"]]
    expected = Event.objects.filter(type="project.created").order_by("-created_at", "-id")
    assert ids == [e.pk for e in expected]


@pytest.mark.parametrize(
    "params,code,param",
    [
        ({"colour": "red"}, "parameter_unknown", "colour"),
        ({"type": "lien_waiver.rejected"}, "parameter_invalid", "type"),
        ({"created[gte]": "yesterday"}, "parameter_invalid", "created[gte]"),
        ({"expand[]": "data.project"}, "expand_invalid", "expand[]"),
    ],
)
def test_list_refuses_unknown_or_bad_parameters(api, params, code, param):
    refused = api.get("/v1/events", params)
    assert refused.status_code == 400
    assert (error_of(refused)["code"], error_of(refused)["param"]) == (code, param)


def test_events_of_another_account_are_404_and_not_listed(api, account):
    mine = ProjectFactory(account=account)
    theirs = ProjectFactory(account=AccountFactory())
    listed = api.get("/v1/events").json()["data"]
    assert {e["project"] for e in listed} == {mine.pk}
    other = Event.objects.get(project_id=theirs.pk)
    for path in (f"/v1/events/{other.pk}", "/v1/events/evt_nope", f"/v1/events/{mine.pk}"):
        response = api.get(path)
        assert (response.status_code, error_of(response)["code"]) == (404, "resource_missing")


def test_events_older_than_30_days_are_purged_with_their_deliveries(db, receiver):
    account = AccountFactory()
    endpoint = make_endpoint(account, url=receiver.url, events=["project.created"])
    old, recent = owe_delivery(endpoint), owe_delivery(endpoint)
    attempt(old.pk)
    Event.objects.filter(pk=old.event_id).update(
        created_at=timezone.now() - timedelta(days=30, minutes=1)
    )
    Event.objects.filter(pk=recent.event_id).update(
        created_at=timezone.now() - timedelta(days=29, hours=23)
    )
    assert purge_old_events() == 1
    assert not Event.objects.filter(pk=old.event_id).exists()
    assert not WebhookDelivery.objects.filter(pk=old.pk).exists()
    assert not WebhookAttempt.objects.filter(delivery_id=old.pk).exists()
    assert Event.objects.filter(pk=recent.event_id).exists()
    assert WebhookDelivery.objects.filter(pk=recent.pk).exists()
    assert purge_old_events() == 0
