"""A commitment's retainage and payments, from its invoices (docs/computations.md): the
figures the back office's commitment ledger shows and the retainage report's payable rows
sum, defined once here.

- retainage held: Σ `retainage_amount` of its posted invoices (approved or paid; cents);
- paid: Σ (`amount` − `retainage_amount`) of its paid invoices (cents, net of retainage).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F, Q, Sum, Value
from django.db.models.functions import Coalesce

from jobcost.models import INVOICE_POSTED, Invoice, InvoiceStatus

# Σ of the retainage withheld on posted invoices, for an aggregate or an annotation.
RETAINAGE_HELD = Coalesce(Sum("retainage_amount", filter=Q(status__in=INVOICE_POSTED)), Value(0))
PAID_NET = Coalesce(
    Sum(F("amount") - F("retainage_amount"), filter=Q(status=InvoiceStatus.PAID)), Value(0)
)


@dataclass(frozen=True)
class CommitmentPayments:
    """Cents: the retainage held on the commitment's posted invoices, and what was paid on
    its paid ones net of retainage."""

    retainage_held: int
    paid: int


def commitment_payments(commitment_id: str) -> CommitmentPayments:
    """The commitment's retainage held and paid, in one aggregate query."""
    figures = Invoice.objects.filter(commitment_id=commitment_id).aggregate(
        held=RETAINAGE_HELD, paid=PAID_NET
    )
    return CommitmentPayments(retainage_held=figures["held"], paid=figures["paid"])
