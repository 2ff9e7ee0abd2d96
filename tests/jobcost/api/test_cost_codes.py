"""Cost codes (docs/resources.md, cost_code): POST with `budget_amount` creates the code and its
budget line; codes are unique per project; PATCH; list filters."""

import pytest

from jobcost.models import BudgetLine, CostCode
from tests.conftest import error_of
from tests.factories import CostCodeFactory, ProjectFactory
from tests.jobcost.api.state import db_state


@pytest.fixture
def project(account):
    return ProjectFactory(account=account, status="bid")


def _create(api, project_id, **extra):
    payload = {"project": project_id, "code": "03-300", "name": "Concrete", "cost_type": "labor"}
    return api.post("/v1/cost-codes", {**payload, **extra})


def test_create_cost_code_with_its_budget_line(api, account, project):
    resp = _create(api, project.pk, scheduled_value=120_000_00, budget_amount=95_000_00)
    assert resp.status_code == 201, resp.content
    data = resp.json()
    assert data["id"].startswith("cc_")
    assert data["object"] == "cost_code"
    assert (data["project"], data["code"], data["name"], data["cost_type"]) == (
        project.pk,
        "03-300",
        "Concrete",
        "labor",
    )
    assert (data["scheduled_value"], data["currency"]) == (120_000_00, "usd")
    assert data["budget_line"].startswith("bl_")
    line = BudgetLine.objects.get(pk=data["budget_line"])
    assert (line.cost_code_id, line.project_id, line.account_id) == (
        data["id"],
        project.pk,
        account.pk,
    )
    assert line.original_amount == 95_000_00
    budget = api.get(f"/v1/budgets/{data['budget_line']}").json()
    assert (budget["original_amount"], budget["revised_amount"], budget["cost_code"]) == (
        95_000_00,
        95_000_00,
        data["id"],
    )


def test_create_cost_code_defaults_to_zero_amounts(api, project):
    resp = _create(api, project.pk)
    assert resp.status_code == 201, resp.content
    assert resp.json()["scheduled_value"] == 0
    assert BudgetLine.objects.get(pk=resp.json()["budget_line"]).original_amount == 0


def test_duplicate_code_in_a_project_is_409(api, project):
    assert _create(api, project.pk).status_code == 201
    before = db_state()
    resp = _create(api, project.pk, name="Again")
    assert resp.status_code == 409
    error = error_of(resp)
    assert (error["code"], error["param"]) == ("resource_already_exists", "code")
    assert db_state() == before


def test_same_code_in_another_project_is_fine(api, account, project):
    other = ProjectFactory(account=account)
    assert _create(api, project.pk).status_code == 201
    assert _create(api, other.pk).status_code == 201
    assert CostCode.objects.filter(code="03-300").count() == 2


@pytest.mark.parametrize(
    "field,value,code",
    [
        ("cost_type", "magic", "parameter_invalid"),
        ("budget_amount", -5, "parameter_invalid"),
        ("budget_amount", 1.5, "parameter_invalid"),
        ("scheduled_value", "100", "parameter_invalid"),
        ("budget_line", "bl_x", "parameter_read_only"),
        ("colour", "red", "parameter_unknown"),
    ],
)
def test_create_cost_code_refuses_bad_fields(api, project, field, value, code):
    before = db_state()
    resp = _create(api, project.pk, **{field: value})
    assert resp.status_code == 400
    assert (error_of(resp)["code"], error_of(resp)["param"]) == (code, field)
    assert db_state() == before


def test_create_cost_code_needs_a_project(api):
    before = db_state()
    resp = api.post("/v1/cost-codes", {"code": "1", "name": "x", "cost_type": "other"})
    assert resp.status_code == 400
    assert (error_of(resp)["code"], error_of(resp)["param"]) == ("parameter_missing", "project")
    missing = api.post(
        "/v1/cost-codes",
        {"project": "prj_nope", "code": "1", "name": "x", "cost_type": "other"},
    )
    assert missing.status_code == 404
    assert (error_of(missing)["code"], error_of(missing)["param"]) == (
        "resource_missing",
        "project",
    )
    assert db_state() == before


def test_patch_cost_code(api, project):
    cost_code = CostCodeFactory(project=project, code="01-100", scheduled_value=1_00)
    resp = api.patch(
        f"/v1/cost-codes/{cost_code.pk}",
        {
            "code": "01-110",
            "name": "General conditions",
            "cost_type": "other",
            "scheduled_value": 7_500_00,
        },
    )
    assert resp.status_code == 200, resp.content
    data = resp.json()
    assert (data["code"], data["name"], data["cost_type"], data["scheduled_value"]) == (
        "01-110",
        "General conditions",
        "other",
        7_500_00,
    )
    cost_code.refresh_from_db()
    assert (cost_code.code, cost_code.scheduled_value) == ("01-110", 7_500_00)


def test_patch_cost_code_to_a_used_code_is_409(api, project):
    CostCodeFactory(project=project, code="01-100")
    cost_code = CostCodeFactory(project=project, code="01-200")
    before = db_state()
    resp = api.patch(f"/v1/cost-codes/{cost_code.pk}", {"code": "01-100"})
    assert resp.status_code == 409
    assert (error_of(resp)["code"], error_of(resp)["param"]) == ("resource_already_exists", "code")
    assert db_state() == before


@pytest.mark.parametrize("field", ["project", "budget_line", "currency"])
def test_patch_cost_code_fixed_fields_are_read_only(api, project, field):
    cost_code = CostCodeFactory(project=project)
    before = db_state()
    resp = api.patch(f"/v1/cost-codes/{cost_code.pk}", {field: "x"})
    assert resp.status_code == 400
    assert (error_of(resp)["code"], error_of(resp)["param"]) == ("parameter_read_only", field)
    assert db_state() == before


def test_list_cost_codes_filters_by_project(api, account, project):
    other = ProjectFactory(account=account)
    mine_old = CostCodeFactory(project=project)
    theirs = CostCodeFactory(project=other)
    mine_new = CostCodeFactory(project=project)
    everything = api.get("/v1/cost-codes").json()["data"]
    assert [c["id"] for c in everything] == [mine_new.pk, theirs.pk, mine_old.pk]
    filtered = api.get("/v1/cost-codes", {"project": project.pk}).json()["data"]
    assert [c["id"] for c in filtered] == [mine_new.pk, mine_old.pk]
    assert {c["budget_line"] for c in filtered} == set(
        BudgetLine.objects.filter(project=project).values_list("pk", flat=True)
    )


def test_retrieve_cost_code(api, project):
    cost_code = CostCodeFactory(project=project)
    data = api.get(f"/v1/cost-codes/{cost_code.pk}").json()
    assert (data["id"], data["code"], data["budget_line"]) == (
        cost_code.pk,
        cost_code.code,
        cost_code.budget_line.pk,
    )
