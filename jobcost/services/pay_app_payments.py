"""The owner's receipts against an approved pay app (docs/resources.md, pay_app_payment): each
receipt is a `PayAppPayment` of `amount` cents received on a day with the owner's reference (a
check or wire number); the pay app is `paid` when its receipts reach its `amount_certified`.

Lock order: as every pay-app write, the project first, then the pay app
(`lock_project_first`; jobcost/services/pay_apps.py): two receipts of one pay app queue on its
row lock, so the second reads what the first left and never takes more than remains.
"""

from __future__ import annotations

import datetime

from django.utils import timezone

from jobcost.error_codes import PayAppErrorCode
from jobcost.errors import InvalidRequest, ValidationFailed
from jobcost.models import PayApp, PayAppPayment, PayAppStatus
from jobcost.money import format_dollars
from jobcost.selectors.pay_apps import amount_remaining, paid_to_date
from jobcost.services.common import (
    day_in_words,
    ensure_not_future,
    lock_project_first,
    not_allowed,
    save_audited,
    service,
)

S = PayAppStatus


def _lock_approved(pay_app_id: str, *, verb: str) -> PayApp:
    """Lock the pay app's open project, then the pay app (409 `project_closed`), and check
    it is approved: 409 `invalid_state_transition` otherwise, saying why in words (`verb`:
    what the caller was about to do, "record a payment")."""
    pay_app = lock_project_first(PayApp, pay_app_id)
    if pay_app.status == S.PAID:
        raise not_allowed(
            pay_app,
            message=f"Pay app #{pay_app.number} is paid in full; nothing remains to receive.",
        )
    if pay_app.status != S.APPROVED:
        raise not_allowed(
            pay_app,
            message=f"Pay app #{pay_app.number} is {pay_app.status}; the owner pays an approved "
            f"(certified) pay app: approve it before you {verb}.",
        )
    return pay_app


def _receipt_note(payment: PayAppPayment) -> str:
    """`Received $1,000.00 on November 6, 2026, reference 10417 (pmt_…).`"""
    reference = f", reference {payment.reference}" if payment.reference else ""
    return (
        f"Received {format_dollars(payment.amount)} on {day_in_words(payment.received_on)}"
        f"{reference} ({payment.pk})."
    )


@service
def pay_app_payment_create(
    *,
    pay_app_id: str,
    amount: int,
    received_on: datetime.date | None = None,
    reference: str = "",
) -> PayAppPayment:
    """Record the owner's receipt of `amount` cents (> 0) against an approved pay app, received
    on `received_on` (default today; a later day is 400 `parameter_invalid`) with the owner's
    `reference` (≤ 100 characters, may be empty). Under the pay app's row lock: more than its
    `amount_remaining` (amount certified − receipts) is 422 `exceeds_amount_remaining` (param
    `amount`, in dollars); a pay app not approved is 409 `invalid_state_transition` (paid
    included: nothing remains), a closed project 409 `project_closed`. When the receipts
    reach the amount certified the pay app becomes `paid` (`paid_at`); a partial receipt
    leaves it approved. Either way the pay app's entry records `amount_paid` and
    `amount_remaining` before and after, and the receipt in its note.

    Emits: audit pay_app_payment.created, pay_app.payment_received, pay_app.paid; events
    pay_app.updated, pay_app.paid.
    """
    pay_app = _lock_approved(pay_app_id, verb="record a payment")
    if amount <= 0:
        raise InvalidRequest("amount must be a positive number of cents.", param="amount")
    day = ensure_not_future(
        received_on or timezone.localdate(), param="received_on", what="The date received"
    )
    paid = paid_to_date(pay_app.pk)
    remaining = amount_remaining(pay_app.amount_certified, paid) or 0
    if amount > remaining:
        raise ValidationFailed(
            f"A receipt of {format_dollars(amount)} is more than the "
            f"{format_dollars(remaining)} remaining on pay app #{pay_app.number} "
            f"({format_dollars(pay_app.amount_certified or 0)} certified, "
            f"{format_dollars(paid)} received).",
            code=PayAppErrorCode.EXCEEDS_AMOUNT_REMAINING,
            param="amount",
            object_id=pay_app.pk,
        )
    payment = save_audited(
        PayAppPayment(
            account_id=pay_app.account_id,
            project_id=pay_app.project_id,
            pay_app=pay_app,
            amount=amount,
            received_on=day,
            reference=reference,
        )
    )
    changes = {
        "amount_paid": {"before": paid, "after": paid + amount},
        "amount_remaining": {"before": remaining, "after": remaining - amount},
    }
    if amount == remaining:
        pay_app.status = S.PAID
        pay_app.paid_at = timezone.now()
        save_audited(pay_app, action="paid", note=_receipt_note(payment), extra=changes)
    else:
        save_audited(pay_app, action="payment_received", note=_receipt_note(payment), extra=changes)
    return payment


@service
def pay_app_mark_paid(
    *, pay_app_id: str, received_on: datetime.date | None = None, reference: str = ""
) -> PayApp:
    """Mark an approved pay app paid: record what remains of its amount certified as one
    receipt (`pay_app_payment_create`, with `received_on` and `reference`), which makes it
    `paid`. With nothing remaining (certified for $0.00) it becomes paid with no receipt;
    a `received_on` or `reference` sent then is 400 `parameter_invalid` (there is no receipt
    to hold it). 409 `invalid_state_transition` unless approved.

    Emits: audit pay_app_payment.created, pay_app.paid; events pay_app.paid.
    """
    pay_app = _lock_approved(pay_app_id, verb="mark it paid")
    remaining = amount_remaining(pay_app.amount_certified, paid_to_date(pay_app.pk)) or 0
    if remaining:
        pay_app_payment_create(
            pay_app_id=pay_app.pk, amount=remaining, received_on=received_on, reference=reference
        )
        return PayApp.objects.get(pk=pay_app.pk)
    for param, value in (("received_on", received_on), ("reference", reference)):
        if value:
            raise InvalidRequest(
                f"Nothing remains to receive on pay app #{pay_app.number} (it was certified for "
                f"{format_dollars(pay_app.amount_certified or 0)}): no receipt is recorded, so "
                f"send no {param}.",
                param=param,
            )
    pay_app.status = S.PAID
    pay_app.paid_at = timezone.now()
    return save_audited(
        pay_app, action="paid", note="Nothing remained to receive: no receipt was recorded."
    )
