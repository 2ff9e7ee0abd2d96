"""The owner's side of a pay app in the back office (docs/backoffice/pay-apps.md, "The
certificate and the owner's payments"): the approve step that records the architect's
certificate, "Record payment" and "Mark paid" on an approved pay app, and the receipts
listed on its page. Each is an `object_steps.Step`; the rules are the services'
(`services.pay_apps.pay_app_approve`, `services.pay_app_payments`), and their refusals are
told in the accountant's words and dollars.
"""

from __future__ import annotations

from django import forms
from django.contrib.admin.widgets import AdminDateWidget
from django.utils import timezone

from jobcost.admin.display import dollars
from jobcost.admin.fields import DollarsField
from jobcost.admin.object_steps import Step
from jobcost.error_codes import RequestErrorCode
from jobcost.errors import ApiError
from jobcost.limits import CERTIFICATION_NOTE_MAX, PAYMENT_REFERENCE_MAX
from jobcost.models import PayApp, PayAppStatus
from jobcost.selectors.pay_apps import amount_remaining, paid_to_date, pay_app_figures
from jobcost.services import pay_app_payments, pay_apps

S = PayAppStatus


def line_8(pay_app: PayApp) -> int:
    """The current payment due (G702 line 8, cents) of a pay app read as the admin reads it."""
    return pay_app_figures(pay_app).current_payment_due


def remaining_of(pay_app: PayApp) -> int:
    """What the owner still owes on the certificate (cents; 0 before approval)."""
    return amount_remaining(pay_app.amount_certified, paid_to_date(pay_app.pk)) or 0


def _date_field(label: str, help_text: str) -> forms.DateField:
    return forms.DateField(label=label, widget=AdminDateWidget, help_text=help_text)


class CertificateForm(forms.Form):
    """The approve page: the amount certified (default line 8), its date (default today) and
    the note the architect gave for certifying less."""

    amount_certified = DollarsField(label="Amount certified ($)")
    certified_on = _date_field(
        "Certified on", "The date of the architect's certificate: today or earlier."
    )
    certification_note = forms.CharField(
        label="Why less was certified",
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        required=False,
        max_length=CERTIFICATION_NOTE_MAX,
        help_text="Required when the amount certified is less than the current payment due.",
    )

    def __init__(self, data=None, *, obj: PayApp) -> None:
        due = line_8(obj)
        initial = {"amount_certified": max(due, 0), "certified_on": timezone.localdate()}
        super().__init__(data, initial=initial)
        self.fields[
            "amount_certified"
        ].help_text = (
            f"At most the current payment due (line 8), {dollars(max(due, 0), obj.currency)}."
        )


class ReceiptForm(forms.Form):
    """The "Mark paid" page: the day the money came in and the check or wire number."""

    received_on = _date_field("Date received", "The day the money came in: today or earlier.")
    reference = forms.CharField(
        label="Check or wire number", max_length=PAYMENT_REFERENCE_MAX, required=False
    )

    def __init__(self, data=None, *, obj: PayApp) -> None:
        super().__init__(data, initial={"received_on": timezone.localdate()})


class PaymentForm(ReceiptForm):
    """The "Record payment" page: the amount received (default what remains), the day and the
    check or wire number."""

    amount = DollarsField(label="Amount received ($)", min_value=1)
    field_order = ("amount", "received_on", "reference")

    def __init__(self, data=None, *, obj: PayApp) -> None:
        super().__init__(data, obj=obj)
        remaining = remaining_of(obj)
        self.initial["amount"] = remaining
        self.fields[
            "amount"
        ].help_text = (
            f"At most what remains of the certificate, {dollars(remaining, obj.currency)}."
        )


def _words(pay_app: PayApp, error: ApiError) -> str:
    """The service's refusal, with the API's field name told as the page names it."""
    if error.code == RequestErrorCode.PARAMETER_MISSING:
        return error.message.replace("needs a certification_note saying", "needs a note saying")
    return error.message


def certificate_figures(pay_app: PayApp) -> list[tuple[str, str]]:
    """What the approve page shows: the application's line 8 and what is left of it."""
    figures = pay_app_figures(pay_app)
    lines = (
        ("3. Contract sum to date", figures.contract_sum_to_date),
        ("6. Total earned less retainage", figures.total_earned_less_retainage),
        ("7. Less previous certificates for payment", figures.less_previous_certificates),
        ("8. Current payment due", figures.current_payment_due),
    )
    return [(label, dollars(cents, pay_app.currency)) for label, cents in lines]


def payment_figures(pay_app: PayApp) -> list[tuple[str, str]]:
    """What the payment pages show: the certificate, what was received and what remains."""
    paid = paid_to_date(pay_app.pk)
    return [
        ("Amount certified", dollars(pay_app.amount_certified, pay_app.currency)),
        ("Received so far", dollars(paid, pay_app.currency)),
        ("Remaining", dollars(amount_remaining(pay_app.amount_certified, paid), pay_app.currency)),
    ]


def receipts_table(pay_app: PayApp) -> dict:
    """The receipts recorded against the pay app, oldest first, as the pages list them."""
    receipts = pay_app.payments.order_by("received_on", "created_at", "id")
    return {
        "title": "Payments received from the owner",
        "id": "receipts",
        "columns": ("Date received", "Check or wire number", "Amount"),
        "rows": [
            (
                f"{receipt.received_on:%b} {receipt.received_on.day}, {receipt.received_on.year}",
                receipt.reference or "—",
                dollars(receipt.amount, pay_app.currency),
            )
            for receipt in receipts
        ],
    }


def _approve(pay_app: PayApp, data: dict) -> PayApp:
    """`pay_app_approve` with the page's certificate; the list's action sends none of it,
    which certifies line 8 today."""
    return pay_apps.pay_app_approve(
        pay_app_id=pay_app.pk,
        amount_certified=data.get("amount_certified"),
        certified_on=data.get("certified_on"),
        certification_note=data.get("certification_note") or "",
    )


def _record(pay_app: PayApp, data: dict) -> PayApp:
    pay_app_payments.pay_app_payment_create(
        pay_app_id=pay_app.pk,
        amount=data["amount"],
        received_on=data["received_on"],
        reference=data["reference"],
    )
    return PayApp.objects.select_related("project").get(pk=pay_app.pk)


def _mark_paid(pay_app: PayApp, data: dict) -> PayApp:
    """`pay_app_mark_paid`: what remains as one receipt (the list's action: dated today); a
    certificate of $0.00 is marked paid with no receipt, so the page's date is not sent."""
    if not remaining_of(pay_app):
        return pay_app_payments.pay_app_mark_paid(pay_app_id=pay_app.pk)
    return pay_app_payments.pay_app_mark_paid(
        pay_app_id=pay_app.pk,
        received_on=data.get("received_on"),
        reference=data.get("reference") or "",
    )


def _certified(pay_app: PayApp) -> str:
    note = f" ({pay_app.certification_note})" if pay_app.certification_note else ""
    amount = dollars(pay_app.amount_certified, pay_app.currency)
    day = pay_app.certified_on
    return f"{pay_app}: Approved, certified for {amount} on {day:%b} {day.day}, {day.year}{note}."


def _received(pay_app: PayApp) -> str:
    if pay_app.status == S.PAID:
        return f"{pay_app}: Payment recorded; the certificate is paid in full."
    remaining = dollars(remaining_of(pay_app), pay_app.currency)
    return f"{pay_app}: Payment recorded; {remaining} remains to be received."


APPROVE = Step(
    slug="approve",
    label="Approve",
    policy_action="approve",
    offered=lambda pay_app: pay_app.status == S.SUBMITTED,
    explain=lambda pay_app: (
        "Record the architect's certificate for payment: the amount certified (the current "
        "payment due unless less was certified, with the reason) and its date. The pay app "
        "becomes the previous certificate of the next one, and the amount certified is what "
        "the owner owes on it."
    ),
    run=_approve,
    done=_certified,
    form=CertificateForm,
    form_takes_object=True,
    refusal=_words,
    figures=certificate_figures,
)
RECORD_PAYMENT = Step(
    slug="record-payment",
    label="Record payment",
    policy_action="record_payment",
    offered=lambda pay_app: pay_app.status == S.APPROVED,
    explain=lambda pay_app: (
        "Record a payment received from the owner against the certificate. When the payments "
        "reach the amount certified, the pay app is paid."
    ),
    run=_record,
    done=_received,
    form=PaymentForm,
    form_takes_object=True,
    figures=payment_figures,
    details=receipts_table,
)
MARK_PAID = Step(
    slug="mark-paid",
    label="Mark paid",
    policy_action="mark_paid",
    offered=lambda pay_app: pay_app.status == S.APPROVED,
    explain=lambda pay_app: (
        f"Record the {dollars(remaining_of(pay_app), pay_app.currency)} that remains of the "
        "certificate as one payment received from the owner: the pay app is then paid."
        if remaining_of(pay_app)
        else "Nothing remains to receive on the certificate: the pay app is marked paid "
        "with no payment recorded."
    ),
    run=_mark_paid,
    done=lambda pay_app: f"{pay_app}: Marked paid.",
    form=ReceiptForm,
    form_takes_object=True,
    figures=payment_figures,
    details=receipts_table,
)
