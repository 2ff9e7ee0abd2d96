"""The audit trail through the API (docs/resources.md, audit_entry): every create, update and
transition appends an entry naming the API key (id and role) and the request's `Request-Id`, with
the
before/after of each changed field in API representation; `GET /v1/<collection>/<id>/audit`
lists them oldest first, paginated."""

import pytest

from tests.factories import (
    CommitmentFactory,
    CostCodeFactory,
    OwnerFactory,
    ProjectFactory,
    VendorFactory,
)


@pytest.fixture
def job(account):
    project = ProjectFactory(account=account, status="bid", retainage_pct=10)
    cost_code = CostCodeFactory(project=project, scheduled_value=1_000_00)
    vendor = VendorFactory(account=account, trade="Concrete")
    return {
        "project": project,
        "cost_code": cost_code,
        "vendor": vendor,
        "commitment": CommitmentFactory(project=project, vendor=vendor, cost_code=cost_code),
    }


def _trail(api, collection, pk, **params):
    resp = api.get(f"/v1/{collection}/{pk}/audit", params)
    assert resp.status_code == 200, resp.content
    return resp.json()


def _last_entry(api, collection, pk):
    return _trail(api, collection, pk, limit=100)["data"][-1]


def _assert_stamped(entry, api, resp, action, target):
    assert entry["object"] == "audit_entry"
    assert entry["id"].startswith("aud_")
    assert (entry["target"], entry["action"]) == (target, action)
    assert entry["actor"] == {"type": "api_key", "id": api.key.pk, "role": api.key.role}
    assert entry["request_id"] == resp["Request-Id"]
    assert entry["request_id"].startswith("req_")


CREATES = {
    "owners": lambda j: ({"name": "Owner X", "email": "x@owner.test"}, "name", "Owner X"),
    "vendors": lambda j: ({"name": "Vendor X", "tax_id_last4": "0042"}, "tax_id_last4", "0042"),
    "projects": lambda j: (
        {
            "number": "A-1",
            "name": "Audited",
            "owner": j["project"].owner_id,
            "contract_amount": 12_345_67,
            "retainage_pct": 7.5,
        },
        "retainage_pct",
        7.5,
    ),
    "cost-codes": lambda j: (
        {
            "project": j["project"].pk,
            "code": "A-1",
            "name": "A",
            "cost_type": "labor",
            "scheduled_value": 2_500_00,
        },
        "scheduled_value",
        2_500_00,
    ),
    "commitments": lambda j: (
        {
            "project": j["project"].pk,
            "vendor": j["vendor"].pk,
            "type": "subcontract",
            "original_amount": 9_999_99,
        },
        "original_amount",
        9_999_99,
    ),
}


@pytest.mark.parametrize("collection", sorted(CREATES))
def test_create_writes_a_created_entry(make_api, account, job, collection):
    api = make_api(account, "member")
    payload, field, after = CREATES[collection](job)
    resp = api.post(f"/v1/{collection}", payload)
    assert resp.status_code == 201, resp.content
    entries = _trail(api, collection, resp.json()["id"])["data"]
    assert len(entries) == 1
    _assert_stamped(entries[0], api, resp, "created", resp.json()["id"])
    assert entries[0]["changes"][field] == {"before": None, "after": after}


def test_project_create_entry_uses_api_values(api, job):
    payload, _, _ = CREATES["projects"](job)
    resp = api.post("/v1/projects", payload)
    changes = _last_entry(api, "projects", resp.json()["id"])["changes"]
    assert changes["contract_amount"] == {"before": None, "after": 12_345_67}
    assert changes["owner"] == {"before": None, "after": job["project"].owner_id}
    assert changes["status"] == {"before": None, "after": "bid"}
    assert changes["currency"] == {"before": None, "after": "usd"}


def test_cost_code_create_also_audits_its_budget_line(api, job):
    payload = {
        "project": job["project"].pk,
        "code": "B-1",
        "name": "B",
        "cost_type": "other",
        "budget_amount": 4_200_00,
    }
    resp = api.post("/v1/cost-codes", payload)
    line_id = resp.json()["budget_line"]
    entry = _last_entry(api, "budgets", line_id)
    _assert_stamped(entry, api, resp, "created", line_id)
    assert entry["changes"]["original_amount"] == {"before": None, "after": 4_200_00}
    assert entry["changes"]["cost_code"] == {"before": None, "after": resp.json()["id"]}


UPDATES = {
    "owners": lambda j: (j["project"].owner_id, {"name": "Renamed"}, "name", None, "Renamed"),
    "vendors": lambda j: (j["vendor"].pk, {"trade": "Steel"}, "trade", "Concrete", "Steel"),
    "projects": lambda j: (j["project"].pk, {"retainage_pct": 12.5}, "retainage_pct", 10, 12.5),
    "cost-codes": lambda j: (
        j["cost_code"].pk,
        {"scheduled_value": 1_500_00},
        "scheduled_value",
        1_000_00,
        1_500_00,
    ),
    "budgets": lambda j: (
        j["cost_code"].budget_line.pk,
        {"cost_to_complete": 700_00},
        "cost_to_complete",
        None,
        700_00,
    ),
    "commitments": lambda j: (
        j["commitment"].pk,
        {"original_amount": 6_000_00},
        "original_amount",
        5_000_00,
        6_000_00,
    ),
}


@pytest.mark.parametrize("collection", sorted(UPDATES))
def test_update_writes_an_updated_entry_with_before_and_after(make_api, account, job, collection):
    api = make_api(account, "agent")
    pk, payload, field, before, after = UPDATES[collection](job)
    if before is None and collection == "owners":
        before = job["project"].owner.name
    resp = api.patch(f"/v1/{collection}/{pk}", payload)
    assert resp.status_code == 200, resp.content
    entry = _last_entry(api, collection, pk)
    _assert_stamped(entry, api, resp, "updated", pk)
    assert entry["changes"][field] == {"before": before, "after": after}
    assert "updated_at" not in entry["changes"]


def test_budget_estimate_reset_is_audited(api, job):
    line_id = job["cost_code"].budget_line.pk
    api.patch(f"/v1/budgets/{line_id}", {"cost_to_complete": 700_00})
    resp = api.patch(f"/v1/budgets/{line_id}", {"cost_to_complete": None})
    entry = _last_entry(api, "budgets", line_id)
    _assert_stamped(entry, api, resp, "updated", line_id)
    assert entry["changes"] == {"cost_to_complete": {"before": 700_00, "after": None}}


def test_project_status_move_is_audited(api, job):
    resp = api.patch(f"/v1/projects/{job['project'].pk}", {"status": "active"})
    entry = _last_entry(api, "projects", job["project"].pk)
    _assert_stamped(entry, api, resp, "updated", job["project"].pk)
    assert entry["changes"]["status"] == {"before": "bid", "after": "active"}


@pytest.mark.parametrize("steps", [["execute"], ["execute", "close"], ["void"]])
def test_commitment_transitions_are_audited(make_api, account, job, steps):
    api = make_api(account, "manager")
    pk = job["commitment"].pk
    status = "draft"
    for verb in steps:
        resp = api.post(f"/v1/commitments/{pk}/{verb}", {})
        assert resp.status_code == 200, resp.content
        entry = _last_entry(api, "commitments", pk)
        action, new_status, stamp = {
            "execute": ("executed", "executed", "executed_at"),
            "close": ("closed", "closed", "closed_at"),
            "void": ("voided", "void", "voided_at"),
        }[verb]
        _assert_stamped(entry, api, resp, action, pk)
        assert entry["changes"]["status"] == {"before": status, "after": new_status}
        assert entry["changes"][stamp] == {"before": None, "after": resp.json()[stamp]}
        status = new_status


@pytest.mark.parametrize(
    "collection", ["owners", "vendors", "projects", "cost-codes", "budgets", "commitments"]
)
def test_every_resource_has_an_audit_trail(api, job, collection):
    pk = {
        "owners": job["project"].owner_id,
        "vendors": job["vendor"].pk,
        "projects": job["project"].pk,
        "cost-codes": job["cost_code"].pk,
        "budgets": job["cost_code"].budget_line.pk,
        "commitments": job["commitment"].pk,
    }[collection]
    detail = api.get(f"/v1/{collection}/{pk}").json()
    assert detail["audit_trail"] == f"/v1/{collection}/{pk}/audit"
    trail = api.get(detail["audit_trail"]).json()
    assert trail["object"] == "list"
    assert [e["action"] for e in trail["data"]] == ["created"]
    assert trail["data"][0]["actor"] == {"type": "system", "id": None, "role": None}


def test_audit_trail_is_oldest_first_and_paginated(api, account):
    owner = OwnerFactory(account=account, name="v0")
    for n in range(1, 5):
        assert api.patch(f"/v1/owners/{owner.pk}", {"name": f"v{n}"}).status_code == 200
    first = _trail(api, "owners", owner.pk, limit=2)
    assert first["has_more"] is True
    assert first["next_cursor"].startswith("cur_")
    second = _trail(api, "owners", owner.pk, limit=2, cursor=first["next_cursor"])
    third = _trail(api, "owners", owner.pk, limit=2, cursor=second["next_cursor"])
    assert (third["has_more"], third["next_cursor"]) == (False, None)
    entries = first["data"] + second["data"] + third["data"]
    assert [e["action"] for e in entries] == ["created"] + ["updated"] * 4
    assert [e["changes"]["name"]["after"] for e in entries] == ["v0", "v1", "v2", "v3", "v4"]
    assert len({e["id"] for e in entries}) == 5
