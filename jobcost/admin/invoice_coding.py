"""Coding a vendor invoice across cost codes in the back office (`<invoice>/code/`).

The page is a formset of lines (cost code of the invoice's project, labelled
"03-300 Cast-in-place concrete", and an amount in dollars) posted as one
`invoice_update(changes={"lines": …})`, the service behind `PATCH /v1/invoices/{id}` with
`lines`: the lines must add up to the invoice amount to the cent, else the service refuses
(`lines_sum_mismatch`) and nothing is written; the page then says by how much, in dollars,
under the lines. An invoice line has a cost code and an amount only (no description).
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.admin.utils import quote
from django.db import transaction
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from jobcost.admin.base import REFUSALS
from jobcost.admin.display import dollars
from jobcost.admin.fields import DollarsField, LabelledChoiceField
from jobcost.error_codes import CommitmentErrorCode
from jobcost.errors import ApiError, translate
from jobcost.models import INVOICE_EDITABLE, CostCode, Invoice
from jobcost.services import invoices

CODABLE = INVOICE_EDITABLE  # coding is an edit of the invoice (services.invoices)
# Blank rows offered under the invoice's lines.
EXTRA_LINES = 3


def cost_code_label(code: CostCode) -> str:
    """`03-300 Cast-in-place concrete`."""
    return f"{code.code} {code.name}"


class InvoiceLineForm(forms.Form):
    """One line of the coding: a cost code of the invoice's project and dollars. A row left
    blank (or cleared) is no line; a row with only one of the two is an error."""

    cost_code = LabelledChoiceField(
        CostCode.objects.none(), label_of=cost_code_label, required=False
    )
    amount = DollarsField(label="Amount ($)", min_value=1, required=False)

    def __init__(self, *args, cost_codes=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if cost_codes is not None:
            self.fields["cost_code"].queryset = cost_codes

    def clean(self) -> dict:
        data = super().clean()
        code, amount = data.get("cost_code"), data.get("amount")
        if code is None and amount is not None and "cost_code" not in self.errors:
            self.add_error("cost_code", "Choose the cost code of this amount.")
        if amount is None and code is not None and "amount" not in self.errors:
            self.add_error("amount", "Enter the amount for this cost code.")
        return data


class BaseLinesFormSet(forms.BaseFormSet):
    """Blank rows are skipped; at least one line is needed."""

    def lines(self) -> list[dict]:
        """The filled lines as the service takes them: [{cost_code, amount (cents)}]."""
        return [
            {"cost_code": form.cleaned_data["cost_code"], "amount": form.cleaned_data["amount"]}
            for form in self.forms
            if form.cleaned_data.get("cost_code") is not None
            and form.cleaned_data.get("amount") is not None
        ]

    def clean(self) -> None:
        if any(self.errors):
            return
        if not self.lines():
            raise forms.ValidationError("Enter at least one line: a cost code and an amount.")


LinesFormSet = forms.formset_factory(InvoiceLineForm, formset=BaseLinesFormSet, extra=EXTRA_LINES)


def lines_total(lines: list[dict]) -> int:
    """The sum of the lines' amounts (cents)."""
    return sum(line["amount"] for line in lines)


def coding_refusal(invoice: Invoice, lines: list[dict], error: ApiError) -> str:
    """The service's refusal in the accountant's words: a sum mismatch says both figures and
    the difference in dollars; anything else is the service's own message."""
    if error.code != CommitmentErrorCode.LINES_SUM_MISMATCH:
        return error.message
    total = lines_total(lines)
    currency = invoice.currency
    gap = invoice.amount - total
    side = "short of" if gap > 0 else "over"
    return (
        f"The lines add up to {dollars(total, currency)} but the invoice is for "
        f"{dollars(invoice.amount, currency)}: {dollars(abs(gap), currency)} {side} the "
        "invoice amount. The lines must add up to the invoice amount exactly; nothing was saved."
    )


def coding_view(modeladmin, request, invoice: Invoice):
    """GET: the invoice's lines (or one line of its full amount to the commitment's cost code
    when it has none) and blank rows; POST: code it through `invoice_update`."""
    cost_codes = modeladmin.scope_choices(
        request, CostCode.objects.filter(project_id=invoice.project_id).order_by("code")
    )
    kwargs = {"form_kwargs": {"cost_codes": cost_codes}, "prefix": "lines"}
    codable = invoice.status in CODABLE
    refusal = None
    change_url = reverse("admin:jobcost_invoice_change", args=[quote(invoice.pk)])
    if request.method == "POST" and codable:
        formset = LinesFormSet(request.POST, **kwargs)
        if formset.is_valid():
            lines = formset.lines()
            try:
                with transaction.atomic():
                    invoices.invoice_update(invoice_id=invoice.pk, changes={"lines": lines})
            except REFUSALS as exc:
                refusal = coding_refusal(invoice, lines, translate(exc))
            else:
                count = len(lines)
                modeladmin.message_user(
                    request,
                    f"Invoice {invoice.number} coded to {count} cost code"
                    f"{'' if count == 1 else 's'}, {dollars(invoice.amount, invoice.currency)}.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(change_url)
    else:
        current = [
            {"cost_code": line.cost_code_id, "amount": line.amount} for line in invoice.lines.all()
        ] or [{"cost_code": invoice.commitment.cost_code_id, "amount": invoice.amount}]
        formset = LinesFormSet(initial=current, **kwargs)
    posted = formset.lines() if formset.is_bound and formset.is_valid() else None
    context = {
        **modeladmin.admin_site.each_context(request),
        "opts": modeladmin.model._meta,
        "title": f"Code invoice {invoice.number}",
        "invoice": invoice,
        "amount": dollars(invoice.amount, invoice.currency),
        "codable": codable,
        "formset": formset,
        "refusal": refusal,
        "posted_total": None if posted is None else dollars(lines_total(posted), invoice.currency),
        "change_url": change_url,
    }
    return TemplateResponse(request, "admin/jobcost/invoice/code.html", context)
