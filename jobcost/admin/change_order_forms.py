"""The change-order form of the back office: the order and its lines in one form, saved by
one call of `services.change_orders` (docs/backoffice/change-orders.md).

The lines are a formset carried by the form (`ChangeOrderForm.lines`): every filled row is a
line (cost code, description, amount, budget change), a row left empty is ignored, and the
service's rule — the lines add up to the change order's amount — is shown at the lines, as are
refusals about one line (`lines[i].…`). Amounts are dollars; a deductive change order and its
lines are negative.
"""

from __future__ import annotations

from django import forms

from jobcost.admin.base import ServiceForm
from jobcost.admin.fields import DollarsField, LabelledChoiceField, with_account
from jobcost.errors import ApiError
from jobcost.limits import CHANGE_ORDER_LINES_MAX
from jobcost.models import (
    COMMITMENT_BINDING,
    ChangeOrder,
    ChangeOrderKind,
    Commitment,
    CostCode,
    Project,
)
from jobcost.money import MONEY_MAX

LINES_RULE = "The lines must add up to the change order's amount."


def cost_code_label(cost_code: CostCode) -> str:
    """`2026-014 · 03-300 Cast-in-place concrete` (select `project`)."""
    return f"{cost_code.project.number} · {cost_code.code} {cost_code.name}"


def commitment_label(commitment: Commitment) -> str:
    """`2026-014 · SC-003 Granite Ridge Concrete, Inc.` (select `project`, `vendor`)."""
    return f"{commitment.project.number} · {commitment.number} {commitment.vendor.name}"


class ChangeOrderLineForm(forms.Form):
    """One line: the cost code it changes, what, the contract (or commitment) amount and the
    budget change (blank: the same as the amount)."""

    cost_code = LabelledChoiceField(
        CostCode.objects.select_related("project").order_by("project__number", "code"),
        label_of=cost_code_label,
        required=False,
    )
    description = forms.CharField(max_length=500, required=False)
    amount = DollarsField(min_value=-MONEY_MAX, required=False, label="Amount ($)")
    budget_amount = DollarsField(min_value=-MONEY_MAX, required=False, label="Budget change ($)")

    def clean(self):
        data = super().clean()
        filled = any(data.get(name) not in (None, "") for name in data)
        if filled:
            if data.get("cost_code") is None:
                self.add_error("cost_code", "Choose the cost code this line changes.")
            if data.get("amount") is None:
                self.add_error("amount", "Enter the line's amount in dollars.")
        data["filled"] = filled
        return data


class ChangeOrderForm(ServiceForm):
    """A draft change order and its lines (add and edit). On add: project, kind and (for a
    commitment change order) the commitment; on edit those are fixed."""

    amount = DollarsField(min_value=-MONEY_MAX, label="Amount ($)")
    number = forms.CharField(
        max_length=60, required=False, help_text="Blank: the next number (CO-…, CCO-…)."
    )
    blank_lines = 3

    class Meta:
        model = ChangeOrder
        fields = ["title", "description"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        lines = []
        if self.service_obj is not None:
            lines = [
                {
                    "cost_code": line.cost_code,
                    "description": line.description,
                    "amount": line.amount,
                    "budget_amount": line.budget_amount,
                }
                for line in self.service_obj.lines.select_related("cost_code").order_by("position")
            ]
            self.fields["number"].initial = self.service_obj.number
            self.fields["amount"].initial = self.service_obj.amount
        formset_class = forms.formset_factory(
            ChangeOrderLineForm,
            extra=self.blank_lines,
            max_num=CHANGE_ORDER_LINES_MAX,
            validate_max=True,
            absolute_max=CHANGE_ORDER_LINES_MAX,
        )
        self.lines = formset_class(
            self.data if self.is_bound else None, initial=lines, prefix="lines"
        )
        codes = CostCode.objects.select_related("project").order_by("project__number", "code")
        if self.service_obj is not None:
            codes = codes.filter(project_id=self.service_obj.project_id)
        for line_form in self.lines.forms:
            line_form.fields["cost_code"].queryset = self.scope_choices(codes)

    def clean(self):
        data = super().clean()
        if not self.lines.is_valid():
            raise forms.ValidationError("Correct the lines below.")
        data["lines"] = [
            {
                "cost_code": line["cost_code"],
                "description": line.get("description") or "",
                "amount": line["amount"],
                **(
                    {"budget_amount": line["budget_amount"]}
                    if line.get("budget_amount") is not None
                    else {}
                ),
            }
            for line in (form.cleaned_data for form in self.lines.forms)
            if line.get("filled")
        ]
        return data

    def place_refusal(self, error: ApiError) -> None:
        """`lines[i]…` on the i-th filled row; `lines` above the lines; others as usual."""
        param = error.param or ""
        if param.startswith("lines"):
            filled = [form for form in self.lines.forms if form.cleaned_data.get("filled")]
            index = param[len("lines[") :].split("]", 1)[0] if param.startswith("lines[") else ""
            field = param.rsplit(".", 1)[1] if "." in param else None
            if index.isdigit() and int(index) < len(filled):
                form = filled[int(index)]
                form.add_error(field if field in form.fields else None, error.message)
            else:
                self.lines._non_form_errors = self.lines.error_class([error.message])
            self.add_error(None, "Correct the lines below.")
            return
        super().place_refusal(error)


class ChangeOrderAddForm(ChangeOrderForm):
    """A new draft: its project, kind and (commitment change orders) commitment as well."""

    project = LabelledChoiceField(
        Project.objects.select_related("account").order_by("account__name", "number"),
        label_of=with_account,
    )
    kind = forms.ChoiceField(choices=ChangeOrderKind.choices, initial=ChangeOrderKind.OWNER)
    commitment = LabelledChoiceField(
        Commitment.objects.filter(status__in=COMMITMENT_BINDING)
        .select_related("project", "vendor")
        .order_by("project__number", "number"),
        label_of=commitment_label,
        required=False,
        help_text="For a commitment change order: the executed commitment it changes.",
    )
