"""Lien waivers in the back office: requested through `lien_waiver_create`, received or
rejected as actions through `lien_waiver_update`, as `PATCH /v1/lien-waivers/{id}` would."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from audit.models import AuditEntry
from jobcost.models import LienWaiver
from jobcost.services.lien_waivers import lien_waiver_create, lien_waiver_update
from tests.conftest import Api
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    VendorFactory,
    make_invoice,
    make_job,
    make_key,
    make_pay_app,
)
from tests.jobcost.admin.pages import (
    admin_url,
    errors_of,
    form_data,
    messages_of,
    readonly,
    results_text,
    run_list_action,
    text,
)

LIST = "/admin/jobcost/lienwaiver/"
ADD = "/admin/jobcost/lienwaiver/add/"


@pytest.fixture
def money(db):
    """`make_job`'s project; an approved $3,000.00 invoice dated 2026-02-10 has requested
    a conditional progress waiver from Acme Concrete."""
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    job.invoice = make_invoice(
        job.commitment, amount=300_000, number="A-1", invoice_date="2026-02-10", status="approved"
    )
    job.waiver = LienWaiver.objects.get(invoice=job.invoice)
    return job


def _act(web, action, *waivers):
    return run_list_action(web, LIST, action, waivers)


def _api(account) -> Api:
    _key, secret = make_key(account, "viewer")
    return Api(secret)


def test_list_shows_waivers_in_dollars_with_the_api_pay_app(web, money):
    pay_app = make_pay_app(money.project, "2026-02-01", "2026-02-28")
    other_vendor = VendorFactory(account=money.account, name="Summit Steel")
    final = lien_waiver_create(
        project=money.project,
        vendor=other_vendor,
        type="unconditional_final",
        amount=1_234_567,
        through_date=datetime.date(2026, 3, 31),
    )
    lien_waiver_update(
        lien_waiver_id=final.pk,
        changes={"status": "received", "received_on": datetime.date(2026, 4, 2)},
    )
    api = _api(money.account).get(f"/v1/lien-waivers/{money.waiver.pk}").json()
    assert api["pay_app"] == pay_app.pk

    response = web.get(LIST)

    body = response.content.decode()
    assert 'field-amount_display">$3,000.00<' in body
    assert 'field-amount_display">$12,345.67<' in body
    assert f">Pay app #{pay_app.number}</a>" in body
    page = text(response)
    for shown in ("Conditional progress", "Unconditional final", "Requested", "Received"):
        assert shown in page
    received = results_text(web.get(LIST, {"status__exact": "received"}))
    assert "Summit Steel" in received and "Acme Concrete" not in received
    by_type = results_text(web.get(LIST, {"type__exact": "conditional_progress"}))
    assert "Acme Concrete" in by_type and "Summit Steel" not in by_type
    by_vendor = results_text(web.get(LIST, {"q": "summit"}))
    assert "Summit Steel" in by_vendor and "Acme Concrete" not in by_vendor


def test_mark_received_records_today_as_the_user(web, money):
    response = _act(web, "mark_received", money.waiver)

    assert messages_of(response) == [("success", f"{money.waiver}: received.")]
    money.waiver.refresh_from_db()
    assert (money.waiver.status, money.waiver.received_on) == ("received", timezone.localdate())
    entry = AuditEntry.objects.filter(target_id=money.waiver.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("received", "user", "accountant")
    assert entry.changes["status"] == {"before": "requested", "after": "received"}
    api = _api(money.account).get(f"/v1/lien-waivers/{money.waiver.pk}").json()
    assert (api["status"], api["received_on"]) == ("received", str(timezone.localdate()))


def test_a_received_waiver_cannot_be_rejected(web, money):
    _act(web, "mark_received", money.waiver)
    audit_before = AuditEntry.objects.count()

    response = _act(web, "mark_rejected", money.waiver)

    assert messages_of(response) == [
        ("error", f"{money.waiver}: A received waiver cannot become rejected.")
    ]
    money.waiver.refresh_from_db()
    assert money.waiver.status == "received"
    assert AuditEntry.objects.count() == audit_before


def test_mark_rejected_then_received_clears_the_pay_app_gap(web, money):
    pay_app = make_pay_app(money.project, "2026-02-01", "2026-02-28")
    api = _api(money.account)
    assert api.get(f"/v1/pay-apps/{pay_app.pk}").json()["lien_waivers_missing"] == [money.vendor.pk]

    rejected = _act(web, "mark_rejected", money.waiver)

    assert messages_of(rejected) == [("success", f"{money.waiver}: rejected.")]
    money.waiver.refresh_from_db()
    assert (money.waiver.status, money.waiver.received_on) == ("rejected", None)
    entry = AuditEntry.objects.filter(target_id=money.waiver.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("rejected", "user", "accountant")
    assert api.get(f"/v1/pay-apps/{pay_app.pk}").json()["lien_waivers_missing"] == [money.vendor.pk]

    _act(web, "mark_received", money.waiver)

    assert api.get(f"/v1/pay-apps/{pay_app.pk}").json()["lien_waivers_missing"] == []
    page = web.get(admin_url(pay_app))
    assert readonly(page, "lien_waivers_missing_display") == "None"


def test_add_requests_a_waiver_through_the_service(web, money):
    assert web.get(ADD).status_code == 200
    response = web.post(
        ADD,
        {
            "type": "unconditional_progress",
            "amount": "2,700.00",
            "through_date": "2026-01-31",
            "commitment": money.commitment.pk,
            "invoice": "",
            "document_url": "",
        },
    )

    assert response.status_code == 302, errors_of(response)
    made = LienWaiver.objects.get(type="unconditional_progress")
    assert (made.amount, made.status, made.commitment_id, made.account_id) == (
        270_000,
        "requested",
        money.commitment.pk,
        money.account.pk,
    )
    entry = AuditEntry.objects.get(target_id=made.pk)
    assert (entry.action, entry.actor_type, entry.actor_id) == ("requested", "user", "accountant")


def test_add_refuses_another_vendors_invoice_and_a_waiver_of_nothing(web, money):
    summit = VendorFactory(account=money.account, name="Summit Steel")
    steel = CommitmentFactory(project=money.project, vendor=summit, cost_code=money.codes["03-000"])
    audit_before = AuditEntry.objects.count()
    form = {"type": "conditional_progress", "amount": "10", "through_date": "2026-02-10"}

    wrong_invoice = web.post(ADD, {**form, "commitment": steel.pk, "invoice": money.invoice.pk})
    nothing = web.post(ADD, form)

    assert errors_of(wrong_invoice) == ["The invoice is not this project's and vendor's."]
    assert list(wrong_invoice.context["adminform"].form.errors) == ["invoice"]
    assert errors_of(nothing) == ["Choose the invoice or the commitment the waiver covers."]
    assert LienWaiver.objects.count() == 1
    assert AuditEntry.objects.count() == audit_before


def test_add_from_an_invoice_takes_its_project_vendor_and_commitment(web, money):
    response = web.post(
        ADD,
        {
            "invoice": money.invoice.pk,
            "type": "unconditional_progress",
            "amount": "3,000.00",
            "through_date": "2026-02-10",
        },
    )

    assert response.status_code == 302, errors_of(response)
    made = LienWaiver.objects.get(type="unconditional_progress")
    assert (made.project_id, made.vendor_id, made.commitment_id, made.invoice_id) == (
        money.project.pk,
        money.vendor.pk,
        money.commitment.pk,
        money.invoice.pk,
    )
    assert made.amount == 300_000


def test_edit_records_the_document(web, money):
    data = form_data(web.get(admin_url(money.waiver)), "lienwaiver_form")

    response = web.post(
        admin_url(money.waiver), {**data, "document_url": "https://files.example.com/lw-1.pdf"}
    )

    assert response.status_code == 302, errors_of(response)
    money.waiver.refresh_from_db()
    assert (money.waiver.document_url, money.waiver.status) == (
        "https://files.example.com/lw-1.pdf",
        "requested",
    )
    entry = AuditEntry.objects.filter(target_id=money.waiver.pk).latest("created_at")
    assert entry.changes == {
        "document_url": {"before": "", "after": "https://files.example.com/lw-1.pdf"}
    }
    assert (entry.actor_type, entry.actor_id) == ("user", "accountant")


def _list_queries(web) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert web.get(LIST).status_code == 200
    return len(captured)


def test_list_costs_the_same_queries_whatever_the_rows(web, money):
    before = _list_queries(web)
    for _ in range(2):
        other = make_job(AccountFactory())
        make_pay_app(other.project, "2026-11-01", "2026-11-30")
        make_invoice(other.commitment, amount=1_000, number="X-1", status="approved")
        make_invoice(other.commitment, amount=2_000, number="X-2", status="approved")
    assert LienWaiver.objects.count() == 5
    assert _list_queries(web) == before
