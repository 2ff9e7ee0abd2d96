"""Commitments (docs/resources.md, commitment, §9): create, list filters, PATCH while draft. The
execute / close / void transitions are in test_commitment_transitions.py."""

from decimal import Decimal

import pytest

from jobcost.models import Commitment
from tests.conftest import error_of
from tests.factories import CommitmentFactory, CostCodeFactory, ProjectFactory, VendorFactory
from tests.jobcost.api.state import body, db_state


@pytest.fixture
def job(account):
    project = ProjectFactory(account=account, status="active", retainage_pct=Decimal("7.5"))
    return {
        "project": project,
        "cost_code": CostCodeFactory(project=project),
        "vendor": VendorFactory(account=account),
    }


def _payload(job, **extra):
    return {
        "project": job["project"].pk,
        "vendor": job["vendor"].pk,
        "cost_code": job["cost_code"].pk,
        "type": "subcontract",
        "original_amount": 48_500_00,
        **extra,
    }


def test_create_commitment_is_a_draft_with_defaults(api, job):
    resp = api.post("/v1/commitments", _payload(job, description="Footings"))
    assert resp.status_code == 201, resp.content
    data = body(resp)
    assert data["id"].startswith("cmt_")
    assert data["object"] == "commitment"
    assert (data["status"], data["number"], data["description"]) == ("draft", "SC-001", "Footings")
    assert (data["project"], data["vendor"], data["cost_code"]) == (
        job["project"].pk,
        job["vendor"].pk,
        job["cost_code"].pk,
    )
    assert data["vendor_name"] == job["vendor"].name
    assert data["currency"] == "usd"
    assert (data["original_amount"], data["approved_changes"], data["revised_amount"]) == (
        48_500_00,
        0,
        48_500_00,
    )
    assert (data["billed_to_date"], data["remaining"]) == (0, 48_500_00)
    assert data["retainage_pct"] == Decimal("7.5")
    assert (data["executed_at"], data["closed_at"], data["voided_at"]) == (None, None, None)
    row = Commitment.objects.get(pk=data["id"])
    assert (row.status, row.retainage_pct, row.account_id) == (
        "draft",
        Decimal("7.50"),
        job["project"].account_id,
    )


def test_numbers_are_assigned_per_type_when_omitted(api, job):
    numbers = []
    for type_ in ("subcontract", "purchase_order", "subcontract", "purchase_order"):
        resp = api.post("/v1/commitments", _payload(job, type=type_))
        assert resp.status_code == 201, resp.content
        numbers.append(resp.json()["number"])
    assert numbers == ["SC-001", "PO-001", "SC-002", "PO-002"]


def test_explicit_number_and_retainage_are_kept(api, job):
    resp = api.post("/v1/commitments", _payload(job, number="SUB-17", retainage_pct=0))
    assert resp.status_code == 201, resp.content
    assert (resp.json()["number"], resp.json()["retainage_pct"]) == ("SUB-17", 0)


def test_duplicate_number_in_a_project_is_409(api, job):
    assert api.post("/v1/commitments", _payload(job, number="SC-9")).status_code == 201
    before = db_state()
    resp = api.post("/v1/commitments", _payload(job, number="SC-9"))
    assert resp.status_code == 409
    assert (error_of(resp)["code"], error_of(resp)["param"]) == (
        "resource_already_exists",
        "number",
    )
    assert db_state() == before


def test_commitment_without_cost_code_is_allowed_in_draft(api, job):
    payload = _payload(job)
    del payload["cost_code"]
    resp = api.post("/v1/commitments", payload)
    assert resp.status_code == 201, resp.content
    assert resp.json()["cost_code"] is None


def test_cost_code_of_another_project_is_400(api, account, job):
    other_code = CostCodeFactory(project=ProjectFactory(account=account))
    before = db_state()
    resp = api.post("/v1/commitments", _payload(job, cost_code=other_code.pk))
    assert resp.status_code == 400
    error = error_of(resp)
    assert (error["code"], error["param"]) == ("parameter_invalid", "cost_code")
    assert db_state() == before


@pytest.mark.parametrize(
    "field,value,code",
    [
        ("original_amount", -1, "parameter_invalid"),
        ("original_amount", 100.25, "parameter_invalid"),
        ("original_amount", "100", "parameter_invalid"),
        ("original_amount", 2**63, "parameter_invalid"),
        ("retainage_pct", 101, "parameter_invalid"),
        ("type", "handshake", "parameter_invalid"),
        ("status", "executed", "parameter_read_only"),
        ("billed_to_date", 0, "parameter_read_only"),
        ("remaining", 0, "parameter_read_only"),
        ("scope", "all", "parameter_unknown"),
    ],
)
def test_create_refuses_bad_fields(api, job, field, value, code):
    before = db_state()
    resp = api.post("/v1/commitments", _payload(job, **{field: value}))
    assert resp.status_code == 400
    assert (error_of(resp)["code"], error_of(resp)["param"]) == (code, field)
    assert db_state() == before


@pytest.mark.parametrize("field", ["project", "vendor", "type", "original_amount"])
def test_create_requires_fields(api, job, field):
    payload = _payload(job)
    del payload[field]
    before = db_state()
    resp = api.post("/v1/commitments", payload)
    assert resp.status_code == 400
    assert (error_of(resp)["code"], error_of(resp)["param"]) == ("parameter_missing", field)
    assert db_state() == before


def test_list_filters(api, account, job):
    other_vendor = VendorFactory(account=account)
    other_code = CostCodeFactory(project=job["project"])
    other_project = ProjectFactory(account=account)
    common = {"project": job["project"], "vendor": job["vendor"], "cost_code": job["cost_code"]}
    a = CommitmentFactory(**common, executed=True)
    b = CommitmentFactory(**{**common, "vendor": other_vendor})
    c = CommitmentFactory(**{**common, "cost_code": other_code}, type="purchase_order")
    d = CommitmentFactory(project=other_project, vendor=job["vendor"])

    def ids(**params):
        resp = api.get("/v1/commitments", params)
        assert resp.status_code == 200, resp.content
        return [x["id"] for x in resp.json()["data"]]

    assert ids() == [d.pk, c.pk, b.pk, a.pk]
    assert ids(project=job["project"].pk) == [c.pk, b.pk, a.pk]
    assert ids(vendor=job["vendor"].pk) == [d.pk, c.pk, a.pk]
    assert ids(status="executed") == [a.pk]
    assert ids(status="draft", project=job["project"].pk) == [c.pk, b.pk]
    assert ids(cost_code=other_code.pk) == [c.pk]
    assert ids(type="purchase_order") == [c.pk]
    bad = api.get("/v1/commitments", {"status": "signed"})
    assert bad.status_code == 400 and error_of(bad)["param"] == "status"
    unknown = api.get("/v1/commitments", {"color": "red"})
    assert unknown.status_code == 400 and error_of(unknown)["code"] == "parameter_unknown"


def test_retrieve_commitment(api, job):
    commitment = CommitmentFactory(
        project=job["project"], vendor=job["vendor"], cost_code=job["cost_code"]
    )
    data = api.get(f"/v1/commitments/{commitment.pk}").json()
    assert (data["id"], data["number"], data["status"]) == (commitment.pk, "SC-001", "draft")


def test_patch_draft(api, job):
    commitment = CommitmentFactory(
        project=job["project"], vendor=job["vendor"], cost_code=job["cost_code"]
    )
    new_code = CostCodeFactory(project=job["project"])
    resp = api.patch(
        f"/v1/commitments/{commitment.pk}",
        {
            "number": "SC-100",
            "original_amount": 61_000_00,
            "retainage_pct": 5,
            "cost_code": new_code.pk,
            "description": "Revised scope",
        },
    )
    assert resp.status_code == 200, resp.content
    data = resp.json()
    assert (data["number"], data["original_amount"], data["revised_amount"]) == (
        "SC-100",
        61_000_00,
        61_000_00,
    )
    assert (data["remaining"], data["retainage_pct"], data["cost_code"]) == (
        61_000_00,
        5,
        new_code.pk,
    )
    assert data["description"] == "Revised scope"
    commitment.refresh_from_db()
    assert (commitment.original_amount, commitment.cost_code_id) == (61_000_00, new_code.pk)


def test_patch_draft_can_clear_the_cost_code(api, job):
    commitment = CommitmentFactory(
        project=job["project"], vendor=job["vendor"], cost_code=job["cost_code"]
    )
    resp = api.patch(f"/v1/commitments/{commitment.pk}", {"cost_code": None})
    assert resp.status_code == 200, resp.content
    assert resp.json()["cost_code"] is None


@pytest.mark.parametrize(
    "field,value",
    [("vendor", "vnd_x"), ("type", "purchase_order"), ("project", "prj_x"), ("status", "executed")],
)
def test_patch_fixed_fields_are_read_only(api, job, field, value):
    commitment = CommitmentFactory(project=job["project"], vendor=job["vendor"])
    before = db_state()
    resp = api.patch(f"/v1/commitments/{commitment.pk}", {field: value})
    assert resp.status_code == 400
    assert (error_of(resp)["code"], error_of(resp)["param"]) == ("parameter_read_only", field)
    assert db_state() == before


def test_patch_to_a_used_number_is_409(api, job):
    common = {"project": job["project"], "vendor": job["vendor"]}
    CommitmentFactory(**common, number="SC-050")
    commitment = CommitmentFactory(**common)
    before = db_state()
    resp = api.patch(f"/v1/commitments/{commitment.pk}", {"number": "SC-050"})
    assert resp.status_code == 409
    assert (error_of(resp)["code"], error_of(resp)["param"]) == (
        "resource_already_exists",
        "number",
    )
    assert db_state() == before


def test_patch_draft_to_cost_code_of_another_project_is_400(api, account, job):
    commitment = CommitmentFactory(project=job["project"], vendor=job["vendor"])
    other_code = CostCodeFactory(project=ProjectFactory(account=account))
    before = db_state()
    resp = api.patch(f"/v1/commitments/{commitment.pk}", {"cost_code": other_code.pk})
    assert resp.status_code == 400
    assert error_of(resp)["param"] == "cost_code"
    assert db_state() == before


@pytest.mark.parametrize("transition", ["execute", "close", "void"])
def test_patch_outside_draft_is_409(api, job, transition):
    commitment = CommitmentFactory(
        project=job["project"], vendor=job["vendor"], cost_code=job["cost_code"]
    )
    for step in {"execute": ["execute"], "close": ["execute", "close"], "void": ["void"]}[
        transition
    ]:
        assert api.post(f"/v1/commitments/{commitment.pk}/{step}", {}).status_code == 200
    before = db_state()
    resp = api.patch(f"/v1/commitments/{commitment.pk}", {"original_amount": 1_00})
    assert resp.status_code == 409
    error = error_of(resp)
    assert (error["code"], error["object"]) == ("invalid_state_transition", commitment.pk)
    assert db_state() == before
