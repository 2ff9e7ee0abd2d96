"""Pay app lifecycle through the API: next-numbered draft, one draft per project, periods
that do not overlap, a balanced schedule of values, submit with the lien-waiver rule, reject
back to draft (unlocking the period), approve, mark paid (docs/resources.md, pay_app).

The job (tests.factories.make_job): contract 10,000,000 cents; scheduled values 01-000
2,000,000, 03-000 5,000,000, 09-000 3,000,000 (Σ = the contract)."""

import pytest

from audit.models import AuditEntry
from jobcost.models import Invoice, PayApp
from tests.conftest import error_of
from tests.factories import CostCodeFactory, make_invoice, make_job, make_pay_app


@pytest.fixture
def job(account):
    return make_job(account)


def create(api, job, start, end, **extra):
    body = {"project": job.project.pk, "period_start": start, "period_end": end, **extra}
    return api.post("/v1/pay-apps", body)


def actions(api, pay_app_id):
    return [e["action"] for e in api.get(f"/v1/pay-apps/{pay_app_id}/audit").json()["data"]]


def test_create_next_numbered_draft(api, job):
    response = create(api, job, "2026-01-01", "2026-01-31")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["id"].startswith("pa_") and body["object"] == "pay_app"
    assert (body["number"], body["status"], body["retainage_pct"]) == (1, "draft", 10)
    assert (body["original_contract_sum"], body["contract_sum_to_date"]) == (
        10_000_000,
        10_000_000,
    )
    assert body["total_completed_and_stored"] == 0 and body["current_payment_due"] == 0
    assert body["lines_url"] == f"/v1/pay-apps/{body['id']}/lines"
    assert actions(api, body["id"]) == ["created"]
    api.post(f"/v1/pay-apps/{body['id']}/submit")
    second = create(api, job, "2026-02-01", "2026-02-28", retainage_pct=5)
    assert second.status_code == 201, second.content
    assert (second.json()["number"], second.json()["retainage_pct"]) == (2, 5)


def test_one_draft_per_project(api, job):
    first = create(api, job, "2026-01-01", "2026-01-31").json()
    audit_before = AuditEntry.objects.count()
    response = create(api, job, "2026-02-01", "2026-02-28")
    assert response.status_code == 409
    assert (error_of(response)["code"], error_of(response)["object"]) == (
        "draft_pay_app_exists",
        first["id"],
    )
    assert PayApp.objects.count() == 1 and AuditEntry.objects.count() == audit_before


@pytest.mark.parametrize(
    "start,end",
    [("2026-01-31", "2026-02-28"), ("2026-01-10", "2026-01-20"), ("2025-12-01", "2025-12-31")],
)
def test_periods_must_not_overlap(api, job, start, end):
    """After January: a period starting on its last day, inside it, or before it is refused
    (each new period starts after every earlier one)."""
    make_pay_app(job.project, "2026-01-01", "2026-01-31", status="submitted")
    response = create(api, job, start, end)
    assert response.status_code == 422
    assert error_of(response)["code"] == "periods_overlap"
    assert PayApp.objects.count() == 1
    assert create(api, job, "2026-02-01", "2026-02-28").status_code == 201


def test_schedule_of_values_must_equal_the_contract(api, job):
    """A fourth code of 1 cent makes Σ scheduled values 10,000,001 ≠ 10,000,000."""
    CostCodeFactory(project=job.project, code="99-000", scheduled_value=1, budget_amount=0)
    response = create(api, job, "2026-01-01", "2026-01-31")
    assert response.status_code == 422
    assert error_of(response)["code"] == "schedule_of_values_unbalanced"
    assert PayApp.objects.count() == 0


def test_period_end_before_start_is_refused(api, job):
    response = create(api, job, "2026-01-31", "2026-01-01")
    assert response.status_code == 400 and error_of(response)["param"] == "period_end"


def test_submit_refuses_missing_waivers_naming_the_vendors(api, job):
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    make_invoice(
        job.commitment, amount=10_000, number="W-1", invoice_date="2026-01-10", status="approved"
    )
    audit_before = AuditEntry.objects.count()
    response = api.post(f"/v1/pay-apps/{pay_app.pk}/submit")
    assert response.status_code == 422
    error = error_of(response)
    assert error["code"] == "lien_waivers_missing"
    assert "Acme Concrete" in error["message"] and job.vendor.pk in error["message"]
    assert PayApp.objects.get(pk=pay_app.pk).status == "draft"
    assert AuditEntry.objects.count() == audit_before


def test_submit_override_is_on_the_audit_trail(api, job):
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    make_invoice(
        job.commitment, amount=10_000, number="W-1", invoice_date="2026-01-10", status="approved"
    )
    response = api.post(f"/v1/pay-apps/{pay_app.pk}/submit", {"allow_missing_waivers": True})
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "submitted" and response.json()["submitted_at"]
    trail = api.get(f"/v1/pay-apps/{pay_app.pk}/audit").json()["data"]
    assert [e["action"] for e in trail] == ["created", "submitted", "waiver_override"]
    assert "Acme Concrete" in trail[1]["note"]
    assert trail[2]["changes"] == {
        "lien_waivers_missing": {"before": None, "after": [job.vendor.pk]}
    }
    assert trail[2]["actor"]["type"] == "api_key"


def test_submit_with_waivers_received_needs_no_flag(api, job):
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    invoice = make_invoice(
        job.commitment, amount=10_000, number="W-1", invoice_date="2026-01-10", status="approved"
    )
    waiver = invoice.lien_waivers.get()
    api.patch(f"/v1/lien-waivers/{waiver.pk}", {"status": "received"})
    response = api.post(f"/v1/pay-apps/{pay_app.pk}/submit")
    assert response.status_code == 200 and response.json()["lien_waivers_missing"] == []
    assert actions(api, pay_app.pk) == ["created", "submitted"]


def test_submit_locks_the_period_and_reject_unlocks_it(api, job):
    """After submit: PATCH → 422 period_locked, an invoice dated in the period → 422
    period_locked. Rejected (with a reason) back to draft: both work again."""
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    assert api.post(f"/v1/pay-apps/{pay_app.pk}/submit").status_code == 200
    locked = api.patch(f"/v1/pay-apps/{pay_app.pk}", {"lines": [{"item": "1", "this_period": 1}]})
    assert locked.status_code == 422 and error_of(locked)["code"] == "period_locked"
    invoice_body = {
        "commitment": job.commitment.pk,
        "number": "L-1",
        "invoice_date": "2026-01-31",
        "amount": 5_000,
    }
    refused = api.post("/v1/invoices", invoice_body)
    assert refused.status_code == 422
    assert (error_of(refused)["code"], error_of(refused)["param"]) == (
        "period_locked",
        "invoice_date",
    )
    assert Invoice.objects.count() == 0
    outside = api.post(
        "/v1/invoices", {**invoice_body, "number": "L-0", "invoice_date": "2026-02-01"}
    )
    assert outside.status_code == 201
    moved = api.patch(f"/v1/invoices/{outside.json()['id']}", {"invoice_date": "2026-01-15"})
    assert moved.status_code == 422 and error_of(moved)["code"] == "period_locked"

    no_reason = api.post(f"/v1/pay-apps/{pay_app.pk}/reject")
    assert no_reason.status_code == 400 and error_of(no_reason)["param"] == "reason"
    rejected = api.post(f"/v1/pay-apps/{pay_app.pk}/reject", {"reason": "Concrete overstated"})
    assert rejected.status_code == 200, rejected.content
    assert (rejected.json()["status"], rejected.json()["rejection_reason"]) == (
        "draft",
        "Concrete overstated",
    )
    assert rejected.json()["submitted_at"] is None
    trail = api.get(f"/v1/pay-apps/{pay_app.pk}/audit").json()["data"]
    assert [e["action"] for e in trail] == ["created", "submitted", "rejected"]
    assert trail[-1]["note"] == "Concrete overstated"
    entered = api.patch(
        f"/v1/pay-apps/{pay_app.pk}", {"lines": [{"item": "1", "this_period": 100_000}]}
    )
    assert entered.status_code == 200 and entered.json()["total_completed_and_stored"] == 100_000
    assert api.post("/v1/invoices", invoice_body).status_code == 201


def test_approve_then_mark_paid(api, job):
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31", status="submitted")
    approved = api.post(f"/v1/pay-apps/{pay_app.pk}/approve")
    assert approved.status_code == 200 and approved.json()["status"] == "approved"
    assert approved.json()["approved_at"]
    paid = api.post(f"/v1/pay-apps/{pay_app.pk}/mark-paid")
    assert paid.status_code == 200 and paid.json()["status"] == "paid" and paid.json()["paid_at"]
    assert actions(api, pay_app.pk) == ["created", "submitted", "approved", "paid"]


@pytest.mark.parametrize(
    "state,step",
    [
        ("draft", "approve"),
        ("draft", "reject"),
        ("draft", "mark-paid"),
        ("submitted", "submit"),
        ("submitted", "mark-paid"),
        ("approved", "submit"),
        ("approved", "approve"),
        ("approved", "reject"),
    ],
)
def test_illegal_transitions_are_409(api, job, state, step):
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31", status=state)
    audit_before = AuditEntry.objects.count()
    body = {"reason": "x"} if step == "reject" else {}
    response = api.post(f"/v1/pay-apps/{pay_app.pk}/{step}", body)
    assert response.status_code == 409
    assert error_of(response)["code"] == "invalid_state_transition"
    assert PayApp.objects.get(pk=pay_app.pk).status == state
    assert AuditEntry.objects.count() == audit_before


def test_only_the_latest_submitted_pay_app_can_be_rejected(api, job):
    first = make_pay_app(job.project, "2026-01-01", "2026-01-31", status="submitted")
    make_pay_app(job.project, "2026-02-01", "2026-02-28")
    response = api.post(f"/v1/pay-apps/{first.pk}/reject", {"reason": "late"})
    assert response.status_code == 409
    assert PayApp.objects.get(pk=first.pk).status == "submitted"


def test_list_paginates_newest_first_and_filters(api, job):
    ids = []
    for month in range(1, 5):
        status = "draft" if month == 4 else "approved"
        pay_app = make_pay_app(
            job.project, f"2026-{month:02d}-01", f"2026-{month:02d}-28", status=status
        )
        ids.append(pay_app.pk)
    page = api.get("/v1/pay-apps", {"limit": 3}).json()
    assert [p["id"] for p in page["data"]] == ids[::-1][:3] and page["has_more"] is True
    rest = api.get("/v1/pay-apps", {"limit": 3, "cursor": page["next_cursor"]}).json()
    assert [p["id"] for p in rest["data"]] == [ids[0]] and rest["has_more"] is False
    drafts = api.get("/v1/pay-apps", {"status": "draft", "project": job.project.pk}).json()
    assert [p["id"] for p in drafts["data"]] == [ids[3]]
    assert api.get("/v1/pay-apps", {"limit": 0}).status_code == 400
