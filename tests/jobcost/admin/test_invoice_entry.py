"""Entering a vendor invoice in the back office: received against an executed commitment,
coded across cost codes on its coding page (lines that must add up to the amount, to the
cent), then approved, marked paid or voided from its page through a confirmation page, each
as the role's API policy allows, for the member's own account only."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from audit.models import AuditEntry
from jobcost.models import BudgetLine, Commitment, Invoice, InvoiceLine, LienWaiver
from jobcost.services.invoices import invoice_approve
from tests.factories import AccountFactory, CommitmentFactory, VendorFactory, make_invoice, make_job
from tests.jobcost.admin.pages import (
    admin_url,
    errors_of,
    form_data,
    member_client,
    messages_of,
    text,
)

ADD = "/admin/jobcost/invoice/add/"


@pytest.fixture
def money(db):
    """`make_job`'s project (codes 01-000 General conditions, 03-000 Concrete, 09-000
    Finishes) with an executed $10,000.00 subcontract SC-001 (10 % retainage) from Acme
    Concrete, and a draft SC-002 from Summit Steel."""
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    job.draft = CommitmentFactory(
        project=job.project,
        vendor=VendorFactory(account=account, name="Summit Steel"),
        cost_code=job.codes["09-000"],
        original_amount=500_000,
    )
    return job


def _code_url(invoice: Invoice) -> str:
    return admin_url(invoice).replace("/change/", "/code/")


def _step_url(invoice: Invoice, slug: str) -> str:
    return admin_url(invoice).replace("/change/", f"/{slug}/")


def _lines(invoice: Invoice) -> list[tuple[str, int]]:
    return list(
        InvoiceLine.objects.filter(invoice=invoice)
        .order_by("position")
        .values_list("cost_code__code", "amount")
    )


def _code(client: Client, invoice: Invoice, *rows: tuple[str, str]):
    """Post the coding page with `rows` of (cost code ID, dollars) and blank rows after."""
    data = form_data(client.get(_code_url(invoice)), "invoice-coding")
    total = int(data["lines-TOTAL_FORMS"])
    for index in range(total):
        code, amount = rows[index] if index < len(rows) else ("", "")
        data[f"lines-{index}-cost_code"] = code
        data[f"lines-{index}-amount"] = amount
    return client.post(_code_url(invoice), data)


def test_receive_and_code_an_invoice_across_two_cost_codes(money):
    accountant = member_client(money.account, "member")
    form = text(accountant.get(ADD))
    assert f"{money.project.number} · SC-001 · Acme Concrete · $10,000.00 remaining" in form
    assert "Summit Steel" not in form  # a draft commitment takes no invoice

    received = accountant.post(
        ADD,
        {
            "commitment": money.commitment.pk,
            "number": "A-77",
            "invoice_date": "2026-11-02",
            "due_date": "2026-12-02",
            "amount": "3,000.01",
        },
    )

    assert received.status_code == 302, errors_of(received)
    invoice = Invoice.objects.get(number="A-77")
    assert (invoice.status, invoice.amount, invoice.retainage_amount) == (
        "received",
        300_001,
        30_000,
    )
    page = accountant.get(admin_url(invoice))
    assert 'data-step="code-to-cost-codes"' in page.content.decode()
    assert 'data-step="approve"' not in page.content.decode()  # a member codes, never approves
    coding = accountant.get(_code_url(invoice))
    assert "03-000 Concrete" in text(coding) and "09-000 Finishes" in text(coding)
    assert "must add up to the invoice amount, $3,000.01, to the cent" in text(coding)
    first = form_data(coding, "invoice-coding")
    assert (first["lines-0-cost_code"], first["lines-0-amount"]) == (
        money.codes["03-000"].pk,
        "3000.01",
    )

    coded = _code(
        accountant,
        invoice,
        (money.codes["03-000"].pk, "2,000.01"),
        (money.codes["09-000"].pk, "$1,000.00"),
    )

    assert coded.status_code == 302, errors_of(coded)
    invoice.refresh_from_db()
    assert invoice.status == "coded"
    assert _lines(invoice) == [("03-000", 200_001), ("09-000", 100_000)]
    shown = accountant.get(admin_url(invoice), follow=True)
    assert "$2,000.01" in text(shown) and "$1,000.00" in text(shown)
    entry = AuditEntry.objects.filter(target_id=invoice.pk).latest("created_at")
    assert (entry.action, entry.actor_type) == ("coded", "user")
    assert entry.changes["lines"]["after"] == [
        {"cost_code": money.codes["03-000"].pk, "amount": 200_001},
        {"cost_code": money.codes["09-000"].pk, "amount": 100_000},
    ]


def test_lines_that_do_not_add_up_are_refused_and_nothing_is_written(web, money):
    invoice = make_invoice(money.commitment, amount=300_001, number="A-1")
    audit_before = AuditEntry.objects.count()

    short = _code(
        web, invoice, (money.codes["03-000"].pk, "2,000.00"), (money.codes["09-000"].pk, "1000")
    )
    over = _code(web, invoice, (money.codes["03-000"].pk, "3,100.01"))
    half = _code(web, invoice, (money.codes["03-000"].pk, ""), ("", "5.00"))

    assert short.status_code == 200
    assert (
        "The lines add up to $3,000.00 but the invoice is for $3,000.01: $0.01 short of the "
        "invoice amount. The lines must add up to the invoice amount exactly; nothing was saved."
    ) in errors_of(short)
    assert "Lines entered" in text(short) and "$3,000.00" in text(short)
    assert any("$100.00 over the invoice amount" in e for e in errors_of(over))
    assert set(errors_of(half)) == {
        "Enter the amount for this cost code.",
        "Choose the cost code of this amount.",
    }
    invoice.refresh_from_db()
    assert invoice.status == "received"
    assert _lines(invoice) == []
    assert AuditEntry.objects.count() == audit_before


def test_approve_as_manager_from_the_invoice_page(money):
    manager = member_client(money.account, "manager")
    invoice = make_invoice(money.commitment, amount=400_000, number="A-1")
    _code(
        manager, invoice, (money.codes["03-000"].pk, "2,500.00"), (money.codes["01-000"].pk, "1500")
    )
    page = manager.get(admin_url(invoice)).content.decode()
    assert 'data-step="approve"' in page and 'data-step="void"' in page
    assert 'data-step="mark-paid"' not in page

    confirm = manager.get(_step_url(invoice, "approve"))

    assert confirm.status_code == 200
    assert "Approve invoice A-1 from Acme Concrete for $4,000.00" in text(confirm)
    assert '<button type="submit" class="default">Confirm</button>' in confirm.content.decode()
    invoice.refresh_from_db()
    assert invoice.status == "coded"  # GET shows, never does

    done = manager.post(_step_url(invoice, "approve"), follow=True)

    assert messages_of(done) == [("success", "Invoice A-1 approved; lien waiver requested.")]
    invoice.refresh_from_db()
    assert invoice.status == "approved"
    assert Commitment.objects.get(pk=money.commitment.pk).billed_to_date == 400_000
    actual = dict(BudgetLine.objects.values_list("cost_code__code", "actual"))
    assert (actual["03-000"], actual["01-000"], actual["09-000"]) == (250_000, 150_000, 0)
    waiver = LienWaiver.objects.get(invoice=invoice)
    assert (waiver.status, waiver.amount) == ("requested", 400_000)
    assert 'data-step="mark-paid"' in done.content.decode()

    payment = form_data(manager.get(_step_url(invoice, "mark-paid")), "step-form")
    payment["reference"] = "Check 5521"
    paid = manager.post(_step_url(invoice, "mark-paid"), payment, follow=True)

    today = timezone.localdate()
    assert messages_of(paid) == [
        (
            "success",
            f"Invoice A-1 marked paid on {today:%b} {today.day}, {today.year} (Check 5521).",
        )
    ]
    invoice.refresh_from_db()
    assert (invoice.status, invoice.paid_on, invoice.payment_reference) == (
        "paid",
        today,
        "Check 5521",
    )


def test_a_refused_approval_says_why_in_dollars_and_writes_nothing(web, money):
    first = make_invoice(money.commitment, amount=700_000, number="A-1", status="coded")
    second = make_invoice(money.commitment, amount=400_000, number="A-2", status="coded")
    invoice_approve(invoice_id=first.pk)
    audit_before = AuditEntry.objects.count()

    refused = web.post(_step_url(second, "approve"))

    assert refused.status_code == 200
    assert (
        "$4,000.00 is more than the $3,000.00 left on commitment SC-001 ($10,000.00 committed, "
        "$7,000.00 already billed)."
    ) in errors_of(refused)
    second.refresh_from_db()
    assert second.status == "coded"
    assert Commitment.objects.get(pk=money.commitment.pk).billed_to_date == 700_000
    assert AuditEntry.objects.count() == audit_before


def test_void_from_the_invoice_page(web, money):
    invoice = make_invoice(money.commitment, amount=10_000, number="A-1")

    done = web.post(_step_url(invoice, "void"), follow=True)

    assert messages_of(done) == [("success", "Invoice A-1 voided.")]
    invoice.refresh_from_db()
    assert invoice.status == "void"
    again = web.post(_step_url(invoice, "void"))
    assert "A void invoice cannot be voided." in errors_of(again)


def test_viewer_and_member_are_refused_what_their_role_may_not_do(money):
    invoice = make_invoice(money.commitment, amount=10_000, number="A-1", status="coded")
    viewer, member = member_client(money.account, "viewer"), member_client(money.account, "member")
    before = (AuditEntry.objects.count(), Invoice.objects.get(pk=invoice.pk).status)

    assert viewer.get(admin_url(invoice)).status_code == 200
    assert 'data-step="' not in viewer.get(admin_url(invoice)).content.decode()
    for slug in ("approve", "mark-paid", "void", "code"):
        assert viewer.get(_step_url(invoice, slug)).status_code == 403, slug
        assert viewer.post(_step_url(invoice, slug)).status_code == 403, slug
    assert viewer.get(ADD).status_code == 403
    for slug in ("approve", "mark-paid", "void"):
        assert member.post(_step_url(invoice, slug)).status_code == 403, slug
    assert member.get(_code_url(invoice)).status_code == 200

    assert (AuditEntry.objects.count(), Invoice.objects.get(pk=invoice.pk).status) == before


def test_another_accounts_invoice_is_404_and_its_commitments_are_no_choice(money):
    invoice = make_invoice(money.commitment, amount=10_000, number="A-1", status="coded")
    other = AccountFactory(name="Ridgeline Contractors")
    theirs = make_job(other)
    stranger = member_client(other, "manager")

    for slug in ("approve", "mark-paid", "void", "code"):
        assert stranger.get(_step_url(invoice, slug)).status_code == 404, slug
        assert stranger.post(_step_url(invoice, slug)).status_code == 404, slug
    form = text(stranger.get(ADD))
    assert theirs.project.number in form and money.project.number not in form
    refused = stranger.post(
        ADD,
        {
            "commitment": money.commitment.pk,
            "number": "X-1",
            "invoice_date": "2026-11-02",
            "amount": "10",
        },
    )
    assert refused.status_code == 200
    assert not Invoice.objects.filter(number="X-1").exists()
    invoice.refresh_from_db()
    assert invoice.status == "coded"


def test_the_add_page_reads_every_commitment_in_one_query(
    web, money, django_assert_max_num_queries
):
    web.get(ADD)
    for _ in range(3):
        make_job(AccountFactory())
    with django_assert_max_num_queries(12):
        response = web.get(ADD)
    assert text(response).count("Acme Concrete · $10,000.00 remaining") == 4
