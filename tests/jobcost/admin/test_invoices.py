"""Vendor invoices in the back office: received and edited through `services.invoices`,
coded in full, approved (drawing the commitment down and posting the budget's actual),
marked paid and voided as actions with the API's rules."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEntry
from jobcost.admin.display import dollars
from jobcost.models import BudgetLine, Commitment, Invoice, LienWaiver
from tests.conftest import Api
from tests.factories import AccountFactory, VendorFactory, make_invoice, make_job, make_key
from tests.factories import make_pay_app as pay_app_for
from tests.jobcost.admin.pages import (
    admin_url,
    errors_of,
    form_data,
    messages_of,
    readonly,
    run_list_action,
    text,
)

LIST = "/admin/jobcost/invoice/"
ADD = "/admin/jobcost/invoice/add/"


@pytest.fixture
def money(db):
    """`make_job`'s project with an executed $10,000.00 subcontract (10 % retainage) on
    03-000, from the vendor Acme Concrete."""
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    return job


@pytest.fixture
def api(money) -> Api:
    _key, secret = make_key(money.account, "viewer")
    return Api(secret)


def _act(web, action, *invoices):
    """The list action as a person runs it: its confirmation page, then Confirm."""
    return run_list_action(web, LIST, action, invoices)


def _actual(job, code="03-000") -> int:
    return BudgetLine.objects.get(cost_code=job.codes[code]).actual


def test_list_shows_amount_retainage_and_net_in_dollars(web, money, api):
    pay_app = pay_app_for(money.project, "2026-11-01", "2026-11-30")
    invoice = make_invoice(money.commitment, amount=123_455, number="A-100", status="coded")
    make_invoice(money.commitment, amount=50_000, number="B-7", invoice_date="2026-12-03")

    response = web.get(LIST)

    body = response.content.decode()
    assert 'field-amount_display">$1,234.55<' in body
    assert 'field-retainage_amount_display">$123.46<' in body  # round(123,455 × 10 %)
    assert 'field-net_amount_display">$1,111.09<' in body
    shown = api.get(f"/v1/invoices/{invoice.pk}").json()
    assert (shown["retainage_amount"], shown["net_amount"], shown["pay_app"]) == (
        12_346,
        111_109,
        pay_app.pk,
    )
    detail = web.get(admin_url(invoice)).content.decode()
    assert f">Pay app #{pay_app.number}</a>" in detail
    assert "Acme Concrete" in text(response) and "Coded" in text(response)
    by_status = text(web.get(LIST, {"status__exact": "received"}))
    assert "B-7" in by_status and "A-100" not in by_status
    by_number = text(web.get(LIST, {"q": "A-100"}))
    assert "A-100" in by_number and "B-7" not in by_number
    nobody = text(web.get(LIST, {"q": "Keystone"}))
    assert "A-100" not in nobody and "B-7" not in nobody and "0 results" in nobody
    by_vendor = text(web.get(LIST, {"q": "acme"}))
    assert "A-100" in by_vendor and "B-7" in by_vendor
    stranger = VendorFactory(account=money.account)
    filtered = text(web.get(LIST, {"vendor__id__exact": stranger.pk}))
    assert "A-100" not in filtered and "B-7" not in filtered


def test_add_receives_an_invoice_through_the_service(web, money):
    form = web.get(ADD).content.decode()
    assert f"{money.project.number} · SC-001 · Acme Concrete" in form
    response = web.post(
        ADD,
        {
            "commitment": money.commitment.pk,
            "number": "A-1",
            "invoice_date": "2026-11-02",
            "due_date": "",
            "amount": "$3,000.01",
        },
    )

    assert response.status_code == 302, errors_of(response)
    invoice = Invoice.objects.get(number="A-1")
    assert (
        invoice.status,
        invoice.amount,
        invoice.retainage_pct,
        invoice.retainage_amount,
        invoice.vendor_id,
        invoice.project_id,
    ) == ("received", 300_001, Decimal("10.00"), 30_000, money.vendor.pk, money.project.pk)
    entry = AuditEntry.objects.get(target_id=invoice.pk)
    assert (entry.action, entry.actor_type, entry.actor_id) == ("created", "user", "accountant")


def test_add_refuses_more_than_the_commitment_remaining(web, money):
    make_invoice(money.commitment, amount=900_000, number="A-1", status="approved")
    audit_before = AuditEntry.objects.count()

    response = web.post(
        ADD,
        {
            "commitment": money.commitment.pk,
            "number": "A-2",
            "invoice_date": "2026-11-05",
            "amount": "1,000.01",
        },
    )

    assert response.status_code == 200
    assert errors_of(response) == [
        f"$1,000.01 is more than the $1,000.00 left on commitment {money.commitment.number} "
        "($10,000.00 committed, $9,000.00 already billed)."
    ]
    assert list(response.context["adminform"].form.errors) == ["amount"]
    assert not Invoice.objects.filter(number="A-2").exists()
    assert AuditEntry.objects.count() == audit_before


def test_code_approve_and_pay_move_the_commitment_and_budget_as_the_api(web, money, api):
    invoice = make_invoice(money.commitment, amount=400_000, number="A-1")

    coded = _act(web, "code_in_full", invoice)

    assert messages_of(coded) == [("success", f"{invoice}: coded.")]
    invoice.refresh_from_db()
    assert invoice.status == "coded"
    assert list(invoice.lines.values_list("cost_code_id", "amount")) == [
        (money.codes["03-000"].pk, 400_000)
    ]
    assert "03-000 Concrete" in text(web.get(admin_url(invoice)))
    entry = AuditEntry.objects.filter(target_id=invoice.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("coded", "user", "accountant")
    assert entry.changes["lines"] == {
        "before": [],
        "after": [{"cost_code": money.codes["03-000"].pk, "amount": 400_000}],
    }

    approved = _act(web, "approve", invoice)

    assert messages_of(approved) == [("success", f"{invoice}: approved (lien waiver requested).")]
    commitment = api.get(f"/v1/commitments/{money.commitment.pk}").json()
    assert (commitment["billed_to_date"], commitment["remaining"]) == (400_000, 600_000)
    assert Commitment.objects.get(pk=money.commitment.pk).billed_to_date == 400_000
    assert _actual(money) == 400_000
    budget_id = money.codes["03-000"].budget_line.pk
    assert api.get(f"/v1/budgets/{budget_id}").json()["actual"] == 400_000
    waiver = LienWaiver.objects.get(invoice=invoice)
    assert (waiver.type, waiver.status, waiver.amount) == (
        "conditional_progress",
        "requested",
        400_000,
    )
    for target, action in (
        (invoice.pk, "approved"),
        (money.commitment.pk, "updated"),
        (waiver.pk, "requested"),
    ):
        entry = AuditEntry.objects.filter(target_id=target).latest("created_at")
        assert (entry.action, entry.actor_type, entry.actor_id) == (action, "user", "accountant")

    paid = _act(web, "mark_paid", invoice)

    assert messages_of(paid) == [("success", f"{invoice}: marked paid.")]
    invoice.refresh_from_db()
    assert invoice.status == "paid" and invoice.paid_at is not None
    assert _actual(money) == 400_000


def test_approve_refuses_past_the_remaining_and_runs_the_others(web, money):
    first = make_invoice(money.commitment, amount=600_000, number="A-1", status="coded")
    second = make_invoice(money.commitment, amount=500_000, number="A-2", status="coded")

    response = _act(web, "approve", first, second)

    # The list's order, newest first: A-2 is approved, then A-1 no longer fits.
    shown = set(messages_of(response))
    assert ("success", f"{second}: approved (lien waiver requested).") in shown
    assert (
        "error",
        f"{first}: $6,000.00 is more than the $5,000.00 left on commitment "
        f"{money.commitment.number} ($10,000.00 committed, $5,000.00 already billed).",
    ) in shown
    assert dict(Invoice.objects.values_list("number", "status")) == {
        "A-1": "coded",
        "A-2": "approved",
    }
    assert Commitment.objects.get(pk=money.commitment.pk).billed_to_date == 500_000
    assert _actual(money) == 500_000
    assert LienWaiver.objects.count() == 1
    assert not AuditEntry.objects.filter(target_id=first.pk, action="approved").exists()


def test_refused_transitions_show_the_service_message_and_change_nothing(web, money):
    received = make_invoice(money.commitment, amount=10_000, number="A-1")
    approved = make_invoice(money.commitment, amount=20_000, number="A-2", status="approved")
    audit_before = AuditEntry.objects.count()

    not_coded = _act(web, "approve", received)
    not_approved = _act(web, "mark_paid", received)
    not_voidable = _act(web, "void", approved)
    not_codable = _act(web, "code_in_full", approved)

    assert messages_of(not_coded) == [
        ("error", f"{received}: Only coded invoices can be approved; this one is received.")
    ]
    assert messages_of(not_approved) == [
        ("error", f"{received}: Only approved invoices can be marked paid; this one is received.")
    ]
    assert messages_of(not_voidable) == [
        ("error", f"{approved}: An approved invoice cannot be voided.")
    ]
    assert messages_of(not_codable) == [
        ("error", f"{approved}: An approved invoice cannot be edited.")
    ]
    assert dict(Invoice.objects.values_list("number", "status")) == {
        "A-1": "received",
        "A-2": "approved",
    }
    assert _actual(money) == 20_000
    assert AuditEntry.objects.count() == audit_before


def test_void_a_received_invoice(web, money):
    invoice = make_invoice(money.commitment, amount=10_000, number="A-1")

    response = _act(web, "void", invoice)

    assert messages_of(response) == [("success", f"{invoice}: voided.")]
    invoice.refresh_from_db()
    assert invoice.status == "void" and invoice.voided_at is not None
    entry = AuditEntry.objects.filter(target_id=invoice.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("voided", "user", "accountant")


def test_edit_a_received_invoice_recomputes_its_retainage(web, money):
    invoice = make_invoice(money.commitment, amount=10_000, number="A-1")
    data = form_data(web.get(admin_url(invoice)), "invoice_form")
    assert data["amount"] == "100.00"

    response = web.post(admin_url(invoice), {**data, "amount": "1,234.55"})

    assert response.status_code == 302, errors_of(response)
    invoice.refresh_from_db()
    assert (invoice.amount, invoice.retainage_amount) == (123_455, 12_346)
    page = web.get(admin_url(invoice))
    assert readonly(page, "retainage_amount_display") == "$123.46"
    assert readonly(page, "net_amount_display") == dollars(123_455 - 12_346)
    entry = AuditEntry.objects.filter(target_id=invoice.pk).latest("created_at")
    assert entry.changes["amount"] == {"before": 10_000, "after": 123_455}
    assert (entry.actor_type, entry.actor_id) == ("user", "accountant")


def test_an_approved_invoice_cannot_be_edited(web, money):
    invoice = make_invoice(money.commitment, amount=10_000, number="A-1", status="approved")
    data = form_data(web.get(admin_url(invoice)), "invoice_form")
    audit_before = AuditEntry.objects.count()

    response = web.post(admin_url(invoice), {**data, "amount": "50"})

    assert response.status_code == 200
    assert errors_of(response) == ["An approved invoice cannot be edited."]
    invoice.refresh_from_db()
    assert invoice.amount == 10_000
    assert AuditEntry.objects.count() == audit_before


def _list_queries(web) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert web.get(LIST).status_code == 200
    return len(captured)


def test_list_costs_the_same_queries_whatever_the_rows(web, money):
    make_invoice(money.commitment, amount=1_000, number="A-1", status="coded")
    before = _list_queries(web)
    for _ in range(2):
        other = make_job(AccountFactory())
        pay_app_for(other.project, "2026-11-01", "2026-11-30")
        make_invoice(other.commitment, amount=1_000, number="X-1", status="approved")
        make_invoice(other.commitment, amount=2_000, number="X-2")
    assert Invoice.objects.count() == 5
    assert _list_queries(web) == before
