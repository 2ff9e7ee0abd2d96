"""Vendor invoices through the API: receive against an executed commitment, code, approve
(draws the commitment down, posts cost, computes retainage, requests a lien waiver), mark
paid, void (docs/resources.md, invoice).

The job (tests.factories.make_job): executed subcontract SC-001 of 1,000,000 cents on 03-000
at 10 % retainage, vendor "Acme Concrete"; budget 03-000 4,500,000."""

import pytest

from audit.models import AuditEntry
from jobcost.models import Invoice, LienWaiver
from tests.conftest import error_of
from tests.factories import CommitmentFactory, VendorFactory, make_invoice, make_job


@pytest.fixture
def job(account):
    return make_job(account)


def receive(api, commitment, amount, number="INV-1", invoice_date="2026-11-02"):
    return api.post(
        "/v1/invoices",
        {
            "commitment": commitment.pk,
            "number": number,
            "invoice_date": invoice_date,
            "amount": amount,
        },
    )


def code(api, invoice_id, *lines):
    return api.patch(
        f"/v1/invoices/{invoice_id}",
        {"lines": [{"cost_code": cc.pk, "amount": amount} for cc, amount in lines]},
    )


def actions(api, invoice_id):
    return [e["action"] for e in api.get(f"/v1/invoices/{invoice_id}/audit").json()["data"]]


def test_receive_copies_retainage_and_rounds_half_away_from_zero(api, job):
    """12,345 × 10 % = 1,234.5 → 1,235 (half away from zero); net 12,345 − 1,235 = 11,110."""
    response = receive(api, job.commitment, 12_345)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["id"].startswith("inv_") and body["object"] == "invoice"
    assert (body["status"], body["vendor"], body["project"]) == (
        "received",
        job.vendor.pk,
        job.project.pk,
    )
    assert (body["retainage_pct"], body["retainage_amount"], body["net_amount"]) == (
        10,
        1_235,
        11_110,
    )
    assert body["lines"] == [] and body["pay_app"] is None
    assert actions(api, body["id"]) == ["created"]


def test_retainage_at_a_fractional_rate(api, account):
    """Commitment at 7.5 %: 333 × 7.5 % = 24.975 → 25; 20 × 7.5 % = 1.5 → 2 (half up)."""
    job = make_job(account)
    commitment = CommitmentFactory(
        project=job.project,
        vendor=job.vendor,
        cost_code=job.codes["09-000"],
        original_amount=10_000,
        retainage_pct="7.5",
        executed=True,
    )
    first = receive(api, commitment, 333, number="F-1").json()
    second = receive(api, commitment, 20, number="F-2").json()
    assert (first["retainage_amount"], first["net_amount"]) == (25, 308)
    assert (second["retainage_amount"], second["net_amount"]) == (2, 18)


def test_amount_over_the_remaining_balance_is_refused(api, job):
    """1,000,000 committed, 700,000 approved → 300,000 remaining: 300,001 is refused."""
    make_invoice(job.commitment, amount=700_000, number="A-1", status="approved")
    audit_before = AuditEntry.objects.count()
    response = receive(api, job.commitment, 300_001)
    assert response.status_code == 422
    assert (error_of(response)["code"], error_of(response)["param"]) == (
        "exceeds_commitment",
        "amount",
    )
    assert Invoice.objects.count() == 1 and AuditEntry.objects.count() == audit_before
    assert receive(api, job.commitment, 300_000).status_code == 201


def test_duplicate_number_per_vendor(api, job, account):
    assert receive(api, job.commitment, 1_000, number="77").status_code == 201
    again = receive(api, job.commitment, 2_000, number="77")
    assert again.status_code == 409
    assert (error_of(again)["code"], error_of(again)["param"]) == ("duplicate_invoice", "number")
    other_vendor = CommitmentFactory(
        project=job.project,
        vendor=VendorFactory(account=account),
        cost_code=job.codes["09-000"],
        executed=True,
    )
    assert receive(api, other_vendor, 1_000, number="77").status_code == 201
    assert Invoice.objects.filter(number="77").count() == 2


@pytest.mark.parametrize("state", ["draft", "closed"])
def test_commitment_must_be_executed(api, job, state):
    commitment = CommitmentFactory(project=job.project, vendor=job.vendor, executed=True)
    if state == "draft":
        commitment = CommitmentFactory(project=job.project, vendor=job.vendor)
    else:
        assert api.post(f"/v1/commitments/{commitment.pk}/close").status_code == 200
    response = receive(api, commitment, 1_000)
    assert response.status_code == 409
    assert error_of(response)["code"] == "commitment_not_executed"
    assert Invoice.objects.count() == 0


def test_coding_by_patch(api, job):
    """60,000 split 45,000 to 03-000 and 15,000 to 09-000; a split summing to 59,999 is 422."""
    invoice = receive(api, job.commitment, 60_000).json()
    bad = code(api, invoice["id"], (job.codes["03-000"], 59_999))
    assert bad.status_code == 422
    assert (error_of(bad)["code"], error_of(bad)["param"]) == ("lines_sum_mismatch", "lines")
    assert Invoice.objects.get(pk=invoice["id"]).status == "received"
    coded = code(api, invoice["id"], (job.codes["03-000"], 45_000), (job.codes["09-000"], 15_000))
    assert coded.status_code == 200, coded.content
    assert coded.json()["status"] == "coded"
    assert coded.json()["lines"] == [
        {"cost_code": job.codes["03-000"].pk, "amount": 45_000},
        {"cost_code": job.codes["09-000"].pk, "amount": 15_000},
    ]
    assert actions(api, invoice["id"]) == ["created", "coded"]


def test_approve_posts_cost_draws_down_and_requests_a_waiver(api, job):
    """60,000 (45,000 on 03-000, 15,000 on 09-000): SC-001 billed 60,000, remaining
    940,000; actual 03-000 45,000, 09-000 15,000; a requested conditional progress waiver
    for 60,000 through the invoice date."""
    invoice = receive(api, job.commitment, 60_000, invoice_date="2026-11-14").json()
    uncoded = api.post(f"/v1/invoices/{invoice['id']}/approve")
    assert uncoded.status_code == 409 and error_of(uncoded)["code"] == "invalid_state_transition"
    assert LienWaiver.objects.count() == 0
    code(api, invoice["id"], (job.codes["03-000"], 45_000), (job.codes["09-000"], 15_000))
    approved = api.post(f"/v1/invoices/{invoice['id']}/approve")
    assert approved.status_code == 200, approved.content
    assert approved.json()["status"] == "approved" and approved.json()["approved_at"]
    commitment = api.get(f"/v1/commitments/{job.commitment.pk}").json()
    assert (commitment["billed_to_date"], commitment["remaining"]) == (60_000, 940_000)
    actual = {
        line["cost_code"]: line["actual"]
        for line in api.get("/v1/budgets", {"project": job.project.pk}).json()["data"]
    }
    assert actual == {
        job.codes["01-000"].pk: 0,
        job.codes["03-000"].pk: 45_000,
        job.codes["09-000"].pk: 15_000,
    }
    waivers = api.get("/v1/lien-waivers", {"invoice": invoice["id"]}).json()["data"]
    assert len(waivers) == 1
    waiver = waivers[0]
    assert (waiver["type"], waiver["status"], waiver["amount"]) == (
        "conditional_progress",
        "requested",
        60_000,
    )
    assert (waiver["vendor"], waiver["commitment"], waiver["through_date"]) == (
        job.vendor.pk,
        job.commitment.pk,
        "2026-11-14",
    )
    assert actions(api, invoice["id"]) == ["created", "coded", "approved"]
    trail = api.get(f"/v1/lien-waivers/{waiver['id']}/audit").json()["data"]
    assert [e["action"] for e in trail] == ["requested"]


def test_approval_rechecks_the_balance(api, job):
    """Two invoices of 600,000 each fit 1,000,000 when received; once the first is approved
    only 400,000 remains, so the second approval is 422 and writes nothing."""
    first = make_invoice(job.commitment, amount=600_000, number="B-1", status="coded")
    second = make_invoice(job.commitment, amount=600_000, number="B-2", status="coded")
    assert api.post(f"/v1/invoices/{first.pk}/approve").status_code == 200
    audit_before = AuditEntry.objects.count()
    response = api.post(f"/v1/invoices/{second.pk}/approve")
    assert response.status_code == 422
    assert (error_of(response)["code"], error_of(response)["param"]) == (
        "exceeds_commitment",
        "amount",
    )
    assert Invoice.objects.get(pk=second.pk).status == "coded"
    assert LienWaiver.objects.count() == 1 and AuditEntry.objects.count() == audit_before
    assert api.get(f"/v1/commitments/{job.commitment.pk}").json()["billed_to_date"] == 600_000
    budget = api.get("/v1/budgets", {"cost_code": job.codes["03-000"].pk}).json()["data"][0]
    assert budget["actual"] == 600_000


def test_mark_paid_keeps_the_billing(api, job):
    invoice = make_invoice(job.commitment, amount=50_000, number="P-1", status="coded")
    early = api.post(f"/v1/invoices/{invoice.pk}/mark-paid")
    assert early.status_code == 409 and error_of(early)["code"] == "invalid_state_transition"
    api.post(f"/v1/invoices/{invoice.pk}/approve")
    paid = api.post(f"/v1/invoices/{invoice.pk}/mark-paid")
    assert paid.status_code == 200 and paid.json()["status"] == "paid" and paid.json()["paid_at"]
    assert actions(api, invoice.pk) == ["created", "coded", "approved", "paid"]
    commitment = api.get(f"/v1/commitments/{job.commitment.pk}").json()
    assert (commitment["billed_to_date"], commitment["remaining"]) == (50_000, 950_000)
    assert api.post(f"/v1/invoices/{invoice.pk}/mark-paid").status_code == 409


@pytest.mark.parametrize("state", ["received", "coded"])
def test_void_before_approval(api, job, state):
    invoice = make_invoice(job.commitment, amount=50_000, number="V-1", status=state)
    voided = api.post(f"/v1/invoices/{invoice.pk}/void")
    assert voided.status_code == 200 and voided.json()["status"] == "void"
    assert actions(api, invoice.pk)[-1] == "voided"
    assert api.post(f"/v1/invoices/{invoice.pk}/approve").status_code == 409


@pytest.mark.parametrize("state", ["approved", "paid"])
def test_void_refused_once_approved(api, job, state):
    invoice = make_invoice(job.commitment, amount=50_000, number="V-2", status=state)
    audit_before = AuditEntry.objects.count()
    response = api.post(f"/v1/invoices/{invoice.pk}/void")
    assert response.status_code == 409
    assert error_of(response)["code"] == "invalid_state_transition"
    assert Invoice.objects.get(pk=invoice.pk).status == state
    assert AuditEntry.objects.count() == audit_before
    assert api.get(f"/v1/commitments/{job.commitment.pk}").json()["billed_to_date"] == 50_000


def test_approved_invoice_cannot_be_recoded(api, job):
    invoice = make_invoice(job.commitment, amount=50_000, number="R-1", status="approved")
    response = code(api, invoice.pk, (job.codes["09-000"], 50_000))
    assert response.status_code == 409
    assert Invoice.objects.get(pk=invoice.pk).lines.get().cost_code_id == job.codes["03-000"].pk
