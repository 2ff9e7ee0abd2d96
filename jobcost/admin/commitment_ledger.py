"""A commitment's ledger (docs/backoffice/budget.md, "Commitment ledger"): its invoices,
change orders and lien waivers with totals, and its original, approved changes, revised,
billed to date, retainage held, paid and remaining — the commitment's own figures, as
`GET /v1/commitments/{id}` gives them, and sums of the rows shown."""

from __future__ import annotations

from django.contrib.admin.utils import quote
from django.urls import reverse

from jobcost.admin.display import accounting
from jobcost.models import INVOICE_POSTED, ChangeOrderStatus, Commitment
from jobcost.selectors.commitments import commitment_payments


def _link(model: str, pk: str) -> str:
    return reverse(f"admin:jobcost_{model}_change", args=[quote(pk)])


def ledger(commitment: Commitment) -> dict:
    """The ledger's sections and figures (four queries: the figures, invoices, change orders,
    waivers); retainage held and paid are `selectors.commitments.commitment_payments`."""
    payments = commitment_payments(commitment.pk)
    invoices = list(commitment.invoices.order_by("invoice_date", "number"))
    orders = list(commitment.change_orders.order_by("number"))
    waivers = list(commitment.lien_waivers.order_by("through_date", "pk"))
    billed = [i for i in invoices if i.status in INVOICE_POSTED]
    approved_orders = [o for o in orders if o.status == ChangeOrderStatus.APPROVED]
    return {
        "figures": [
            ("original", "Original amount", accounting(commitment.original_amount)),
            ("approved_changes", "Approved changes", accounting(commitment.approved_changes)),
            ("revised", "Revised amount", accounting(commitment.revised_amount)),
            ("billed_to_date", "Billed to date", accounting(commitment.billed_to_date)),
            ("retainage_held", "Retainage held", accounting(payments.retainage_held)),
            ("paid", "Paid (net of retainage)", accounting(payments.paid)),
            ("remaining", "Remaining to bill", accounting(commitment.remaining)),
        ],
        "invoices": {
            "rows": [
                {
                    "url": _link("invoice", i.pk),
                    "cells": [
                        i.number,
                        i.invoice_date,
                        i.get_status_display(),
                        accounting(i.amount),
                        accounting(i.retainage_amount),
                        accounting(i.net_amount),
                    ],
                }
                for i in invoices
            ],
            "totals": [
                accounting(sum(i.amount for i in billed)),
                accounting(sum(i.retainage_amount for i in billed)),
                accounting(sum(i.net_amount for i in billed)),
            ],
        },
        "change_orders": {
            "rows": [
                {
                    "url": _link("changeorder", o.pk),
                    "cells": [o.number, o.title, o.get_status_display(), accounting(o.amount)],
                }
                for o in orders
            ],
            "total": accounting(sum(o.amount for o in approved_orders)),
        },
        "waivers": {
            "rows": [
                {
                    "url": _link("lienwaiver", w.pk),
                    "cells": [
                        w.get_type_display(),
                        w.through_date,
                        w.get_status_display(),
                        w.received_on or "—",
                        accounting(w.amount),
                    ],
                }
                for w in waivers
            ],
        },
    }
