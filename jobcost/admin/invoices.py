"""Vendor invoices in the back office, written through `services.invoices`.

An invoice is received (`invoice_create`) against an executed commitment (the choice shows
each one's vendor, number, remaining balance and retainage) and edited while received or coded
(`invoice_update`). It is coded across cost codes on its own page (`invoice_coding`, the
lines of `PATCH /v1/invoices/{id}`), or in full to the commitment's cost code by an action.
Approve, mark paid and void are buttons on the invoice's page, each with a confirmation page
(`object_steps`), and changelist actions, calling the same services as the API. Lists read
through `visible.invoice_list`, so the `pay app` column (the pay app whose period holds the
date) is the API's. Lien waivers are in `jobcost.admin.lien_waivers`.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.admin.utils import quote, unquote
from django.contrib.admin.widgets import AdminDateWidget
from django.core.exceptions import PermissionDenied
from django.db.models import F
from django.http import Http404
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from jobcost.admin.base import (
    ReadOnlyInline,
    ServiceAdmin,
    ServiceForm,
    change_link,
    confirm_each,
    date_range,
    is_operator,
    money_column,
    project_number_column,
    visible_queryset,
)
from jobcost.admin.display import dollars, percent
from jobcost.admin.fields import DollarsField, LabelledChoiceField
from jobcost.admin.invoice_coding import CODABLE, coding_view
from jobcost.admin.object_steps import ObjectSteps, Step
from jobcost.error_codes import CommitmentErrorCode
from jobcost.errors import ApiError, ValidationFailed
from jobcost.limits import PAYMENT_REFERENCE_MAX
from jobcost.models import (
    Commitment,
    CommitmentStatus,
    Invoice,
    InvoiceLine,
    InvoiceStatus,
    LienWaiver,
    PayApp,
)
from jobcost.selectors import visible
from jobcost.selectors.visible import pay_app_holding
from jobcost.services import invoices

TIMESTAMPS = ("created_at", "updated_at")
S = InvoiceStatus


def commitment_label(commitment: Commitment) -> str:
    """`J-2401 · SC-001 · Keystone Concrete · $52,000.00 remaining · 10.00% retainage`
    (select `project` and `vendor`)."""
    remaining = dollars(commitment.remaining, commitment.project.currency)
    return (
        f"{commitment.project.number} · {commitment.number} · {commitment.vendor.name} · "
        f"{remaining} remaining · {percent(commitment.retainage_pct)} retainage"
    )


def commitment_field(*, executed_only: bool, **kwargs) -> LabelledChoiceField:
    """A commitment choice labelled with its vendor, number and remaining balance; only
    executed commitments when invoices are received against it."""
    queryset = Commitment.objects.select_related("project", "vendor").order_by(
        "project__number", "number"
    )
    if executed_only:
        queryset = queryset.filter(status=CommitmentStatus.EXECUTED)
    return LabelledChoiceField(queryset, label_of=commitment_label, **kwargs)


class InvoiceAddForm(ServiceForm):
    """`invoice_create`'s arguments: the commitment gives the project, vendor and retainage."""

    commitment = commitment_field(
        executed_only=True,
        help_text="Executed commitments only. The invoice takes the commitment's vendor and "
        "retainage; its amount must fit in the remaining balance.",
    )
    amount = DollarsField(label="Amount ($)", min_value=1)

    class Meta:
        model = Invoice
        fields = ["commitment", "number", "invoice_date", "due_date", "amount"]


class InvoiceChangeForm(ServiceForm):
    """What `invoice_update` edits; the service refuses anything past coded."""

    amount = DollarsField(label="Amount ($)", min_value=1)

    class Meta:
        model = Invoice
        fields = ["number", "invoice_date", "due_date", "amount"]


class InvoiceLineInline(ReadOnlyInline):
    """The invoice's coding, read-only (posted to the budget's `actual` on approval)."""

    model = InvoiceLine
    fields = readonly_fields = ("position", "cost_code", "amount_display")
    amount_display = money_column("amount", "Amount")

    def has_view_permission(self, request, obj=None) -> bool:
        # Whoever may read the invoice reads its coding (members have no Django permissions
        # of their own; the invoice's admin decides by the API policy).
        return self.admin_site._registry[Invoice].has_view_permission(request, obj)

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("cost_code")
            .annotate(currency=F("invoice__project__currency"))
        )


class InvoicePaymentForm(forms.Form):
    """The "Mark paid" page: the day the invoice was paid (default today) and the check or
    wire number."""

    paid_on = forms.DateField(
        label="Paid on",
        widget=AdminDateWidget,
        help_text="Today or earlier, not before the invoice date.",
    )
    reference = forms.CharField(
        label="Check or wire number", max_length=PAYMENT_REFERENCE_MAX, required=False
    )

    def __init__(self, data=None, *, obj: Invoice) -> None:
        super().__init__(data, initial={"paid_on": timezone.localdate()})


def with_period_pay_app_number(queryset, date_field: str):
    """`queryset` with `period_pay_app_number` beside the selector's `period_pay_app_id`."""
    return queryset.annotate(period_pay_app_number=pay_app_holding(date_field, "number"))


def period_pay_app_link(obj) -> str:
    """The API's `pay_app` of an invoice or waiver (`period_pay_app_id`), linked and named
    by its number ("Pay app #3")."""
    number = getattr(obj, "period_pay_app_number", None)
    label = f"Pay app #{number}" if number is not None else None
    return change_link(PayApp, obj.period_pay_app_id, label)


@admin.register(Invoice)
class InvoiceAdmin(ObjectSteps, ServiceAdmin):
    """Vendor invoices with their retainage and net; coded on their own page, moved by the
    buttons of their page (and the list's actions)."""

    policy_basename = "invoices"
    # Coding is `PATCH /v1/invoices/{id}` with lines.
    policy_actions = {"code_in_full": "partial_update"}
    steps = (
        Step(
            slug="approve",
            label="Approve",
            policy_action="approve",
            offered=lambda invoice: invoice.status == S.CODED,
            explain=lambda invoice: (
                f"Approve invoice {invoice.number} from {invoice.vendor.name} for "
                f"{dollars(invoice.amount, invoice.currency)}: it is billed against commitment "
                f"{invoice.commitment.number}, its lines are posted to the budget's actual cost, "
                "and a conditional progress lien waiver is requested from the vendor."
            ),
            run=lambda invoice, _data: invoices.invoice_approve(invoice_id=invoice.pk),
            done=lambda invoice: f"Invoice {invoice.number} approved; lien waiver requested.",
        ),
        Step(
            slug="mark-paid",
            label="Mark paid",
            policy_action="mark_paid",
            offered=lambda invoice: invoice.status == S.APPROVED,
            explain=lambda invoice: (
                f"Record invoice {invoice.number} from {invoice.vendor.name} as paid "
                f"({dollars(invoice.net_amount, invoice.currency)} net of "
                f"{dollars(invoice.retainage_amount, invoice.currency)} retainage), with the "
                "day it was paid and the check or wire number."
            ),
            run=lambda invoice, data: invoices.invoice_mark_paid(
                invoice_id=invoice.pk, paid_on=data["paid_on"], reference=data["reference"]
            ),
            done=lambda invoice: (
                f"Invoice {invoice.number} marked paid on {invoice.paid_on:%b} "
                f"{invoice.paid_on.day}, {invoice.paid_on.year}"
                + (f" ({invoice.payment_reference})." if invoice.payment_reference else ".")
            ),
            form=InvoicePaymentForm,
            form_takes_object=True,
        ),
        Step(
            slug="void",
            label="Void",
            policy_action="void",
            offered=lambda invoice: invoice.status in CODABLE,
            explain=lambda invoice: (
                f"Void invoice {invoice.number} from {invoice.vendor.name} for "
                f"{dollars(invoice.amount, invoice.currency)}. It stays on record as void and "
                "is never billed or posted."
            ),
            run=lambda invoice, _data: invoices.invoice_void(invoice_id=invoice.pk),
            done=lambda invoice: f"Invoice {invoice.number} voided.",
        ),
    )

    add_form, change_form = InvoiceAddForm, InvoiceChangeForm
    add_fieldsets = (
        (None, {"fields": ["commitment", "number", "invoice_date", "due_date", "amount"]}),
    )
    change_fieldsets = (
        (None, {"fields": ["id", "project", "commitment", "vendor", "number", "status"]}),
        ("Dates", {"fields": ["invoice_date", "due_date", "pay_app_display"]}),
        (
            "Amounts",
            {
                "fields": [
                    "amount",
                    "retainage_pct",
                    "retainage_amount_display",
                    "net_amount_display",
                ]
            },
        ),
        ("Lien waivers", {"fields": ["lien_waivers_display"]}),
        ("Payment", {"fields": ["paid_on", "payment_reference"]}),
        ("History", {"fields": ["approved_at", "paid_at", "voided_at", *TIMESTAMPS]}),
    )
    change_readonly = (
        "id",
        "project",
        "commitment",
        "vendor",
        "status",
        "pay_app_display",
        "lien_waivers_display",
        "retainage_pct",
        "retainage_amount_display",
        "net_amount_display",
        "approved_at",
        "paid_at",
        "paid_on",
        "payment_reference",
        "voided_at",
        *TIMESTAMPS,
    )
    # Money first after who and what state, so it is in view at 1440 px beside the filters.
    list_display = (
        "number",
        "vendor",
        "status",
        "amount_display",
        "retainage_amount_display",
        "net_amount_display",
        "invoice_date",
        "due_date",
        "commitment_number",
        "project_number",
    )
    list_select_related = ("project", "vendor", "commitment")
    list_filter = (
        "project",
        "status",
        "vendor",
        date_range("invoice_date", "invoice date"),
        date_range("due_date", "due date"),
    )
    search_fields = (
        "number",
        "vendor__name",
        "commitment__number",
        "project__number",
        "project__name",
        "=id",
    )
    ordering = ("-invoice_date", "-number")
    list_totals = {
        "amount_display": "amount",
        "retainage_amount_display": "retainage_amount",
        "net_amount_display": F("amount") - F("retainage_amount"),
    }
    project_number = project_number_column()

    @admin.display(description="Commitment", ordering="commitment__number")
    def commitment_number(self, invoice: Invoice) -> str:
        return invoice.commitment.number

    actions = ("code_in_full", "approve", "mark_paid", "void")

    amount_display = money_column("amount", "Amount", ordering="amount")
    retainage_amount_display = money_column(
        "retainage_amount", "Retainage", ordering="retainage_amount"
    )
    net_amount_display = money_column("net_amount", "Net")

    @admin.display(description="Pay app (period)")
    def pay_app_display(self, invoice: Invoice) -> str:
        return period_pay_app_link(invoice)

    @admin.display(description="Lien waivers")
    def lien_waivers_display(self, invoice: Invoice) -> str:
        """The invoice's waivers, each linked: `Conditional progress, $1,234.50: Requested`."""
        waivers = invoice.lien_waivers.order_by("created_at", "id")
        items = [
            format_html(
                '<li data-waiver="{}">{}</li>',
                waiver.status,
                change_link(
                    LienWaiver,
                    waiver.pk,
                    f"{waiver.get_type_display()}, {dollars(waiver.amount, invoice.currency)}: "
                    f"{waiver.get_status_display()}",
                ),
            )
            for waiver in waivers
        ]
        if not items:
            return "None yet (requested on approval)."
        return format_html("<ul>{}</ul>", format_html_join("", "{}", ((i,) for i in items)))

    def get_queryset(self, request):
        queryset = visible_queryset(self, request, visible.invoice_list)
        return with_period_pay_app_number(queryset, "invoice_date")

    def get_inlines(self, request, obj):
        return [] if obj is None else [InvoiceLineInline]

    def service_create(self, request, data):
        return invoices.invoice_create(
            commitment=data["commitment"],
            number=data["number"],
            invoice_date=data["invoice_date"],
            due_date=data["due_date"],
            amount=data["amount"],
        )

    def service_update(self, request, obj, changes):
        try:
            return invoices.invoice_update(invoice_id=obj.pk, changes=changes)
        except ApiError as exc:
            amount = changes.get("amount", obj.amount)
            if exc.code == CommitmentErrorCode.LINES_SUM_MISMATCH:
                raise ValidationFailed(
                    f"The invoice is coded to {dollars(obj.amount, obj.currency)} across its "
                    f"lines; code it again to {dollars(amount, obj.currency)} first "
                    "(Code to cost codes).",
                    code=CommitmentErrorCode.LINES_SUM_MISMATCH,
                    param="amount",
                ) from exc
            raise

    # The coding page and the buttons of the invoice's page.
    def get_urls(self):
        code = path(
            "<path:object_id>/code/",
            self.admin_site.admin_view(self.code_view),
            name="jobcost_invoice_code",
        )
        return [code, *super().get_urls()]

    def may_code(self, request) -> bool:
        """Coding is `PATCH /v1/invoices/{id}`: operators need Django's change permission."""
        if is_operator(request):
            return self.has_change_permission(request)
        return self._may(request, "partial_update")

    def code_view(self, request, object_id):
        """The invoice's coding page (`invoice_coding.coding_view`), for whoever may code."""
        invoice = self.get_object(request, unquote(object_id))
        if invoice is None:
            raise Http404("No such invoice.")
        if not self.may_code(request):
            raise PermissionDenied
        return coding_view(self, request, invoice)

    def step_buttons(self, request, obj):
        buttons = super().step_buttons(request, obj)
        if obj.status in CODABLE and self.may_code(request):
            url = reverse("admin:jobcost_invoice_code", args=[quote(obj.pk)])
            buttons.insert(0, ("Code to cost codes", url))
        return buttons

    @admin.action(
        description="Code in full to the commitment's cost code (→ coded)…",
        permissions=["change"],
    )
    def code_in_full(self, request, queryset):
        def code(invoice: Invoice) -> Invoice:
            line = {"cost_code": invoice.commitment.cost_code, "amount": invoice.amount}
            return invoices.invoice_update(invoice_id=invoice.pk, changes={"lines": [line]})

        return confirm_each(
            self,
            request,
            queryset.select_related("commitment__cost_code"),
            code,
            "coded",
            title="Code invoices in full",
            explain="Each invoice is coded in full to its commitment's cost code; its cost "
            "reaches the budget when it is approved.",
        )

    @admin.action(
        description="Approve (coded → approved; bills the commitment)…", permissions=["change"]
    )
    def approve(self, request, queryset):
        return confirm_each(
            self,
            request,
            queryset,
            lambda invoice: invoices.invoice_approve(invoice_id=invoice.pk),
            "approved (lien waiver requested)",
            title="Approve invoices",
            explain="Each invoice's cost posts to its cost codes, it bills its commitment, and "
            "a conditional progress lien waiver is requested from its vendor.",
        )

    @admin.action(description="Mark paid (approved → paid)…", permissions=["change"])
    def mark_paid(self, request, queryset):
        return confirm_each(
            self,
            request,
            queryset,
            lambda invoice: invoices.invoice_mark_paid(invoice_id=invoice.pk),
            "marked paid",
            title="Mark invoices paid",
            explain="Each invoice is recorded paid today, with no check number; to give the "
            "date and the check or wire number, use the invoice's own Mark paid button.",
        )

    @admin.action(description="Void (received or coded)…", permissions=["change"])
    def void(self, request, queryset):
        return confirm_each(
            self,
            request,
            queryset,
            lambda invoice: invoices.invoice_void(invoice_id=invoice.pk),
            "voided",
            title="Void invoices",
            explain="Each invoice is voided: it never posts cost or bills its commitment, and "
            "it cannot be reopened.",
        )
