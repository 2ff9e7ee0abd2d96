"""Who may manage webhooks and read events (docs/keys.md, "Who may call what"): every /v1/webhooks
route is the admin role's alone, and never a project-restricted key's (403 `role_forbidden`, checked
before the
body, writing nothing); events are read by every role, a restricted key seeing only its
projects' events."""

from __future__ import annotations

import pytest

from tests.conftest import error_of
from tests.factories import ProjectFactory
from tests.webhooks.support import PUBLIC_URL, make_endpoint, owe_delivery, webhook_state
from webhooks.models import WebhookDelivery

ROLES = ["admin", "manager", "member", "viewer", "agent"]


@pytest.fixture
def hooks(account):
    endpoint = make_endpoint(account, events=["project.created"])
    delivery = owe_delivery(endpoint)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status="failed")
    return endpoint, delivery


def _routes(endpoint, delivery):
    """(method, path, body) of every webhook route, with a body that would succeed."""
    we, wd = endpoint.pk, delivery.pk
    return [
        ("get", "/v1/webhooks", None),
        ("post", "/v1/webhooks", {"url": PUBLIC_URL, "events": ["*"]}),
        ("get", f"/v1/webhooks/{we}", None),
        ("patch", f"/v1/webhooks/{we}", {"description": "Renamed"}),
        ("delete", f"/v1/webhooks/{we}", None),
        ("post", f"/v1/webhooks/{we}/rotate-secret", {}),
        ("get", f"/v1/webhooks/{we}/audit", None),
        ("get", f"/v1/webhooks/{we}/deliveries", None),
        ("post", f"/v1/webhooks/{we}/deliveries/{wd}/retry", {}),
    ]


def _call(api, method, path, body):
    if method == "get":
        return api.get(path)
    if method == "delete":
        return api.delete(path)
    return getattr(api, method)(path, body)


def _refused_everywhere(api, hooks):
    before = webhook_state()
    for method, path, body in _routes(*hooks):
        response = _call(api, method, path, body)
        assert response.status_code == 403, (method, path, response.content)
        error = error_of(response)
        assert (error["type"], error["code"]) == ("forbidden", "role_forbidden"), path
    assert webhook_state() == before


@pytest.mark.parametrize("role", ["manager", "member", "viewer", "agent"])
def test_only_admin_keys_manage_webhooks(account, make_api, hooks, role):
    _refused_everywhere(make_api(account, role), hooks)


def test_a_project_restricted_admin_key_cannot_manage_webhooks(account, make_api, hooks):
    project = ProjectFactory(account=account)
    _refused_everywhere(make_api(account, "admin", projects=[project]), hooks)


def test_the_role_check_runs_before_the_body_is_read(account, make_api, hooks):
    viewer = make_api(account, "viewer")
    before = webhook_state()
    for body in ({"url": "http://10.0.0.5/"}, {"colour": "red"}, "not json"):
        refused = viewer.post("/v1/webhooks", body)
        assert (refused.status_code, error_of(refused)["code"]) == (403, "role_forbidden")
    assert webhook_state() == before


def test_an_admin_key_may_call_every_webhook_route(api, hooks):
    routes = sorted(_routes(*hooks), key=lambda route: route[0] == "delete")  # DELETE last
    statuses = [
        (method, _call(api, method, path, body).status_code) for method, path, body in routes
    ]
    assert statuses == [
        ("get", 200),
        ("post", 201),
        ("get", 200),
        ("patch", 200),
        ("post", 200),
        ("get", 200),
        ("get", 200),
        ("post", 200),
        ("delete", 200),
    ]


@pytest.mark.parametrize("role", ROLES)
def test_every_role_reads_events(account, make_api, role):
    ProjectFactory(account=account)
    reader = make_api(account, role)
    listed = reader.get("/v1/events")
    assert listed.status_code == 200
    [event] = listed.json()["data"]
    assert reader.get(f"/v1/events/{event['id']}").status_code == 200


def test_a_restricted_key_sees_only_its_projects_events(account, make_api):
    mine, hidden = ProjectFactory(account=account), ProjectFactory(account=account)
    restricted = make_api(account, "viewer", projects=[mine])
    listed = restricted.get("/v1/events").json()["data"]
    assert {e["project"] for e in listed} == {mine.pk}
    filtered = restricted.get("/v1/events", {"project": hidden.pk}).json()["data"]
    assert filtered == []
    hidden_event = make_api(account, "admin").get("/v1/events", {"project": hidden.pk})
    [event] = hidden_event.json()["data"]
    response = restricted.get(f"/v1/events/{event['id']}")
    assert (response.status_code, error_of(response)["code"]) == (404, "resource_missing")
