"""Bad body fields (docs/conventions.md–3, §8): unknown fields, writes to computed fields, missing
required fields, references to another account's objects, and illegal transitions. Each is
refused with its code and param and writes no row and no audit entry."""

from __future__ import annotations

import pytest

from jobcost.models import Commitment, Project
from tests.conftest import error_of
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    CostCodeFactory,
    OwnerFactory,
    ProjectFactory,
    VendorFactory,
)
from tests.jobcost.api.conventions_support import make_job, row_counts


@pytest.fixture
def job(account):
    return make_job(account)


@pytest.fixture
def stranger():
    """Another account's job: none of it may be visible or usable."""
    project = ProjectFactory(account=AccountFactory())
    cost_code = CostCodeFactory(project=project)
    return CommitmentFactory(project=project, cost_code=cost_code)


def _refused(response, status: int, code: str, param: str | None) -> dict:
    assert response.status_code == status, response.content
    error = error_of(response)
    assert (error["code"], error["param"]) == (code, param), error
    return error


def test_unknown_body_fields_are_400_parameter_unknown(api, job):
    before = row_counts()
    cases = [
        ("post", "/v1/owners", {"name": "Harbor", "colour": "red"}, "colour"),
        ("post", "/v1/commitments", job.commitment_body(amount=5), "amount"),
        ("patch", f"/v1/projects/{job.project.pk}", {"nmae": "typo"}, "nmae"),
        (
            "patch",
            f"/v1/commitments/{job.commitment.pk}",
            {"Original_amount": 1},
            "Original_amount",
        ),
        ("post", f"/v1/commitments/{job.commitment.pk}/execute", {"force": True}, "force"),
    ]
    for method, path, body, param in cases:
        response = getattr(api, method)(path, body)
        assert error_of(response)["type"] == "invalid_request"
        _refused(response, 400, "parameter_unknown", param)
    assert row_counts() == before
    assert Commitment.objects.get(pk=job.commitment.pk).status == "draft"


@pytest.mark.parametrize(
    "collection, field, value",
    [
        ("projects", "revised_contract", 1),
        ("projects", "cost_to_date", 1),
        ("projects", "approved_changes", 1),
        ("projects", "percent_complete", 50),
        ("projects", "projected_margin_pct", 10),
        ("projects", "over_under_billing", 0),
        ("projects", "currency", "eur"),
        ("projects", "id", "prj_x"),
        ("projects", "object", "project"),
        ("projects", "created_at", "2026-01-01T00:00:00Z"),
        ("projects", "audit_trail", "/v1/x"),
        ("budgets", "committed", 1),
        ("budgets", "actual", 1),
        ("budgets", "revised_amount", 1),
        ("budgets", "variance", 1),
        ("budgets", "project", "prj_x"),
        ("commitments", "billed_to_date", 1),
        ("commitments", "remaining", 1),
        ("commitments", "revised_amount", 1),
        ("commitments", "approved_changes", 1),
        ("commitments", "status", "executed"),
        ("commitments", "executed_at", "2026-01-01T00:00:00Z"),
        ("commitments", "vendor_name", "Someone"),
        ("cost-codes", "budget_line", "bl_x"),
    ],
)
def test_writing_a_computed_field_is_400_parameter_read_only(api, job, collection, field, value):
    pk = {
        "projects": job.project.pk,
        "budgets": job.cost_code.budget_line.pk,
        "commitments": job.commitment.pk,
        "cost-codes": job.cost_code.pk,
    }[collection]
    before = row_counts()
    original = api.get(f"/v1/{collection}/{pk}").json()
    response = api.patch(f"/v1/{collection}/{pk}", {field: value})
    _refused(response, 400, "parameter_read_only", field)
    assert row_counts() == before
    assert api.get(f"/v1/{collection}/{pk}").json() == original


def test_computed_fields_are_read_only_on_create_too(api, job):
    before = row_counts()
    response = api.post("/v1/commitments", job.commitment_body(remaining=0))
    _refused(response, 400, "parameter_read_only", "remaining")
    body = {
        "number": "J-77",
        "name": "Depot",
        "owner": job.project.owner_id,
        "contract_amount": 1,
        "cost_to_date": 0,
    }
    _refused(api.post("/v1/projects", body), 400, "parameter_read_only", "cost_to_date")
    assert row_counts() == before


@pytest.mark.parametrize("missing", ["project", "vendor", "type", "original_amount"])
def test_missing_required_field_is_400_parameter_missing(api, job, missing):
    before = row_counts()
    body = job.commitment_body()
    del body[missing]
    _refused(api.post("/v1/commitments", body), 400, "parameter_missing", missing)
    assert row_counts() == before


def test_empty_body_names_a_missing_field(api):
    before = row_counts()
    _refused(api.post("/v1/owners", {}), 400, "parameter_missing", "name")
    _refused(api.post("/v1/owners", ""), 400, "parameter_missing", "name")
    assert row_counts() == before


def test_null_for_a_required_field_is_400_parameter_invalid(api, job):
    before = row_counts()
    response = api.patch(f"/v1/projects/{job.project.pk}", {"name": None})
    _refused(response, 400, "parameter_invalid", "name")
    assert row_counts() == before


def test_another_accounts_object_in_the_path_is_404(api, stranger):
    before = row_counts()
    for response in (
        api.get(f"/v1/commitments/{stranger.pk}"),
        api.get(f"/v1/commitments/{stranger.pk}/audit"),
        api.get(f"/v1/projects/{stranger.project_id}"),
        api.get(f"/v1/cost-codes/{stranger.cost_code_id}"),
        api.patch(f"/v1/commitments/{stranger.pk}", {"description": "mine now"}),
        api.patch(f"/v1/projects/{stranger.project_id}", {"name": "mine now"}),
        api.post(f"/v1/commitments/{stranger.pk}/execute"),
    ):
        error = _refused(response, 404, "resource_missing", "id")
        assert error["type"] == "not_found"
    assert row_counts() == before
    assert Commitment.objects.get(pk=stranger.pk).status == "draft"


def test_another_accounts_object_in_the_body_is_404_with_param(api, job, stranger):
    other_vendor = VendorFactory(account=stranger.project.account)
    other_owner = OwnerFactory(account=stranger.project.account)
    before = row_counts()
    cases = [
        ("/v1/commitments", job.commitment_body(project=stranger.project_id), "project"),
        ("/v1/commitments", job.commitment_body(vendor=other_vendor.pk), "vendor"),
        ("/v1/commitments", job.commitment_body(cost_code=stranger.cost_code_id), "cost_code"),
        (
            "/v1/projects",
            {"number": "J-1", "name": "X", "owner": other_owner.pk, "contract_amount": 1},
            "owner",
        ),
        (
            "/v1/cost-codes",
            {"project": stranger.project_id, "code": "01-1", "name": "X", "cost_type": "labor"},
            "project",
        ),
    ]
    for path, body, param in cases:
        _refused(api.post(path, body), 404, "resource_missing", param)
    patched = api.patch(
        f"/v1/commitments/{job.commitment.pk}", {"cost_code": stranger.cost_code_id}
    )
    _refused(patched, 404, "resource_missing", "cost_code")
    assert row_counts() == before
    assert Commitment.objects.get(pk=job.commitment.pk).cost_code_id == job.cost_code.pk


def test_a_reference_of_the_wrong_prefix_is_404_with_param(api, job):
    before = row_counts()
    body = job.commitment_body(vendor=job.project.owner_id)
    _refused(api.post("/v1/commitments", body), 404, "resource_missing", "vendor")
    body = job.commitment_body(project=12345)
    _refused(api.post("/v1/commitments", body), 400, "parameter_invalid", "project")
    assert row_counts() == before


def test_illegal_project_transition_is_409_invalid_state_transition(api, account):
    project = ProjectFactory(account=account, status="bid")
    before = row_counts()
    for target in ("closed", "closeout"):
        response = api.patch(f"/v1/projects/{project.pk}", {"status": target})
        error = _refused(response, 409, "invalid_state_transition", "status")
        assert error["type"] == "conflict"
        assert error["object"] == project.pk
    _refused(
        api.patch(f"/v1/projects/{project.pk}", {"status": "paused"}),
        400,
        "parameter_invalid",
        "status",
    )
    assert row_counts() == before
    assert Project.objects.get(pk=project.pk).status == "bid"


def test_illegal_commitment_transitions_are_409(api, job):
    commitment = job.commitment
    before = row_counts()
    response = api.post(f"/v1/commitments/{commitment.pk}/close")
    assert _refused(response, 409, "invalid_state_transition", None)["object"] == commitment.pk
    assert row_counts() == before
    assert api.post(f"/v1/commitments/{commitment.pk}/void").status_code == 200
    before = row_counts()
    for verb in ("execute", "void", "close"):
        response = api.post(f"/v1/commitments/{commitment.pk}/{verb}")
        _refused(response, 409, "invalid_state_transition", None)
    _refused(
        api.patch(f"/v1/commitments/{commitment.pk}", {"description": "edit"}),
        409,
        "invalid_state_transition",
        None,
    )
    assert row_counts() == before
    assert Commitment.objects.get(pk=commitment.pk).status == "void"
