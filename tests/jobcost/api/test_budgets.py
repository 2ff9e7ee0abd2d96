"""Budget lines (docs/resources.md, budget_line, §9): list, retrieve, PATCH cost_to_complete and
original_amount, and the computed fields.

`actual` comes from approved invoices, a later issue: tests set it with a queryset
`.update()` in the setup.
"""

import pytest

from jobcost.models import BudgetLine
from tests.conftest import error_of
from tests.factories import CommitmentFactory, CostCodeFactory, ProjectFactory, VendorFactory
from tests.jobcost.api.state import db_state

COMPUTED = (
    "revised_amount",
    "committed",
    "actual",
    "cost_to_complete",
    "projected_cost",
    "variance",
)


def _line(api, line_id):
    resp = api.get(f"/v1/budgets/{line_id}")
    assert resp.status_code == 200, resp.content
    return resp.json()


def _figures(data):
    return {f: data[f] for f in COMPUTED}


@pytest.fixture
def job(account):
    project = ProjectFactory(account=account, status="active")
    cost_code = CostCodeFactory(project=project, budget_amount=10_000_00)
    return {
        "project": project,
        "cost_code": cost_code,
        "line": BudgetLine.objects.get(cost_code=cost_code),
        "vendor": VendorFactory(account=account),
    }


def test_retrieve_budget_line(api, job):
    data = _line(api, job["line"].pk)
    assert data["object"] == "budget_line"
    assert (data["project"], data["cost_code"], data["currency"]) == (
        job["project"].pk,
        job["cost_code"].pk,
        "usd",
    )
    assert (data["original_amount"], data["approved_changes"]) == (10_000_00, 0)
    assert data["cost_to_complete_is_estimate"] is False
    assert data["audit_trail"] == f"/v1/budgets/{job['line'].pk}/audit"


def test_list_budgets_filters_by_project_and_cost_code(api, account, job):
    other = ProjectFactory(account=account)
    other_code = CostCodeFactory(project=other)
    second = CostCodeFactory(project=job["project"])
    everything = [b["id"] for b in api.get("/v1/budgets").json()["data"]]
    assert everything == [
        second.budget_line.pk,
        other_code.budget_line.pk,
        job["line"].pk,
    ]
    by_project = api.get("/v1/budgets", {"project": job["project"].pk}).json()["data"]
    assert [b["id"] for b in by_project] == [second.budget_line.pk, job["line"].pk]
    by_code = api.get("/v1/budgets", {"cost_code": other_code.pk}).json()["data"]
    assert [b["id"] for b in by_code] == [other_code.budget_line.pk]


def test_computed_fields_without_commitments_or_actual(api, job):
    """revised 10,000.00; cost_to_complete = max(10,000, 0) − 0; variance 0."""
    assert _figures(_line(api, job["line"].pk)) == {
        "revised_amount": 10_000_00,
        "committed": 0,
        "actual": 0,
        "cost_to_complete": 10_000_00,
        "projected_cost": 10_000_00,
        "variance": 0,
    }


def test_committed_counts_executed_and_closed_commitments_only(api, job):
    """Executed 6,000.00 + closed 5,000.00 = 11,000.00 committed; the draft 900.00 and the
    voided 700.00 do not count. With 2,500.00 actual: cost_to_complete =
    max(10,000, 11,000) − 2,500 = 8,500.00; projected = 11,000.00; variance = −1,000.00."""
    common = {"project": job["project"], "vendor": job["vendor"], "cost_code": job["cost_code"]}
    CommitmentFactory(**common, original_amount=6_000_00, executed=True)
    closed = CommitmentFactory(**common, original_amount=5_000_00, executed=True)
    assert api.post(f"/v1/commitments/{closed.pk}/close", {}).status_code == 200
    CommitmentFactory(**common, original_amount=900_00)
    voided = CommitmentFactory(**common, original_amount=700_00)
    assert api.post(f"/v1/commitments/{voided.pk}/void", {}).status_code == 200
    other_code = CostCodeFactory(project=job["project"])
    CommitmentFactory(**{**common, "cost_code": other_code}, original_amount=1_00, executed=True)
    BudgetLine.objects.filter(pk=job["line"].pk).update(actual=2_500_00)
    assert _figures(_line(api, job["line"].pk)) == {
        "revised_amount": 10_000_00,
        "committed": 11_000_00,
        "actual": 2_500_00,
        "cost_to_complete": 8_500_00,
        "projected_cost": 11_000_00,
        "variance": -1_000_00,
    }


def test_voiding_an_executed_commitment_removes_it_from_committed(api, job):
    common = {"project": job["project"], "vendor": job["vendor"], "cost_code": job["cost_code"]}
    commitment = CommitmentFactory(**common, original_amount=12_000_00, executed=True)
    assert _line(api, job["line"].pk)["committed"] == 12_000_00
    assert api.post(f"/v1/commitments/{commitment.pk}/void", {}).status_code == 200
    data = _line(api, job["line"].pk)
    assert (data["committed"], data["cost_to_complete"], data["variance"]) == (0, 10_000_00, 0)


def test_cost_to_complete_floors_at_zero_when_never_set(api, job):
    """revised 10,000.00, actual 12,000.00: max(10,000 − 12,000, 0) = 0; projected 12,000.00;
    variance −2,000.00."""
    BudgetLine.objects.filter(pk=job["line"].pk).update(actual=12_000_00)
    data = _line(api, job["line"].pk)
    assert (data["cost_to_complete"], data["projected_cost"], data["variance"]) == (
        0,
        12_000_00,
        -2_000_00,
    )


@pytest.mark.parametrize("status", ["bid", "active", "closeout"])
def test_patch_cost_to_complete_any_time_and_null_returns_to_computed(api, job, status):
    """Estimate 3,000.00 with 4,000.00 actual: projected 7,000.00, variance 3,000.00; null
    returns to max(10,000, 0) − 4,000 = 6,000.00."""
    job["project"].status = status
    job["project"].save()
    BudgetLine.objects.filter(pk=job["line"].pk).update(actual=4_000_00)
    resp = api.patch(f"/v1/budgets/{job['line'].pk}", {"cost_to_complete": 3_000_00})
    assert resp.status_code == 200, resp.content
    data = resp.json()
    assert (data["cost_to_complete"], data["projected_cost"], data["variance"]) == (
        3_000_00,
        7_000_00,
        3_000_00,
    )
    assert data["cost_to_complete_is_estimate"] is True
    assert BudgetLine.objects.get(pk=job["line"].pk).cost_to_complete_estimate == 3_000_00
    reset = api.patch(f"/v1/budgets/{job['line'].pk}", {"cost_to_complete": None})
    assert reset.status_code == 200, reset.content
    assert (reset.json()["cost_to_complete"], reset.json()["cost_to_complete_is_estimate"]) == (
        6_000_00,
        False,
    )
    assert BudgetLine.objects.get(pk=job["line"].pk).cost_to_complete_estimate is None


def test_zero_estimate_is_kept_not_computed(api, job):
    resp = api.patch(f"/v1/budgets/{job['line'].pk}", {"cost_to_complete": 0})
    assert resp.status_code == 200, resp.content
    assert (resp.json()["cost_to_complete"], resp.json()["cost_to_complete_is_estimate"]) == (
        0,
        True,
    )


def test_patch_original_amount_while_bid(api, job):
    job["project"].status = "bid"
    job["project"].save()
    resp = api.patch(f"/v1/budgets/{job['line'].pk}", {"original_amount": 12_345_00})
    assert resp.status_code == 200, resp.content
    assert (resp.json()["original_amount"], resp.json()["revised_amount"]) == (
        12_345_00,
        12_345_00,
    )
    assert BudgetLine.objects.get(pk=job["line"].pk).original_amount == 12_345_00


@pytest.mark.parametrize("status", ["active", "closeout"])
def test_patch_original_amount_after_bid_is_409_budget_locked(api, job, status):
    job["project"].status = status
    job["project"].save()
    before = db_state()
    resp = api.patch(
        f"/v1/budgets/{job['line'].pk}", {"original_amount": 1_00, "cost_to_complete": 5_00}
    )
    assert resp.status_code == 409
    error = error_of(resp)
    assert (error["code"], error["param"], error["object"]) == (
        "budget_locked",
        "original_amount",
        job["line"].pk,
    )
    assert db_state() == before


@pytest.mark.parametrize(
    "field,value,code",
    [
        ("cost_to_complete", -1, "parameter_invalid"),
        ("cost_to_complete", 10.5, "parameter_invalid"),
        ("committed", 5, "parameter_read_only"),
        ("actual", 5, "parameter_read_only"),
        ("variance", 5, "parameter_read_only"),
        ("approved_changes", 5, "parameter_read_only"),
        ("cost_code", "cc_x", "parameter_read_only"),
        ("notes", "x", "parameter_unknown"),
    ],
)
def test_patch_budget_refuses_bad_fields(api, job, field, value, code):
    before = db_state()
    resp = api.patch(f"/v1/budgets/{job['line'].pk}", {field: value})
    assert resp.status_code == 400
    assert (error_of(resp)["code"], error_of(resp)["param"]) == (code, field)
    assert db_state() == before


def test_budgets_have_no_create_route(api, job):
    resp = api.post("/v1/budgets", {"cost_code": job["cost_code"].pk})
    assert resp.status_code == 405
    assert BudgetLine.objects.count() == 1
