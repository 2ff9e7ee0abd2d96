"""Vendor invoices against commitments (docs/resources.md, invoice)."""

from django.db import models
from django.db.models import Q

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.models.accounts import Account
from jobcost.models.base import TimestampedModel, list_index, loaded
from jobcost.models.commitments import Commitment
from jobcost.models.parties import Vendor
from jobcost.models.projects import CostCode, Project


class InvoiceStatus(models.TextChoices):
    RECEIVED = "received", "Received"
    CODED = "coded", "Coded"
    APPROVED = "approved", "Approved"
    PAID = "paid", "Paid"
    VOID = "void", "Void"


# The invoice's status sets, read by services, selectors and the back office alike: still
# open to edit, coding and void; posted (its cost on the budget, billed to its commitment).
INVOICE_EDITABLE = (InvoiceStatus.RECEIVED, InvoiceStatus.CODED)
INVOICE_POSTED = (InvoiceStatus.APPROVED, InvoiceStatus.PAID)


class Invoice(Audited, TimestampedModel):
    """A vendor's bill against an executed commitment.

    `amount` (cents) is the gross billed; `retainage_amount = round(amount × retainage_pct /
    100)` and `net_amount = amount − retainage_amount` (docs/conventions.md, rounding).
    `retainage_pct` is copied from the commitment at creation. Approval draws the commitment down.
    """

    OBJECT = "invoice"
    COLLECTION = "invoices"
    PREFIX = "inv"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="invoices")
    commitment = models.ForeignKey(Commitment, on_delete=models.PROTECT, related_name="invoices")
    vendor = models.ForeignKey(Vendor, on_delete=models.PROTECT, related_name="invoices")
    number = models.CharField(max_length=60)
    invoice_date = models.DateField()
    due_date = models.DateField(null=True, blank=True)
    amount = models.BigIntegerField()
    retainage_pct = models.DecimalField(max_digits=5, decimal_places=2)
    retainage_amount = models.BigIntegerField()
    status = models.CharField(
        max_length=16, choices=InvoiceStatus.choices, default=InvoiceStatus.RECEIVED
    )
    approved_at = models.DateTimeField(null=True, blank=True, editable=False)
    paid_at = models.DateTimeField(null=True, blank=True, editable=False)
    # What the payment was: the day it was paid in the books and the check or wire number.
    paid_on = models.DateField(null=True, blank=True, editable=False)
    payment_reference = models.CharField(max_length=100, blank=True, editable=False)
    voided_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        indexes = [
            list_index("invoice_list", "account"),
            models.Index(fields=["project", "invoice_date"], name="invoice_project_date"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["vendor", "number"], name="invoice_vendor_number_unique"
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="invoice_amount_gt_0"),
            models.CheckConstraint(
                condition=Q(retainage_pct__gte=0, retainage_pct__lte=100),
                name="invoice_retainage_0_100",
            ),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in InvoiceStatus]),
                name="invoice_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"Invoice {self.number} ({self.vendor.name})"

    @property
    def net_amount(self) -> int:
        return self.amount - self.retainage_amount

    @property
    def currency(self) -> str:
        return self.project.currency


class InvoiceLine(models.Model):
    """The invoice's coding: cents posted to one cost code on approval."""

    invoice = models.ForeignKey(Invoice, on_delete=models.CASCADE, related_name="lines")
    position = models.PositiveIntegerField()
    cost_code = models.ForeignKey(CostCode, on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(
                fields=["invoice", "position"], name="invoiceline_position_unique"
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="invoiceline_amount_gt_0"),
        ]

    def __str__(self) -> str:
        invoice = loaded(self, "invoice")
        return f"Line {self.position}" + (f" of invoice {invoice.number}" if invoice else "")
