"""Play the demo job's three billing periods (`jobcost.demo.progress`) through the services.

Period by period, as the accountant would: create the pay app's draft; create (naming the RFI
that led to it, when the RFIs are loaded), submit and approve the period's change orders (an
owner one lands on that draft as its G703 row) or leave one pending; receive the vendor
invoices, code them, approve them (which posts their cost and requests a conditional progress
lien waiver) or void them; record the waivers received or rejected; enter the G703
this-period figures; then submit (with the missing-waivers override where the data says so)
and approve the pay app (certified in full, on the day of loading), or leave it a draft. Late
waivers are received after the submit; paid invoices are marked paid last, the owner's check
for a paid pay app is recorded as a receipt of its whole certified amount (which makes it
paid), and the project manager's cost-to-complete forecasts are entered on their budget lines.
"""

from __future__ import annotations

from jobcost.demo import progress as data
from jobcost.models import (
    ChangeOrder,
    Commitment,
    CommitmentStatus,
    CostCode,
    Invoice,
    InvoiceStatus,
    LienWaiver,
    LienWaiverStatus,
    PayApp,
    PayAppStatus,
    Project,
    Rfi,
)
from jobcost.services.change_orders import (
    change_order_approve,
    change_order_create,
    change_order_submit,
)
from jobcost.services.cost_codes import budget_line_update
from jobcost.services.invoices import (
    invoice_approve,
    invoice_create,
    invoice_mark_paid,
    invoice_update,
    invoice_void,
)
from jobcost.services.lien_waivers import lien_waiver_update
from jobcost.services.pay_app_payments import pay_app_payment_create
from jobcost.services.pay_apps import (
    pay_app_approve,
    pay_app_create,
    pay_app_submit,
    pay_app_update,
)

WAIVER_FILES = "https://files.demobuilders.example/2026-014/lien-waivers"


def progress_is_blank(project: Project) -> bool:
    """True when the project has no pay app, change order, invoice or lien waiver yet."""
    return not (
        project.pay_apps.exists()
        or project.change_orders.exists()
        or project.invoices.exists()
        or project.lien_waivers.exists()
    )


class _Job:
    """The loaded project's cost codes and executed commitments, by cost code, and its RFIs
    by number (each change order is created naming its RFI when that RFI exists)."""

    def __init__(self, project: Project):
        self.project = project
        self.codes = {
            c.code: c
            for c in CostCode.objects.filter(project=project).select_related("budget_line")
        }
        self.commitments = {
            c.cost_code.code: c
            for c in Commitment.objects.filter(
                project=project, status=CommitmentStatus.EXECUTED
            ).select_related("cost_code")
        }
        self.rfis = {rfi.number: rfi for rfi in Rfi.objects.filter(project=project)}

    def change_order(self, row: data.ChangeOrderRow) -> ChangeOrder:
        lines = [
            {
                "cost_code": self.codes[line.code],
                "description": line.description,
                "amount": line.amount,
                "budget_amount": line.budget_amount,
            }
            for line in row.lines
        ]
        order = change_order_create(
            project=self.project,
            kind=row.kind,
            number=row.number,
            title=row.title,
            description=row.description,
            amount=row.amount,
            lines=lines,
            commitment=self.commitments[row.commitment_code] if row.commitment_code else None,
            rfi=self.rfis.get(row.rfi) if row.rfi else None,
        )
        change_order_submit(change_order_id=order.pk)
        if row.final == "approved":
            change_order_approve(change_order_id=order.pk)
        return order

    def invoice(self, row: data.InvoiceRow) -> Invoice:
        invoice = invoice_create(
            commitment=self.commitments[row.code],
            number=row.number,
            invoice_date=row.invoice_date,
            due_date=row.due_date,
            amount=row.amount,
        )
        if row.final == InvoiceStatus.VOID:
            return invoice_void(invoice_id=invoice.pk)
        if row.final == InvoiceStatus.RECEIVED:
            return invoice
        coding = [{"cost_code": self.codes[row.code], "amount": row.amount}]
        invoice = invoice_update(invoice_id=invoice.pk, changes={"lines": coding})
        if row.final != InvoiceStatus.CODED:
            invoice = invoice_approve(invoice_id=invoice.pk)
        return invoice

    def enter_period(self, pay_app: PayApp, row: data.PayAppRow) -> None:
        items = {
            (line.cost_code.code if line.cost_code_id else line.item): line.item
            for line in pay_app.lines.select_related("cost_code")
        }
        keys = sorted(set(row.this_period) | set(row.stored))
        entries = [
            {
                "item": items[key],
                "this_period": row.this_period.get(key, 0),
                "materials_stored": row.stored.get(key, 0),
            }
            for key in keys
        ]
        pay_app_update(pay_app_id=pay_app.pk, lines=entries)


def _record_waiver(invoice: Invoice, row: data.InvoiceRow) -> None:
    waiver = LienWaiver.objects.get(invoice=invoice)
    if row.waiver == LienWaiverStatus.RECEIVED:
        changes = {
            "status": LienWaiverStatus.RECEIVED,
            "received_on": row.waiver_on,
            "document_url": f"{WAIVER_FILES}/{row.number}.pdf",
        }
    elif row.waiver == LienWaiverStatus.REJECTED:
        changes = {"status": LienWaiverStatus.REJECTED}
    else:
        return
    lien_waiver_update(lien_waiver_id=waiver.pk, changes=changes)


def demo_progress_load(project: Project) -> None:
    """Load the three periods onto the demo project (in the caller's transaction, as the
    caller's actor). Every write goes through a service; a refusal raises its `ApiError`."""
    job = _Job(project)
    paid_invoices: list[Invoice] = []
    certified: dict[int, PayApp] = {}
    for row in data.PAY_APPS:
        pay_app = pay_app_create(
            project=project, period_start=row.period_start, period_end=row.period_end
        )
        for order in row.change_orders:
            job.change_order(order)
        late = []
        for invoice_row in row.invoices:
            invoice = job.invoice(invoice_row)
            if invoice_row.final == InvoiceStatus.PAID:
                paid_invoices.append(invoice)
            if invoice_row.waiver_late:
                late.append((invoice, invoice_row))
            elif invoice_row.waiver:
                _record_waiver(invoice, invoice_row)
        job.enter_period(pay_app, row)
        if row.final == PayAppStatus.DRAFT:
            continue
        pay_app_submit(pay_app_id=pay_app.pk, allow_missing_waivers=row.allow_missing_waivers)
        pay_app_approve(pay_app_id=pay_app.pk)
        for invoice, invoice_row in late:
            _record_waiver(invoice, invoice_row)
        certified[pay_app.number] = pay_app
    for invoice in paid_invoices:
        invoice_mark_paid(invoice_id=invoice.pk)
    for receipt in data.OWNER_RECEIPTS:
        pay_app = PayApp.objects.get(pk=certified[receipt.pay_app].pk)
        pay_app_payment_create(
            pay_app_id=pay_app.pk,
            amount=pay_app.amount_certified,
            received_on=receipt.received_on,
            reference=receipt.reference,
        )
    for code, estimate in data.COST_TO_COMPLETE.items():
        budget_line_update(
            budget_line_id=job.codes[code].budget_line.pk,
            changes={"cost_to_complete": estimate},
        )
