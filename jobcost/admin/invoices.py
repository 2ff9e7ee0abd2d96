"""Vendor invoices and lien waivers, written through `services.invoices` and
`services.lien_waivers`.

An invoice is received (`invoice_create`) and edited while received or coded
(`invoice_update`); coding here is one action that codes the whole amount to the
commitment's cost code (a split across codes goes through `PATCH /v1/invoices/{id}`).
Approve, mark paid and void are actions calling the same services as the API. Lists read
through `visible.invoice_list` / `visible.lien_waiver_list`, so the `pay app` column (the
pay app whose period holds the date) is the API's.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db.models import F

from jobcost.admin.base import (
    ReadOnlyInline,
    ServiceAdmin,
    ServiceForm,
    change_link,
    money_column,
    run_each,
    visible_queryset,
)
from jobcost.admin.fields import DollarsField, LabelledChoiceField, with_account
from jobcost.models import (
    Commitment,
    Invoice,
    InvoiceLine,
    LienWaiver,
    LienWaiverStatus,
    PayApp,
    Project,
    Vendor,
)
from jobcost.selectors import visible
from jobcost.services import invoices, lien_waivers

TIMESTAMPS = ("created_at", "updated_at")


def _commitment_label(commitment: Commitment) -> str:
    return f"{commitment.project.number} · {commitment.number} · {commitment.vendor.name}"


def _commitment_field(**kwargs) -> LabelledChoiceField:
    return LabelledChoiceField(
        Commitment.objects.select_related("project", "vendor").order_by(
            "project__number", "number"
        ),
        label_of=_commitment_label,
        **kwargs,
    )


class InvoiceAddForm(ServiceForm):
    """`invoice_create`'s arguments: the commitment gives the project, vendor and retainage."""

    commitment = _commitment_field(help_text="An executed commitment with enough remaining.")
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

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("cost_code")
            .annotate(currency=F("invoice__project__currency"))
        )


def period_pay_app_link(obj) -> str:
    """The API's `pay_app` of an invoice or waiver (`period_pay_app_id`), linked."""
    return change_link(PayApp, obj.period_pay_app_id)


@admin.register(Invoice)
class InvoiceAdmin(ServiceAdmin):
    """Vendor invoices with their retainage and net; coding and transitions are actions."""

    policy_basename = "invoices"
    # Coding is `PATCH /v1/invoices/{id}` with lines.
    policy_actions = {"code_in_full": "partial_update"}

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
        ("History", {"fields": ["approved_at", "paid_at", "voided_at", *TIMESTAMPS]}),
    )
    change_readonly = (
        "id",
        "project",
        "commitment",
        "vendor",
        "status",
        "pay_app_display",
        "retainage_pct",
        "retainage_amount_display",
        "net_amount_display",
        "approved_at",
        "paid_at",
        "voided_at",
        *TIMESTAMPS,
    )
    list_display = (
        "number",
        "vendor",
        "commitment",
        "project",
        "invoice_date",
        "amount_display",
        "retainage_amount_display",
        "net_amount_display",
        "status",
        "pay_app_display",
    )
    list_select_related = ("project", "vendor", "commitment")
    list_filter = ("project", "status", "vendor")
    search_fields = ("number", "vendor__name", "=id")
    ordering = ("-invoice_date", "number")
    actions = ("code_in_full", "approve", "mark_paid", "void")

    amount_display = money_column("amount", "Amount", ordering="amount")
    retainage_amount_display = money_column("retainage_amount", "Retainage")
    net_amount_display = money_column("net_amount", "Net")

    @admin.display(description="Pay app (period)")
    def pay_app_display(self, invoice: Invoice) -> str:
        return period_pay_app_link(invoice)

    def get_queryset(self, request):
        return visible_queryset(self, request, visible.invoice_list)

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
        return invoices.invoice_update(invoice_id=obj.pk, changes=changes)

    @admin.action(
        description="Code in full to the commitment's cost code (→ coded)", permissions=["change"]
    )
    def code_in_full(self, request, queryset):
        def code(invoice: Invoice) -> Invoice:
            line = {"cost_code": invoice.commitment.cost_code, "amount": invoice.amount}
            return invoices.invoice_update(invoice_id=invoice.pk, changes={"lines": [line]})

        run_each(self, request, queryset.select_related("commitment__cost_code"), code, "coded")

    @admin.action(
        description="Approve (coded → approved; bills the commitment)", permissions=["change"]
    )
    def approve(self, request, queryset):
        run_each(
            self,
            request,
            queryset,
            lambda invoice: invoices.invoice_approve(invoice_id=invoice.pk),
            "approved (lien waiver requested)",
        )

    @admin.action(description="Mark paid (approved → paid)", permissions=["change"])
    def mark_paid(self, request, queryset):
        run_each(
            self,
            request,
            queryset,
            lambda invoice: invoices.invoice_mark_paid(invoice_id=invoice.pk),
            "marked paid",
        )

    @admin.action(description="Void (received or coded)", permissions=["change"])
    def void(self, request, queryset):
        run_each(
            self,
            request,
            queryset,
            lambda invoice: invoices.invoice_void(invoice_id=invoice.pk),
            "voided",
        )


class LienWaiverAddForm(ServiceForm):
    """`lien_waiver_create`'s arguments (amount in dollars)."""

    project = LabelledChoiceField(
        Project.objects.select_related("account").order_by("account__name", "number"),
        label_of=with_account,
    )
    vendor = LabelledChoiceField(
        Vendor.objects.select_related("account").order_by("account__name", "name"),
        label_of=with_account,
    )
    amount = DollarsField(label="Amount ($)")
    commitment = _commitment_field(required=False)
    invoice = LabelledChoiceField(
        Invoice.objects.select_related("vendor").order_by("vendor__name", "number"),
        label_of=lambda invoice: f"{invoice.vendor.name} · {invoice.number}",
        required=False,
    )
    document_url = forms.URLField(max_length=2000, required=False, assume_scheme="https")

    class Meta:
        model = LienWaiver
        fields = [
            "project",
            "vendor",
            "type",
            "amount",
            "through_date",
            "commitment",
            "invoice",
            "document_url",
        ]


class LienWaiverChangeForm(ServiceForm):
    """What `lien_waiver_update` records besides the status (an action): the document and
    the day it was received."""

    document_url = forms.URLField(max_length=2000, required=False, assume_scheme="https")

    class Meta:
        model = LienWaiver
        fields = ["received_on", "document_url"]


@admin.register(LienWaiver)
class LienWaiverAdmin(ServiceAdmin):
    """Lien waivers; receipt and rejection are actions through `lien_waiver_update`."""

    policy_basename = "lien-waivers"
    # Receipt and rejection are `PATCH /v1/lien-waivers/{id}` with a status.
    policy_actions = {"mark_received": "partial_update", "mark_rejected": "partial_update"}

    add_form, change_form = LienWaiverAddForm, LienWaiverChangeForm
    add_fieldsets = (
        (None, {"fields": ["project", "vendor", "type", "amount", "through_date"]}),
        ("Source", {"fields": ["commitment", "invoice", "document_url"]}),
    )
    change_fieldsets = (
        (None, {"fields": ["id", "project", "vendor", "type", "status"]}),
        ("Waiver", {"fields": ["amount_display", "through_date", "pay_app_display"]}),
        ("Source", {"fields": ["commitment", "invoice"]}),
        ("Receipt", {"fields": ["received_on", "document_url"]}),
        ("Timestamps", {"fields": TIMESTAMPS}),
    )
    change_readonly = (
        "id",
        "project",
        "vendor",
        "type",
        "status",
        "amount_display",
        "through_date",
        "pay_app_display",
        "commitment",
        "invoice",
        *TIMESTAMPS,
    )
    list_display = (
        "vendor",
        "project",
        "type",
        "amount_display",
        "through_date",
        "status",
        "received_on",
        "pay_app_display",
    )
    list_display_links = ("vendor", "type")
    list_select_related = ("project", "vendor")
    list_filter = ("project", "status", "type")
    search_fields = ("vendor__name", "=id")
    ordering = ("-through_date", "vendor__name")
    actions = ("mark_received", "mark_rejected")

    amount_display = money_column("amount", "Amount", ordering="amount")

    @admin.display(description="Pay app (period)")
    def pay_app_display(self, waiver: LienWaiver) -> str:
        return period_pay_app_link(waiver)

    def get_queryset(self, request):
        return visible_queryset(self, request, visible.lien_waiver_list)

    def service_create(self, request, data):
        return lien_waivers.lien_waiver_create(
            project=data["project"],
            vendor=data["vendor"],
            type=data["type"],
            amount=data["amount"],
            through_date=data["through_date"],
            commitment=data["commitment"],
            invoice=data["invoice"],
            document_url=data["document_url"],
        )

    def service_update(self, request, obj, changes):
        return lien_waivers.lien_waiver_update(lien_waiver_id=obj.pk, changes=changes)

    def _mark(self, request, queryset, status: str, done: str) -> None:
        run_each(
            self,
            request,
            queryset,
            lambda waiver: lien_waivers.lien_waiver_update(
                lien_waiver_id=waiver.pk, changes={"status": status}
            ),
            done,
        )

    @admin.action(description="Mark received (today)", permissions=["change"])
    def mark_received(self, request, queryset):
        self._mark(request, queryset, LienWaiverStatus.RECEIVED, "received")

    @admin.action(description="Mark rejected", permissions=["change"])
    def mark_rejected(self, request, queryset):
        self._mark(request, queryset, LienWaiverStatus.REJECTED, "rejected")
