"""Project-restricted keys (docs/keys.md, "Who may call what"): every other project and its children
are 404 and absent from lists; such a key cannot create projects (403 `role_forbidden`); a child
created in
another project is 404 with param `project`. Owners and vendors (account-wide) stay visible."""

import pytest

from jobcost.models import BudgetLine
from tests.conftest import error_of
from tests.factories import CommitmentFactory, CostCodeFactory, ProjectFactory, VendorFactory
from tests.jobcost.api.state import db_state


def _job(account, vendor):
    project = ProjectFactory(account=account, status="active")
    cost_code = CostCodeFactory(project=project)
    return {
        "projects": project,
        "cost-codes": cost_code,
        "budgets": BudgetLine.objects.get(cost_code=cost_code),
        "commitments": CommitmentFactory(project=project, vendor=vendor, cost_code=cost_code),
    }


@pytest.fixture
def setup(account, make_api):
    vendor = VendorFactory(account=account)
    allowed = _job(account, vendor)
    hidden = _job(account, vendor)
    key_api = make_api(account, "admin", projects=[allowed["projects"]])
    return {"api": key_api, "allowed": allowed, "hidden": hidden, "vendor": vendor}


CHILD_COLLECTIONS = ["projects", "cost-codes", "budgets", "commitments"]
PATCHES = {
    "projects": {"name": "X"},
    "cost-codes": {"name": "X"},
    "budgets": {"cost_to_complete": 1},
    "commitments": {"description": "X"},
}


@pytest.mark.parametrize("collection", CHILD_COLLECTIONS)
def test_lists_hold_only_the_keys_projects(setup, collection):
    rows = setup["api"].get(f"/v1/{collection}").json()["data"]
    assert [r["id"] for r in rows] == [setup["allowed"][collection].pk]


@pytest.mark.parametrize("collection", ["cost-codes", "budgets", "commitments"])
def test_filtering_by_a_hidden_project_returns_nothing(setup, collection):
    resp = setup["api"].get(f"/v1/{collection}", {"project": setup["hidden"]["projects"].pk})
    assert resp.status_code == 200
    assert resp.json()["data"] == []


@pytest.mark.parametrize("collection", CHILD_COLLECTIONS)
@pytest.mark.parametrize("suffix,method", [("", "get"), ("/audit", "get"), ("", "patch")])
def test_other_projects_and_children_are_404(setup, collection, suffix, method):
    target = setup["hidden"][collection]
    path = f"/v1/{collection}/{target.pk}{suffix}"
    before = db_state()
    resp = (
        setup["api"].patch(path, PATCHES[collection])
        if method == "patch"
        else setup["api"].get(path)
    )
    assert resp.status_code == 404, resp.content
    assert error_of(resp)["code"] == "resource_missing"
    assert db_state() == before
    allowed = setup["allowed"][collection]
    assert setup["api"].get(f"/v1/{collection}/{allowed.pk}{suffix}").status_code == 200


@pytest.mark.parametrize("verb", ["execute", "void"])
def test_transitions_on_other_projects_are_404(setup, verb):
    target = setup["hidden"]["commitments"]
    before = db_state()
    resp = setup["api"].post(f"/v1/commitments/{target.pk}/{verb}", {})
    assert resp.status_code == 404
    assert error_of(resp)["code"] == "resource_missing"
    assert db_state() == before


def test_restricted_key_cannot_create_projects(setup):
    owner_id = setup["allowed"]["projects"].owner_id
    before = db_state()
    resp = setup["api"].post(
        "/v1/projects", {"number": "N-1", "name": "N", "owner": owner_id, "contract_amount": 1}
    )
    assert resp.status_code == 403
    assert error_of(resp)["code"] == "role_forbidden"
    assert db_state() == before


@pytest.mark.parametrize(
    "path,payload",
    [
        ("/v1/cost-codes", {"code": "Z-1", "name": "Z", "cost_type": "other"}),
        ("/v1/commitments", {"type": "subcontract", "original_amount": 1_00}),
    ],
)
def test_creating_a_child_in_another_project_is_404_param_project(setup, path, payload):
    payload = {**payload, "vendor": setup["vendor"].pk} if "commitments" in path else payload
    before = db_state()
    resp = setup["api"].post(path, {**payload, "project": setup["hidden"]["projects"].pk})
    assert resp.status_code == 404, resp.content
    assert (error_of(resp)["code"], error_of(resp)["param"]) == ("resource_missing", "project")
    assert db_state() == before
    ok = setup["api"].post(path, {**payload, "project": setup["allowed"]["projects"].pk})
    assert ok.status_code == 201, ok.content


def test_commitment_cannot_point_at_a_hidden_projects_cost_code(setup):
    before = db_state()
    resp = setup["api"].patch(
        f"/v1/commitments/{setup['allowed']['commitments'].pk}",
        {"cost_code": setup["hidden"]["cost-codes"].pk},
    )
    assert resp.status_code == 404
    assert (error_of(resp)["code"], error_of(resp)["param"]) == ("resource_missing", "cost_code")
    assert db_state() == before


def test_owners_and_vendors_stay_visible(setup):
    vendors = setup["api"].get("/v1/vendors").json()["data"]
    assert [v["id"] for v in vendors] == [setup["vendor"].pk]
    owners = {o["id"] for o in setup["api"].get("/v1/owners").json()["data"]}
    assert owners == {setup["allowed"]["projects"].owner_id, setup["hidden"]["projects"].owner_id}


def test_key_restricted_to_two_projects_sees_both(account, make_api, setup):
    both = make_api(
        account, "viewer", projects=[setup["allowed"]["projects"], setup["hidden"]["projects"]]
    )
    assert len(both.get("/v1/projects").json()["data"]) == 2
