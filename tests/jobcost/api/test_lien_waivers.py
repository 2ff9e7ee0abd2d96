"""Lien waivers through the API: four types, requested by POST or on invoice approval,
received by PATCH, and a pay app's `lien_waivers_missing` (docs/resources.md, lien_waiver,
pay_app)."""

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from jobcost.models import LienWaiver
from tests.conftest import error_of
from tests.factories import (
    CommitmentFactory,
    VendorFactory,
    make_invoice,
    make_job,
    make_pay_app,
)

TYPES = [
    "conditional_progress",
    "unconditional_progress",
    "conditional_final",
    "unconditional_final",
]


@pytest.fixture
def job(account):
    return make_job(account)


def request_waiver(api, job, vendor=None, through_date="2026-01-31", **extra):
    return api.post(
        "/v1/lien-waivers",
        {
            "project": job.project.pk,
            "vendor": (vendor or job.vendor).pk,
            "type": "conditional_progress",
            "amount": 125_000,
            "through_date": through_date,
            **extra,
        },
    )


def actions(api, waiver_id):
    return [e["action"] for e in api.get(f"/v1/lien-waivers/{waiver_id}/audit").json()["data"]]


@pytest.mark.parametrize("waiver_type", TYPES)
def test_request_each_type(api, job, waiver_type):
    response = request_waiver(api, job, type=waiver_type, commitment=job.commitment.pk)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["id"].startswith("lw_") and body["object"] == "lien_waiver"
    assert (body["type"], body["status"], body["amount"]) == (waiver_type, "requested", 125_000)
    assert (body["vendor"], body["commitment"], body["invoice"]) == (
        job.vendor.pk,
        job.commitment.pk,
        None,
    )
    assert (body["received_on"], body["document_url"], body["pay_app"]) == (None, "", None)
    assert actions(api, body["id"]) == ["requested"]


def test_unknown_type_and_foreign_commitment_are_refused(api, job, account):
    bad_type = request_waiver(api, job, type="partial")
    assert bad_type.status_code == 400 and error_of(bad_type)["param"] == "type"
    other_vendor = VendorFactory(account=account)
    wrong = request_waiver(api, job, vendor=other_vendor, commitment=job.commitment.pk)
    assert wrong.status_code == 400 and error_of(wrong)["param"] == "commitment"
    assert LienWaiver.objects.count() == 0


def test_receipt_by_patch(api, job):
    waiver = request_waiver(api, job).json()
    received = api.patch(
        f"/v1/lien-waivers/{waiver['id']}",
        {
            "status": "received",
            "received_on": "2026-02-03",
            "document_url": "https://files.example.com/lw/1.pdf",
        },
    )
    assert received.status_code == 200, received.content
    body = received.json()
    assert (body["status"], body["received_on"], body["document_url"]) == (
        "received",
        "2026-02-03",
        "https://files.example.com/lw/1.pdf",
    )
    assert actions(api, waiver["id"]) == ["requested", "received"]
    audit_before = AuditEntry.objects.count()
    back = api.patch(f"/v1/lien-waivers/{waiver['id']}", {"status": "rejected"})
    assert back.status_code == 409 and error_of(back)["code"] == "invalid_state_transition"
    assert LienWaiver.objects.get(pk=waiver["id"]).status == "received"
    assert AuditEntry.objects.count() == audit_before


def test_status_cannot_be_set_back_to_requested(api, job):
    waiver = request_waiver(api, job).json()
    response = api.patch(f"/v1/lien-waivers/{waiver['id']}", {"status": "requested"})
    assert response.status_code == 400 and error_of(response)["param"] == "status"


def test_rejected_waiver_can_be_received_later_dated_today_by_default(api, job):
    """A vendor's defective waiver is rejected, then a corrected one is received;
    `received_on` defaults to the day it is recorded."""
    waiver = request_waiver(api, job).json()
    rejected = api.patch(f"/v1/lien-waivers/{waiver['id']}", {"status": "rejected"})
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    received = api.patch(f"/v1/lien-waivers/{waiver['id']}", {"status": "received"})
    assert received.json()["received_on"] == timezone.localdate().isoformat()
    assert actions(api, waiver["id"]) == ["requested", "rejected", "received"]


def test_pay_app_lists_vendors_missing_waivers_for_its_period(api, job, account):
    """Period 2026-01-01..01-31. Acme: a waiver through 01-15 (requested) and one through
    02-10 (outside). Beta: a waiver through 01-31 (requested). Gamma: received in period.
    Missing: Acme and Beta; after Acme's receipt, Beta only; then none."""
    beta = VendorFactory(account=account, name="Beta Electric")
    gamma = VendorFactory(account=account, name="Gamma Glass")
    acme_jan = request_waiver(api, job, through_date="2026-01-15").json()
    request_waiver(api, job, through_date="2026-02-10")
    beta_jan = request_waiver(api, job, vendor=beta, through_date="2026-01-31").json()
    gamma_jan = request_waiver(api, job, vendor=gamma, through_date="2026-01-01").json()
    api.patch(f"/v1/lien-waivers/{gamma_jan['id']}", {"status": "received"})
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    read = api.get(f"/v1/pay-apps/{pay_app.pk}").json()
    assert read["lien_waivers_missing"] == sorted([job.vendor.pk, beta.pk])
    assert api.get(f"/v1/lien-waivers/{acme_jan['id']}").json()["pay_app"] == pay_app.pk
    api.patch(f"/v1/lien-waivers/{acme_jan['id']}", {"status": "received"})
    assert api.get(f"/v1/pay-apps/{pay_app.pk}").json()["lien_waivers_missing"] == [beta.pk]
    api.patch(f"/v1/lien-waivers/{beta_jan['id']}", {"status": "received"})
    assert api.get(f"/v1/pay-apps/{pay_app.pk}").json()["lien_waivers_missing"] == []


def test_invoice_approval_waiver_counts_for_the_period_holding_the_invoice_date(api, job):
    """An invoice of 2026-01-20 approved: its vendor's waiver is missing on January's pay app
    (and the waiver's and invoice's `pay_app` is that pay app)."""
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    invoice = make_invoice(
        job.commitment, amount=40_000, number="J-1", invoice_date="2026-01-20", status="approved"
    )
    assert api.get(f"/v1/pay-apps/{pay_app.pk}").json()["lien_waivers_missing"] == [job.vendor.pk]
    waiver = api.get("/v1/lien-waivers", {"invoice": invoice.pk}).json()["data"][0]
    assert (waiver["pay_app"], waiver["through_date"]) == (pay_app.pk, "2026-01-20")
    assert api.get(f"/v1/invoices/{invoice.pk}").json()["pay_app"] == pay_app.pk


def test_list_filters(api, job, account):
    other = CommitmentFactory(
        project=job.project, vendor=VendorFactory(account=account), executed=True
    )
    mine = request_waiver(api, job).json()
    request_waiver(api, job, vendor=other.vendor, commitment=other.pk, type="unconditional_final")
    by_vendor = api.get("/v1/lien-waivers", {"vendor": job.vendor.pk}).json()["data"]
    assert [w["id"] for w in by_vendor] == [mine["id"]]
    finals = api.get("/v1/lien-waivers", {"type": "unconditional_final"}).json()["data"]
    assert [w["commitment"] for w in finals] == [other.pk]
    assert api.get("/v1/lien-waivers", {"status": "received"}).json()["data"] == []
