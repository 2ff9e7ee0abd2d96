"""Projects: create, list, retrieve, PATCH (docs/resources.md, project). The status machine and the
closed-project rule are in test_project_status.py, the rollups in test_project_rollups.py."""

import pytest

from jobcost.models import Project
from tests.conftest import error_of
from tests.factories import OwnerFactory, ProjectFactory
from tests.jobcost.api.state import body, db_state


@pytest.fixture
def owner(account):
    return OwnerFactory(account=account)


def test_create_project_with_every_field(api, account, owner):
    resp = api.post(
        "/v1/projects",
        {
            "number": "J-2026-01",
            "name": "Springfield Library",
            "owner": owner.pk,
            "contract_amount": 1_250_000_00,
            "currency": "cad",
            "retainage_pct": 7.5,
            "status": "active",
            "contract_date": "2026-03-02",
            "architect_name": "Harmon Lowe Architects",
        },
    )
    assert resp.status_code == 201, resp.content
    data = body(resp)
    assert (data["contract_date"], data["architect_name"]) == (
        "2026-03-02",
        "Harmon Lowe Architects",
    )
    assert data["id"].startswith("prj_")
    assert data["object"] == "project"
    assert (data["number"], data["name"], data["owner"]) == (
        "J-2026-01",
        "Springfield Library",
        owner.pk,
    )
    assert (data["contract_amount"], data["currency"], data["status"]) == (
        1_250_000_00,
        "cad",
        "active",
    )
    assert str(data["retainage_pct"]) == "7.5"
    assert data["approved_changes"] == 0
    assert data["revised_contract"] == 1_250_000_00
    assert data["audit_trail"] == f"/v1/projects/{data['id']}/audit"
    project = Project.objects.get(pk=data["id"])
    assert project.account_id == account.pk
    assert str(project.retainage_pct) == "7.50"


def test_create_project_defaults(api, owner):
    resp = api.post(
        "/v1/projects",
        {"number": "J-1", "name": "Shed", "owner": owner.pk, "contract_amount": 10_000_00},
    )
    assert resp.status_code == 201, resp.content
    data = resp.json()
    assert (data["status"], data["currency"], data["retainage_pct"]) == ("bid", "usd", 0)
    assert (data["contract_date"], data["architect_name"]) == (None, "")


def test_patch_sets_and_clears_the_contract_date_and_architect(api, owner):
    project = body(
        api.post(
            "/v1/projects",
            {"number": "J-1", "name": "Shed", "owner": owner.pk, "contract_amount": 10_000_00},
        )
    )
    url = f"/v1/projects/{project['id']}"
    patched = api.patch(url, {"contract_date": "2026-04-01", "architect_name": "A. Rivera"})
    assert patched.status_code == 200, patched.content
    assert (patched.json()["contract_date"], patched.json()["architect_name"]) == (
        "2026-04-01",
        "A. Rivera",
    )
    cleared = api.patch(url, {"contract_date": None, "architect_name": ""}).json()
    assert (cleared["contract_date"], cleared["architect_name"]) == (None, "")
    stored = Project.objects.get(pk=project["id"])
    assert (stored.contract_date, stored.architect_name) == (None, "")


@pytest.mark.parametrize("status", ["closeout", "closed", "paused"])
def test_create_project_status_is_bid_or_active_only(api, owner, status):
    before = db_state()
    resp = api.post(
        "/v1/projects",
        {"number": "J-1", "name": "X", "owner": owner.pk, "contract_amount": 1, "status": status},
    )
    assert resp.status_code == 400
    error = error_of(resp)
    assert (error["code"], error["param"]) == ("parameter_invalid", "status")
    assert db_state() == before


@pytest.mark.parametrize(
    "field,value,code",
    [
        ("contract_amount", 10.5, "parameter_invalid"),
        ("contract_amount", "1000", "parameter_invalid"),
        ("contract_amount", -1, "parameter_invalid"),
        ("retainage_pct", 100.5, "parameter_invalid"),
        ("retainage_pct", 10.125, "parameter_invalid"),
        ("currency", "USD", "parameter_invalid"),
        ("contract_date", "1969-12-31", "parameter_invalid"),
        ("contract_date", "2100-01-01", "parameter_invalid"),
        ("contract_date", "2026-02-30", "parameter_invalid"),
        ("architect_name", "x" * 201, "parameter_invalid"),
        ("cost_to_date", 5, "parameter_read_only"),
        ("color", "red", "parameter_unknown"),
    ],
)
def test_create_project_refuses_bad_fields(api, owner, field, value, code):
    payload = {"number": "J-1", "name": "X", "owner": owner.pk, "contract_amount": 1}
    before = db_state()
    resp = api.post("/v1/projects", {**payload, field: value})
    assert resp.status_code == 400
    error = error_of(resp)
    assert (error["code"], error["param"]) == (code, field)
    assert db_state() == before


def test_duplicate_project_number_is_409(api, account, owner):
    ProjectFactory(account=account, number="J-7")
    before = db_state()
    resp = api.post(
        "/v1/projects", {"number": "J-7", "name": "Again", "owner": owner.pk, "contract_amount": 1}
    )
    assert resp.status_code == 409
    error = error_of(resp)
    assert (error["code"], error["param"]) == ("resource_already_exists", "number")
    assert db_state() == before


def test_patch_to_a_used_number_is_409(api, account):
    ProjectFactory(account=account, number="J-7")
    project = ProjectFactory(account=account, number="J-8")
    before = db_state()
    resp = api.patch(f"/v1/projects/{project.pk}", {"number": "J-7"})
    assert resp.status_code == 409
    error = error_of(resp)
    assert (error["code"], error["param"]) == ("resource_already_exists", "number")
    assert db_state() == before


def test_same_number_in_another_account_is_fine(api, owner):
    ProjectFactory(number="J-7")
    resp = api.post(
        "/v1/projects", {"number": "J-7", "name": "Mine", "owner": owner.pk, "contract_amount": 1}
    )
    assert resp.status_code == 201, resp.content


def test_list_projects_filters_by_status(api, account):
    bid = ProjectFactory(account=account, status="bid")
    active_old = ProjectFactory(account=account, status="active")
    active_new = ProjectFactory(account=account, status="active")
    closed = ProjectFactory(account=account, status="closed")
    everything = [p["id"] for p in api.get("/v1/projects").json()["data"]]
    assert everything == [closed.pk, active_new.pk, active_old.pk, bid.pk]
    active = api.get("/v1/projects", {"status": "active"}).json()["data"]
    assert [p["id"] for p in active] == [active_new.pk, active_old.pk]
    assert [p["id"] for p in api.get("/v1/projects", {"status": "bid"}).json()["data"]] == [bid.pk]
    resp = api.get("/v1/projects", {"status": "paused"})
    assert resp.status_code == 400
    assert error_of(resp)["param"] == "status"


def test_retrieve_project(api, account):
    project = ProjectFactory(account=account, name="Depot", contract_amount=42_00)
    resp = api.get(f"/v1/projects/{project.pk}")
    assert resp.status_code == 200
    data = resp.json()
    assert (data["id"], data["name"], data["contract_amount"]) == (project.pk, "Depot", 42_00)
    assert data["owner"] == project.owner_id


def test_patch_name_number_retainage_and_status(api, account):
    project = ProjectFactory(account=account, status="bid", retainage_pct=10)
    resp = api.patch(
        f"/v1/projects/{project.pk}",
        {"name": "Renamed", "number": "J-NEW", "retainage_pct": 5.25, "status": "active"},
    )
    assert resp.status_code == 200, resp.content
    data = body(resp)
    assert (data["name"], data["number"], data["status"]) == ("Renamed", "J-NEW", "active")
    assert str(data["retainage_pct"]) == "5.25"
    project.refresh_from_db()
    assert (project.name, project.number, project.status) == ("Renamed", "J-NEW", "active")
    assert str(project.retainage_pct) == "5.25"


def test_patch_contract_amount_while_bid(api, account):
    project = ProjectFactory(account=account, status="bid", contract_amount=100_00)
    resp = api.patch(f"/v1/projects/{project.pk}", {"contract_amount": 250_00})
    assert resp.status_code == 200, resp.content
    assert resp.json()["contract_amount"] == 250_00
    project.refresh_from_db()
    assert project.contract_amount == 250_00


@pytest.mark.parametrize("status", ["active", "closeout"])
def test_patch_contract_amount_after_bid_is_409_contract_locked(api, account, status):
    project = ProjectFactory(account=account, status=status, contract_amount=100_00)
    before = db_state()
    resp = api.patch(f"/v1/projects/{project.pk}", {"contract_amount": 250_00, "name": "Z"})
    assert resp.status_code == 409
    error = error_of(resp)
    assert (error["code"], error["param"], error["object"]) == (
        "contract_locked",
        "contract_amount",
        project.pk,
    )
    assert db_state() == before


@pytest.mark.parametrize(
    "field", ["revised_contract", "projected_cost", "approved_changes", "owner", "currency"]
)
def test_patch_computed_field_is_read_only(api, account, field):
    project = ProjectFactory(account=account)
    before = db_state()
    resp = api.patch(f"/v1/projects/{project.pk}", {field: 1})
    assert resp.status_code == 400
    assert (error_of(resp)["code"], error_of(resp)["param"]) == ("parameter_read_only", field)
    assert db_state() == before
