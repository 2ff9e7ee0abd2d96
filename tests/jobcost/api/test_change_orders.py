"""Change orders through the API: lines that sum to the amount, the state machine
draft → pending → approved | rejected | void, and what approval moves (docs/resources.md,
change_order).

The job (tests.factories.make_job): contract 10,000,000 cents; budget 03-000 4,500,000;
executed subcontract SC-001 of 1,000,000 on 03-000 (so 03-000 committed = 1,000,000)."""

import pytest

from audit.models import AuditEntry
from jobcost.models import ChangeOrder
from tests.conftest import error_of
from tests.factories import (
    CommitmentFactory,
    make_change_order,
    make_invoice,
    make_job,
    make_pay_app,
)


@pytest.fixture
def job(account):
    return make_job(account)


def actions(api, change_order_id):
    trail = api.get(f"/v1/change-orders/{change_order_id}/audit").json()["data"]
    return [entry["action"] for entry in trail]


def owner_body(job, amount, **line):
    return {
        "project": job.project.pk,
        "kind": "owner",
        "title": "Added footing",
        "amount": amount,
        "lines": [{"cost_code": job.codes["03-000"].pk, "amount": amount, **line}],
    }


def budget_of(api, cost_code):
    return api.get("/v1/budgets", {"cost_code": cost_code.pk}).json()["data"][0]


def test_create_owner_change_order_defaults_budget_amount_to_amount(api, job):
    response = api.post("/v1/change-orders", owner_body(job, 250_000, description="Footing"))
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["id"].startswith("co_") and body["object"] == "change_order"
    assert (body["number"], body["status"], body["kind"]) == ("CO-001", "draft", "owner")
    assert (body["amount"], body["commitment"], body["pay_app"]) == (250_000, None, None)
    assert body["lines"] == [
        {
            "cost_code": job.codes["03-000"].pk,
            "description": "Footing",
            "amount": 250_000,
            "budget_amount": 250_000,
        }
    ]
    assert actions(api, body["id"]) == ["created"]


def test_lines_that_do_not_sum_to_the_amount_are_refused(api, job):
    body = owner_body(job, 250_000)
    body["lines"].append({"cost_code": job.codes["09-000"].pk, "amount": 1})
    audit_before = AuditEntry.objects.count()
    response = api.post("/v1/change-orders", body)
    assert response.status_code == 422
    error = error_of(response)
    assert (error["code"], error["param"]) == ("lines_sum_mismatch", "lines")
    assert ChangeOrder.objects.count() == 0
    assert AuditEntry.objects.count() == audit_before


def test_patch_lines_must_still_sum_and_only_in_draft(api, job):
    co = api.post("/v1/change-orders", owner_body(job, 250_000)).json()
    bad = api.patch(f"/v1/change-orders/{co['id']}", {"amount": 300_000})
    assert bad.status_code == 422 and error_of(bad)["code"] == "lines_sum_mismatch"
    split = [
        {"cost_code": job.codes["03-000"].pk, "amount": 200_000},
        {"cost_code": job.codes["09-000"].pk, "amount": 100_000, "budget_amount": 90_000},
    ]
    ok = api.patch(f"/v1/change-orders/{co['id']}", {"amount": 300_000, "lines": split})
    assert ok.status_code == 200, ok.content
    assert [(ln["amount"], ln["budget_amount"]) for ln in ok.json()["lines"]] == [
        (200_000, 200_000),
        (100_000, 90_000),
    ]
    api.post(f"/v1/change-orders/{co['id']}/submit")
    late = api.patch(f"/v1/change-orders/{co['id']}", {"title": "Too late"})
    assert late.status_code == 409 and error_of(late)["code"] == "invalid_state_transition"
    assert ChangeOrder.objects.get(pk=co["id"]).title == "Added footing"


def test_commitment_kind_needs_its_commitment_and_owner_kind_takes_none(api, job):
    missing = api.post("/v1/change-orders", {**owner_body(job, 1_000), "kind": "commitment"})
    assert missing.status_code == 400
    assert (error_of(missing)["code"], error_of(missing)["param"]) == (
        "parameter_missing",
        "commitment",
    )
    extra = api.post(
        "/v1/change-orders", {**owner_body(job, 1_000), "commitment": job.commitment.pk}
    )
    assert extra.status_code == 400 and error_of(extra)["param"] == "commitment"
    assert ChangeOrder.objects.count() == 0


def test_submit_then_reject_with_reason(api, job):
    co = api.post("/v1/change-orders", owner_body(job, 10_000)).json()
    early = api.post(f"/v1/change-orders/{co['id']}/reject", {"reason": "No"})
    assert early.status_code == 409 and error_of(early)["code"] == "invalid_state_transition"
    submitted = api.post(f"/v1/change-orders/{co['id']}/submit")
    assert submitted.json()["status"] == "pending" and submitted.json()["submitted_at"]
    again = api.post(f"/v1/change-orders/{co['id']}/submit")
    assert again.status_code == 409
    rejected = api.post(f"/v1/change-orders/{co['id']}/reject", {"reason": "Owner declined"})
    assert rejected.status_code == 200, rejected.content
    assert (rejected.json()["status"], rejected.json()["rejection_reason"]) == (
        "rejected",
        "Owner declined",
    )
    assert actions(api, co["id"]) == ["created", "submitted", "rejected"]
    assert api.post(f"/v1/change-orders/{co['id']}/approve").status_code == 409
    assert api.get(f"/v1/projects/{job.project.pk}").json()["approved_changes"] == 0


@pytest.mark.parametrize("state", ["void", "approved", "rejected"])
def test_approve_refuses_a_closed_out_change_order(api, job, state):
    """Approving twice, or a void or rejected change order, is 409 and moves nothing:
    approved_changes stays at what the first approval (if any) put there."""
    co = make_change_order(job.project, cost_code=job.codes["03-000"], amount=70_000)
    if state == "void":
        assert api.post(f"/v1/change-orders/{co.pk}/void").json()["status"] == "void"
    elif state == "rejected":
        api.post(f"/v1/change-orders/{co.pk}/submit")
        api.post(f"/v1/change-orders/{co.pk}/reject")
    else:
        assert api.post(f"/v1/change-orders/{co.pk}/approve").status_code == 200
    expected = 70_000 if state == "approved" else 0
    audit_before = AuditEntry.objects.count()
    response = api.post(f"/v1/change-orders/{co.pk}/approve")
    assert response.status_code == 409
    assert error_of(response)["code"] == "invalid_state_transition"
    assert ChangeOrder.objects.get(pk=co.pk).status == state
    assert api.get(f"/v1/projects/{job.project.pk}").json()["approved_changes"] == expected
    assert budget_of(api, job.codes["03-000"])["approved_changes"] == expected
    assert AuditEntry.objects.count() == audit_before


def test_void_from_draft_or_pending_only(api, job):
    pending = make_change_order(
        job.project, cost_code=job.codes["03-000"], amount=5_000, status="pending"
    )
    voided = api.post(f"/v1/change-orders/{pending.pk}/void")
    assert voided.json()["status"] == "void" and voided.json()["voided_at"]
    assert actions(api, pending.pk) == ["created", "submitted", "voided"]
    approved = make_change_order(
        job.project, cost_code=job.codes["03-000"], amount=5_000, status="approved"
    )
    refused = api.post(f"/v1/change-orders/{approved.pk}/void")
    assert refused.status_code == 409 and error_of(refused)["code"] == "invalid_state_transition"


def test_approving_an_owner_change_order_moves_contract_and_budgets(api, job, make_api):
    """+600,000 split 400,000 on 03-000 (budget +360,000) and 200,000 on 09-000 (budget
    default +200,000): revised_contract 10,000,000 + 600,000 = 10,600,000; budget 03-000
    revised 4,500,000 + 360,000 = 4,860,000; 09-000 2,700,000 + 200,000 = 2,900,000."""
    manager = make_api(job.project.account, "manager")
    body = owner_body(job, 600_000)
    body["lines"] = [
        {"cost_code": job.codes["03-000"].pk, "amount": 400_000, "budget_amount": 360_000},
        {"cost_code": job.codes["09-000"].pk, "amount": 200_000},
    ]
    co = api.post("/v1/change-orders", body).json()
    api.post(f"/v1/change-orders/{co['id']}/submit")
    approved = manager.post(f"/v1/change-orders/{co['id']}/approve")
    assert approved.status_code == 200, approved.content
    assert approved.json()["status"] == "approved" and approved.json()["approved_at"]
    assert approved.json()["approved_by"] == manager.key.pk
    assert approved.json()["pay_app"] is None  # no pay app yet: lands on the next one
    project = api.get(f"/v1/projects/{job.project.pk}").json()
    assert (project["approved_changes"], project["revised_contract"]) == (600_000, 10_600_000)
    concrete, finishes = budget_of(api, job.codes["03-000"]), budget_of(api, job.codes["09-000"])
    assert (concrete["approved_changes"], concrete["revised_amount"]) == (360_000, 4_860_000)
    assert (finishes["approved_changes"], finishes["revised_amount"]) == (200_000, 2_900_000)
    trail = api.get(f"/v1/change-orders/{co['id']}/audit").json()["data"]
    assert [e["action"] for e in trail] == ["created", "submitted", "approved"]
    assert trail[-1]["actor"] == {"type": "api_key", "id": manager.key.pk, "role": "manager"}
    project_trail = api.get(f"/v1/projects/{job.project.pk}/audit").json()["data"]
    assert project_trail[-1]["changes"]["approved_changes"] == {"before": 0, "after": 600_000}


def test_deductive_owner_change_order_reduces_contract_and_budget(api, job):
    """−300,000 on 09-000 (budget −250,000): revised_contract 9,700,000; budget 09-000
    revised 2,700,000 − 250,000 = 2,450,000."""
    body = owner_body(job, -300_000, budget_amount=-250_000)
    body["lines"][0]["cost_code"] = job.codes["09-000"].pk
    co = api.post("/v1/change-orders", body)
    assert co.status_code == 201, co.content
    assert api.post(f"/v1/change-orders/{co.json()['id']}/approve").status_code == 200
    project = api.get(f"/v1/projects/{job.project.pk}").json()
    assert (project["approved_changes"], project["revised_contract"]) == (-300_000, 9_700_000)
    finishes = budget_of(api, job.codes["09-000"])
    assert (finishes["approved_changes"], finishes["revised_amount"]) == (-250_000, 2_450_000)


def test_commitment_change_order_moves_the_commitment_not_the_contract(api, job):
    """SC-001 1,000,000 + 150,000 = 1,150,000 revised; budget 03-000 committed 1,150,000;
    the prime contract and the budget's approved_changes do not move."""
    body = {**owner_body(job, 150_000), "kind": "commitment", "commitment": job.commitment.pk}
    co = api.post("/v1/change-orders", body).json()
    assert (co["number"], co["commitment"]) == ("CCO-001", job.commitment.pk)
    assert api.post(f"/v1/change-orders/{co['id']}/approve").status_code == 200
    commitment = api.get(f"/v1/commitments/{job.commitment.pk}").json()
    assert (commitment["approved_changes"], commitment["revised_amount"]) == (150_000, 1_150_000)
    assert commitment["remaining"] == 1_150_000
    concrete = budget_of(api, job.codes["03-000"])
    assert (concrete["committed"], concrete["approved_changes"]) == (1_150_000, 0)
    assert api.get(f"/v1/projects/{job.project.pk}").json()["approved_changes"] == 0
    trail = api.get(f"/v1/commitments/{job.commitment.pk}/audit").json()["data"]
    assert trail[-1]["changes"]["approved_changes"] == {"before": 0, "after": 150_000}


def test_deduction_below_what_is_billed_is_refused_and_writes_nothing(api, job):
    """SC-001 1,000,000 with 800,000 billed: a −300,000 change would leave 700,000 < 800,000
    billed → 422 exceeds_commitment; −200,000 (to exactly 800,000) is fine."""
    make_invoice(job.commitment, amount=800_000, number="A-1", status="approved")
    too_far = make_change_order(
        job.project,
        cost_code=job.codes["03-000"],
        amount=-300_000,
        kind="commitment",
        commitment=job.commitment,
    )
    audit_before = AuditEntry.objects.count()
    response = api.post(f"/v1/change-orders/{too_far.pk}/approve")
    assert response.status_code == 422
    assert (error_of(response)["code"], error_of(response)["param"]) == (
        "exceeds_commitment",
        "amount",
    )
    assert ChangeOrder.objects.get(pk=too_far.pk).status == "draft"
    assert AuditEntry.objects.count() == audit_before
    assert budget_of(api, job.codes["03-000"])["committed"] == 1_000_000
    fits = make_change_order(
        job.project,
        cost_code=job.codes["03-000"],
        amount=-200_000,
        kind="commitment",
        commitment=job.commitment,
    )
    assert api.post(f"/v1/change-orders/{fits.pk}/approve").status_code == 200
    commitment = api.get(f"/v1/commitments/{job.commitment.pk}").json()
    assert (commitment["revised_amount"], commitment["remaining"]) == (800_000, 0)
    assert budget_of(api, job.codes["03-000"])["committed"] == 800_000


def test_commitment_change_order_needs_an_executed_commitment(api, job):
    draft = CommitmentFactory(project=job.project, vendor=job.vendor, original_amount=1_000)
    co = make_change_order(
        job.project,
        cost_code=job.codes["03-000"],
        amount=100,
        kind="commitment",
        commitment=draft,
    )
    response = api.post(f"/v1/change-orders/{co.pk}/approve")
    assert response.status_code == 409
    assert error_of(response)["code"] == "commitment_not_executed"
    assert ChangeOrder.objects.get(pk=co.pk).status == "draft"
    assert api.get(f"/v1/commitments/{draft.pk}").json()["approved_changes"] == 0


def test_a_custom_number_is_the_g703_item_but_digits_alone_are_refused(api, job):
    """Items "1", "2", "3" are the schedule of values; a change order numbered "2" would
    collide with one on the pay app, so digits alone are refused (400, param number)."""
    digits = api.post("/v1/change-orders", {**owner_body(job, 5_000), "number": "2"})
    assert digits.status_code == 400
    assert (error_of(digits)["code"], error_of(digits)["param"]) == ("parameter_invalid", "number")
    co = api.post("/v1/change-orders", {**owner_body(job, 5_000), "number": "PCO-7"}).json()
    renumber = api.patch(f"/v1/change-orders/{co['id']}", {"number": "3"})
    assert renumber.status_code == 400 and error_of(renumber)["param"] == "number"
    taken = api.post("/v1/change-orders", {**owner_body(job, 1), "number": "PCO-7"})
    assert taken.status_code == 409 and error_of(taken)["code"] == "resource_already_exists"
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    assert api.post(f"/v1/change-orders/{co['id']}/approve").json()["pay_app"] == pay_app.pk
    lines = api.get(f"/v1/pay-apps/{pay_app.pk}/lines").json()["data"]
    assert [line["item"] for line in lines] == ["1", "2", "3", "PCO-7"]
