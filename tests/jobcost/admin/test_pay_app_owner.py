"""The owner's side of a pay app in the back office (docs/backoffice/pay-apps.md, "The
certificate and the owner's payments"), through the Django test client: the approve page asks
the amount certified (line 8 by default, in dollars), its date and the note; "Record payment"
takes amounts in dollars until the certificate is paid; the receipts are listed on the pay
app's page; an invoice's "Mark paid" asks the day and the check number. Refusals are the
services', in the accountant's words and dollars, and write nothing.

The job (`make_job`): contract $100,000.00 at 10 % retainage; pay app #1 bills $10,000.00 of
concrete, so line 8 is $9,000.00."""

from __future__ import annotations

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from jobcost.models import Invoice, PayApp, PayAppPayment
from jobcost.services.pay_apps import pay_app_submit, pay_app_update
from tests.factories import AccountFactory, make_invoice, make_job, make_pay_app
from tests.jobcost.admin.pages import (
    admin_url,
    errors_of,
    form_data,
    member_client,
    messages_of,
    readonly,
    text,
)
from tests.jobcost.admin.test_pay_app_grid import confirm_url
from tests.jobcost.api.state import DOMAIN_MODELS, digest


@pytest.fixture
def money(db):
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    return job


def submitted(job) -> PayApp:
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    pay_app_update(pay_app_id=pay_app.pk, lines=[{"item": "2", "this_period": 1_000_000}])
    return pay_app_submit(pay_app_id=pay_app.pk, allow_missing_waivers=True)


def today_words() -> str:
    today = timezone.localdate()
    return f"{today:%b} {today.day}, {today.year}"


def test_the_approve_page_asks_the_certificate_with_line_8_and_today(web, money):
    pay_app = submitted(money)
    page = web.get(confirm_url(pay_app, "approve"))
    assert page.status_code == 200
    data = form_data(page, "step-form")
    assert (data["amount_certified"], data["certified_on"], data["certification_note"]) == (
        "9000.00",
        timezone.localdate().isoformat(),
        "",
    )
    shown = text(page)
    assert "8. Current payment due" in shown and "$9,000.00" in shown
    assert "At most the current payment due (line 8), $9,000.00." in shown
    assert PayApp.objects.get(pk=pay_app.pk).status == "submitted"  # a GET does nothing


def test_certifying_less_without_a_note_is_refused_on_the_note(web, money):
    pay_app = submitted(money)
    data = form_data(web.get(confirm_url(pay_app, "approve")), "step-form")
    data["amount_certified"] = "7,500.00"
    before = digest(DOMAIN_MODELS)
    refused = web.post(confirm_url(pay_app, "approve"), data)
    assert refused.status_code == 200
    assert errors_of(refused) == [
        "Certifying $7,500.00 of the $9,000.00 current payment due needs a note saying why "
        "the architect certified less."
    ]
    assert digest(DOMAIN_MODELS) == before


def test_certifying_more_than_line_8_is_refused_in_dollars(web, money):
    pay_app = submitted(money)
    data = form_data(web.get(confirm_url(pay_app, "approve")), "step-form")
    data["amount_certified"] = "9000.01"
    before = digest(DOMAIN_MODELS)
    refused = web.post(confirm_url(pay_app, "approve"), data)
    assert errors_of(refused) == [
        "The amount certified, $9,000.01, is more than pay app #1's current payment due "
        "(G702 line 8) of $9,000.00; the architect certifies at most the amount applied for."
    ]
    assert digest(DOMAIN_MODELS) == before


def test_certify_less_then_record_payments_until_paid(web, money):
    pay_app = submitted(money)
    data = form_data(web.get(confirm_url(pay_app, "approve")), "step-form")
    data.update(amount_certified="7500", certification_note="Stored rebar not on site.")
    approved = web.post(confirm_url(pay_app, "approve"), data, follow=True)
    assert messages_of(approved) == [
        (
            "success",
            f"Pay app #1 (Jan 2026): Approved, certified for $7,500.00 on {today_words()} "
            "(Stored rebar not on site.).",
        )
    ]
    assert readonly(approved, "amount_certified_display") == "$7,500.00"
    assert readonly(approved, "certification_note") == "Stored rebar not on site."
    assert readonly(approved, "amount_remaining_display") == "$7,500.00"
    assert ">Record payment</a>" in approved.content.decode()
    entry = AuditEntry.objects.filter(target_id=pay_app.pk, action="approved").get()
    assert (entry.actor_type, entry.actor_id) == ("user", "accountant")
    assert entry.changes["amount_certified"]["after"] == 750_000

    page = web.get(confirm_url(pay_app, "record-payment"))
    payment = form_data(page, "step-form")
    assert payment["amount"] == "7500.00"
    payment.update(amount="$5,000", reference="Check 1001")
    partial = web.post(confirm_url(pay_app, "record-payment"), payment, follow=True)
    assert messages_of(partial) == [
        ("success", "Pay app #1 (Jan 2026): Payment recorded; $2,500.00 remains to be received.")
    ]
    assert readonly(partial, "amount_paid_display") == "$5,000.00"
    assert readonly(partial, "amount_remaining_display") == "$2,500.00"
    assert f"{today_words()}Check 1001$5,000.00" in readonly(partial, "receipts_display")

    payment = form_data(web.get(confirm_url(pay_app, "record-payment")), "step-form")
    assert payment["amount"] == "2500.00"
    payment["amount"] = "2500.01"
    before = digest(DOMAIN_MODELS)
    over = web.post(confirm_url(pay_app, "record-payment"), payment)
    assert errors_of(over) == [
        "A receipt of $2,500.01 is more than the $2,500.00 remaining on pay app #1 "
        "($7,500.00 certified, $5,000.00 received)."
    ]
    assert digest(DOMAIN_MODELS) == before
    payment.update(amount="2500", reference="Check 1002")
    paid = web.post(confirm_url(pay_app, "record-payment"), payment, follow=True)
    assert messages_of(paid) == [
        ("success", "Pay app #1 (Jan 2026): Payment recorded; the certificate is paid in full.")
    ]
    assert readonly(paid, "status") == "Paid"
    assert readonly(paid, "amount_remaining_display") == "$0.00"
    assert ">Record payment</a>" not in paid.content.decode()
    assert list(
        PayAppPayment.objects.filter(pay_app=pay_app)
        .order_by("created_at")
        .values_list("amount", "reference")
    ) == [(500_000, "Check 1001"), (250_000, "Check 1002")]


def test_a_payment_dated_after_today_is_refused_on_the_date(web, money):
    pay_app = submitted(money)
    web.post(
        confirm_url(pay_app, "approve"),
        form_data(web.get(confirm_url(pay_app, "approve")), "step-form"),
    )
    payment = form_data(web.get(confirm_url(pay_app, "record-payment")), "step-form")
    payment["received_on"] = "2099-01-01"
    refused = web.post(confirm_url(pay_app, "record-payment"), payment)
    (error,) = errors_of(refused)
    assert error.startswith("The date received, January 1, 2099, is in the future")
    assert PayAppPayment.objects.count() == 0


def test_only_managers_record_payments(money):
    pay_app = submitted(money)
    manager = member_client(money.account, "manager")
    certificate = form_data(manager.get(confirm_url(pay_app, "approve")), "step-form")
    manager.post(confirm_url(pay_app, "approve"), certificate)
    member = member_client(money.account, "member")
    assert ">Record payment</a>" not in member.get(admin_url(pay_app)).content.decode()
    refused = member.post(
        confirm_url(pay_app, "record-payment"),
        {"amount": "1", "received_on": timezone.localdate().isoformat(), "reference": ""},
    )
    assert refused.status_code == 403
    assert PayAppPayment.objects.count() == 0
    assert ">Record payment</a>" in manager.get(admin_url(pay_app)).content.decode()


def test_the_list_action_marks_paid_what_remains_today(web, money):
    pay_app = submitted(money)
    web.post(
        confirm_url(pay_app, "approve"),
        form_data(web.get(confirm_url(pay_app, "approve")), "step-form"),
    )
    page = web.post(
        "/admin/jobcost/payapp/",
        {"action": "mark_paid", "_selected_action": [pay_app.pk]},
        follow=True,
    )
    assert "use Record payment on the pay app's page" in text(page)
    done = web.post("/admin/jobcost/payapp/", form_data(page, "reason_form"), follow=True)
    assert messages_of(done) == [("success", "Pay app #1 (Jan 2026): marked paid.")]
    (receipt,) = PayAppPayment.objects.filter(pay_app=pay_app)
    assert (receipt.amount, receipt.received_on, receipt.reference) == (
        900_000,
        timezone.localdate(),
        "",
    )


def test_invoice_mark_paid_asks_the_day_and_the_check_number(web, money):
    invoice = make_invoice(
        money.commitment, amount=10_000, number="P-1", invoice_date="2026-01-10", status="approved"
    )
    url = admin_url(invoice, "mark_paid")
    data = form_data(web.get(url), "step-form")
    assert data["paid_on"] == timezone.localdate().isoformat()
    data.update(paid_on="2026-01-09", reference="7781")
    refused = web.post(url, data)
    assert errors_of(refused) == [
        "The payment date, January 9, 2026, is before invoice P-1's date (January 10, 2026); "
        "an invoice is paid on or after its date."
    ]
    assert Invoice.objects.get(pk=invoice.pk).status == "approved"
    data["paid_on"] = "2026-01-20"
    done = web.post(url, data, follow=True)
    assert messages_of(done) == [("success", "Invoice P-1 marked paid on Jan 20, 2026 (7781).")]
    assert readonly(done, "payment_reference") == "7781"
    invoice.refresh_from_db()
    assert (invoice.paid_on.isoformat(), invoice.payment_reference) == ("2026-01-20", "7781")
