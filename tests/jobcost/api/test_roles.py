"""Roles (docs/keys.md, "Who may call what"): viewer reads only; member and agent create and update;
only manager and admin execute, close or void (agent: `agent_cannot_approve`). The role check runs
before the
body is read, so a refused call writes nothing and reveals nothing about the object's state.
Project-restricted keys are in test_restricted_keys.py."""

import pytest

from jobcost.models import BudgetLine, Commitment
from tests.conftest import error_of
from tests.factories import CommitmentFactory, CostCodeFactory, ProjectFactory, VendorFactory
from tests.jobcost.api.state import db_state


@pytest.fixture
def job(account):
    project = ProjectFactory(account=account, status="bid")
    cost_code = CostCodeFactory(project=project)
    vendor = VendorFactory(account=account)
    common = {"project": project, "vendor": vendor, "cost_code": cost_code}
    return {
        "project": project,
        "cost_code": cost_code,
        "budget": BudgetLine.objects.get(cost_code=cost_code),
        "vendor": vendor,
        "draft": CommitmentFactory(**common),
        "executed": CommitmentFactory(**common, executed=True),
    }


# name → job → (method, path, a valid body, expected success status)
WRITES = {
    "owner_create": lambda j: ("post", "/v1/owners", {"name": "O"}, 201),
    "owner_update": lambda j: ("patch", f"/v1/owners/{j['project'].owner_id}", {"name": "O2"}, 200),
    "vendor_create": lambda j: ("post", "/v1/vendors", {"name": "V"}, 201),
    "vendor_update": lambda j: ("patch", f"/v1/vendors/{j['vendor'].pk}", {"trade": "Glass"}, 200),
    "project_create": lambda j: (
        "post",
        "/v1/projects",
        {"number": "R-1", "name": "R", "owner": j["project"].owner_id, "contract_amount": 1},
        201,
    ),
    "project_update": lambda j: ("patch", f"/v1/projects/{j['project'].pk}", {"name": "P"}, 200),
    "cost_code_create": lambda j: (
        "post",
        "/v1/cost-codes",
        {"project": j["project"].pk, "code": "R-9", "name": "R", "cost_type": "other"},
        201,
    ),
    "cost_code_update": lambda j: (
        "patch",
        f"/v1/cost-codes/{j['cost_code'].pk}",
        {"name": "Renamed"},
        200,
    ),
    "budget_update": lambda j: (
        "patch",
        f"/v1/budgets/{j['budget'].pk}",
        {"original_amount": 5_00, "cost_to_complete": 3_00},
        200,
    ),
    "commitment_create": lambda j: (
        "post",
        "/v1/commitments",
        {
            "project": j["project"].pk,
            "vendor": j["vendor"].pk,
            "type": "purchase_order",
            "original_amount": 1_00,
        },
        201,
    ),
    "commitment_update": lambda j: (
        "patch",
        f"/v1/commitments/{j['draft'].pk}",
        {"original_amount": 9_00},
        200,
    ),
}
APPROVALS = {
    "commitment_execute": lambda j: ("post", f"/v1/commitments/{j['draft'].pk}/execute", {}, 200),
    "commitment_void": lambda j: ("post", f"/v1/commitments/{j['draft'].pk}/void", {}, 200),
    "commitment_close": lambda j: ("post", f"/v1/commitments/{j['executed'].pk}/close", {}, 200),
}
EVERY_WRITE = {**WRITES, **APPROVALS}


def _call(api, method, path, payload, **kwargs):
    return getattr(api, method)(path, payload, **kwargs)


def _assert_forbidden(resp, code):
    assert resp.status_code == 403, resp.content
    error = error_of(resp)
    assert (error["type"], error["code"]) == ("forbidden", code)


@pytest.mark.parametrize("name", sorted(EVERY_WRITE))
def test_viewer_cannot_write(make_api, account, job, name):
    viewer = make_api(account, "viewer")
    method, path, payload, _ = EVERY_WRITE[name](job)
    before = db_state()
    _assert_forbidden(_call(viewer, method, path, payload), "role_forbidden")
    assert db_state() == before


@pytest.mark.parametrize("name", sorted(EVERY_WRITE))
def test_role_is_checked_before_the_body(make_api, account, job, name):
    """A viewer sending an unknown field, a wrong type, or malformed JSON still gets 403."""
    viewer = make_api(account, "viewer")
    method, path, _, _ = EVERY_WRITE[name](job)
    before = db_state()
    _assert_forbidden(
        _call(viewer, method, path, {"original_amount": "lots", "x": 1}), "role_forbidden"
    )
    _assert_forbidden(_call(viewer, method, path, "{not json"), "role_forbidden")
    _assert_forbidden(_call(viewer, method, path, {}, idem=None), "role_forbidden")
    assert db_state() == before


def test_viewer_reads(make_api, account, job):
    viewer = make_api(account, "viewer")
    for path in (
        "/v1/projects",
        f"/v1/projects/{job['project'].pk}",
        f"/v1/commitments/{job['draft'].pk}/audit",
        "/v1/budgets",
    ):
        assert viewer.get(path).status_code == 200, path


@pytest.mark.parametrize("role", ["member", "agent", "manager", "admin"])
@pytest.mark.parametrize("name", sorted(WRITES))
def test_writers_create_and_update(make_api, account, job, role, name):
    writer = make_api(account, role)
    method, path, payload, status = WRITES[name](job)
    resp = _call(writer, method, path, payload)
    assert resp.status_code == status, resp.content


@pytest.mark.parametrize(
    "role,code", [("member", "role_forbidden"), ("agent", "agent_cannot_approve")]
)
@pytest.mark.parametrize("name", sorted(APPROVALS))
def test_member_and_agent_cannot_execute_close_or_void(make_api, account, job, role, code, name):
    key_api = make_api(account, role)
    method, path, payload, _ = APPROVALS[name](job)
    before = db_state()
    _assert_forbidden(_call(key_api, method, path, payload), code)
    assert db_state() == before


@pytest.mark.parametrize("role", ["manager", "admin"])
@pytest.mark.parametrize("name", sorted(APPROVALS))
def test_manager_and_admin_execute_close_and_void(make_api, account, job, role, name):
    key_api = make_api(account, role)
    method, path, payload, status = APPROVALS[name](job)
    resp = _call(key_api, method, path, payload)
    assert resp.status_code == status, resp.content
    assert resp.json()["status"] in {"executed", "closed", "void"}


@pytest.mark.parametrize(
    "role,code", [("member", "role_forbidden"), ("agent", "agent_cannot_approve")]
)
def test_refusal_does_not_leak_the_state(make_api, account, job, role, code):
    """Executing an already executed commitment would be 409 for a manager; a key that may
    not execute learns only that it may not."""
    key_api = make_api(account, role)
    resp = key_api.post(f"/v1/commitments/{job['executed'].pk}/execute", {})
    _assert_forbidden(resp, code)
    assert Commitment.objects.get(pk=job["executed"].pk).status == "executed"
    manager = make_api(account, "manager")
    assert manager.post(f"/v1/commitments/{job['executed'].pk}/execute", {}).status_code == 409
