"""Lien waivers in the back office, written through `services.lien_waivers`.

A waiver is requested by hand here (`lien_waiver_create`, as `POST /v1/lien-waivers`) from
the invoice or the commitment it covers: the project and vendor are theirs, and the waiver
belongs to the pay app whose period holds its "through" date (computed, never chosen). Its
receipt is recorded from its page: "Record receipt" opens a confirmation page asking the date
received (today or earlier) and the document's link, and "Confirm" calls `lien_waiver_update`
with status `received`, as `PATCH /v1/lien-waivers/{id}` would. The change form edits the
document link (and the date received of a received waiver); list actions mark received
(today) or rejected.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AdminDateWidget
from django.utils import timezone

from jobcost.admin.base import (
    ServiceAdmin,
    ServiceForm,
    confirm_each,
    date_range,
    money_column,
    project_number_column,
    visible_queryset,
)
from jobcost.admin.display import dollars
from jobcost.admin.fields import DollarsField, LabelledChoiceField
from jobcost.admin.invoices import (
    commitment_field,
    period_pay_app_link,
    with_period_pay_app_number,
)
from jobcost.admin.object_steps import ObjectSteps, Step
from jobcost.admin.queue_filters import MissingForPayAppFilter
from jobcost.models import Invoice, InvoiceStatus, LienWaiver, LienWaiverStatus
from jobcost.selectors import visible
from jobcost.services import lien_waivers

TIMESTAMPS = ("created_at", "updated_at")
S = LienWaiverStatus


def invoice_label(invoice: Invoice) -> str:
    """`J-2401 · Keystone Concrete · A-100 · $1,234.50 (approved)` (select project, vendor)."""
    return (
        f"{invoice.project.number} · {invoice.vendor.name} · {invoice.number} · "
        f"{dollars(invoice.amount, invoice.project.currency)} ({invoice.get_status_display()})"
    )


class LienWaiverAddForm(ServiceForm):
    """`lien_waiver_create`'s arguments from the invoice or commitment the waiver covers (the
    project and vendor are theirs; an invoice alone brings its commitment); amount in
    dollars."""

    invoice = LabelledChoiceField(
        Invoice.objects.exclude(status=InvoiceStatus.VOID)
        .select_related("project", "vendor")
        .order_by("project__number", "vendor__name", "number"),
        label_of=invoice_label,
        required=False,
        help_text="The invoice the waiver covers, if it covers one.",
    )
    commitment = commitment_field(
        executed_only=False,
        required=False,
        help_text="Or the commitment it covers (taken from the invoice when blank).",
    )
    amount = DollarsField(label="Amount ($)")
    through_date = forms.DateField(
        widget=AdminDateWidget,
        help_text="The waiver belongs to the pay app whose billing period holds this date.",
    )
    document_url = forms.URLField(
        label="Document link", max_length=2000, required=False, assume_scheme="https"
    )

    class Meta:
        model = LienWaiver
        fields = ["invoice", "commitment", "type", "amount", "through_date", "document_url"]

    def clean(self) -> dict:
        data = super().clean()
        if not data.get("invoice") and not data.get("commitment") and not self.errors:
            raise forms.ValidationError("Choose the invoice or the commitment the waiver covers.")
        return data


def received_on_field() -> forms.DateField:
    return forms.DateField(
        label="Date received",
        widget=AdminDateWidget,
        help_text="The day the signed waiver arrived: today or earlier.",
    )


class LienWaiverChangeForm(ServiceForm):
    """What `lien_waiver_update` records besides the receipt (a button): the document's link."""

    document_url = forms.URLField(
        label="Document link", max_length=2000, required=False, assume_scheme="https"
    )

    class Meta:
        model = LienWaiver
        fields = ["document_url"]


class ReceivedWaiverChangeForm(LienWaiverChangeForm):
    """A received waiver's form: its document link and its date received (a correction)."""

    received_on = received_on_field()

    class Meta:
        model = LienWaiver
        fields = ["received_on", "document_url"]


class ReceiptForm(forms.Form):
    """The "Record receipt" page: the date received (default today) and the document link."""

    received_on = received_on_field()
    document_url = forms.URLField(
        label="Document link",
        max_length=2000,
        required=False,
        assume_scheme="https",
        help_text="Where the signed waiver is kept (a URL).",
    )

    def __init__(self, data=None, *, obj: LienWaiver) -> None:
        initial = {"received_on": timezone.localdate(), "document_url": obj.document_url}
        super().__init__(data, initial=initial)


def _receive(waiver: LienWaiver, data: dict) -> LienWaiver:
    changes = {"status": S.RECEIVED, "received_on": data["received_on"]}
    if data.get("document_url"):
        changes["document_url"] = data["document_url"]
    return lien_waivers.lien_waiver_update(lien_waiver_id=waiver.pk, changes=changes)


RECORD_RECEIPT = Step(
    slug="receive",
    label="Record receipt",
    policy_action="partial_update",
    offered=lambda waiver: waiver.status != S.RECEIVED,
    explain=lambda waiver: (
        f"Record the {waiver.get_type_display().lower()} waiver from {waiver.vendor.name} for "
        f"{dollars(waiver.amount, waiver.currency)} through {waiver.through_date:%B} "
        f"{waiver.through_date.day}, {waiver.through_date.year} as received. A received "
        "waiver is final: it no longer counts as missing on its pay app."
    ),
    run=_receive,
    done=lambda waiver: (
        f"Waiver from {waiver.vendor.name} recorded as received on {waiver.received_on:%B} "
        f"{waiver.received_on.day}, {waiver.received_on.year}."
    ),
    form=ReceiptForm,
    form_takes_object=True,
    not_offered=lambda waiver: (
        f"This waiver was already received on {waiver.received_on:%B} {waiver.received_on.day}, "
        f"{waiver.received_on.year}; correct the date on its page."
    ),
)


@admin.register(LienWaiver)
class LienWaiverAdmin(ObjectSteps, ServiceAdmin):
    """Lien waivers: requested here or on invoice approval, received from their page."""

    policy_basename = "lien-waivers"
    # Receipt and rejection are `PATCH /v1/lien-waivers/{id}` with a status.
    policy_actions = {"mark_received": "partial_update", "mark_rejected": "partial_update"}
    steps = (RECORD_RECEIPT,)

    add_form, change_form = LienWaiverAddForm, LienWaiverChangeForm
    add_fieldsets = (
        ("Covers", {"fields": ["invoice", "commitment"]}),
        ("Waiver", {"fields": ["type", "amount", "through_date", "document_url"]}),
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
        "type",
        "status",
        "amount_display",
        "through_date",
        "received_on",
        "pay_app_display",
        "project_number",
    )
    list_display_links = ("vendor", "type")
    list_select_related = ("project", "vendor")
    list_filter = (
        "project",
        "status",
        "vendor",
        "type",
        date_range("through_date", "through date"),
        MissingForPayAppFilter,
    )
    search_fields = ("vendor__name", "invoice__number", "commitment__number", "=id")
    list_totals = {"amount_display": "amount"}
    project_number = project_number_column()
    ordering = ("-through_date", "vendor__name")
    actions = ("mark_received", "mark_rejected")

    amount_display = money_column("amount", "Amount", ordering="amount")

    @admin.display(description="Pay app (period)")
    def pay_app_display(self, waiver: LienWaiver) -> str:
        return period_pay_app_link(waiver)

    def get_queryset(self, request):
        queryset = visible_queryset(self, request, visible.lien_waiver_list)
        return with_period_pay_app_number(queryset, "through_date")

    def get_readonly_fields(self, request, obj=None):
        # The date received is recorded with the receipt ("Record receipt"); only a received
        # waiver's date is corrected in the form.
        readonly = super().get_readonly_fields(request, obj)
        if obj is not None and obj.status != S.RECEIVED:
            readonly = (*readonly, "received_on")
        return readonly

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is not None and obj.status == S.RECEIVED:
            kwargs.setdefault("form", ReceivedWaiverChangeForm)
        return super().get_form(request, obj, change=change, **kwargs)

    def service_create(self, request, data):
        invoice = data["invoice"]
        commitment = data["commitment"] or (invoice.commitment if invoice else None)
        source = commitment or invoice  # the service refuses an invoice of another vendor
        return lien_waivers.lien_waiver_create(
            project=source.project,
            vendor=source.vendor,
            type=data["type"],
            amount=data["amount"],
            through_date=data["through_date"],
            commitment=commitment,
            invoice=invoice,
            document_url=data["document_url"],
        )

    def service_update(self, request, obj, changes):
        return lien_waivers.lien_waiver_update(lien_waiver_id=obj.pk, changes=changes)

    def _mark(self, request, queryset, status: str, done: str, title: str, explain: str):
        return confirm_each(
            self,
            request,
            queryset,
            lambda waiver: lien_waivers.lien_waiver_update(
                lien_waiver_id=waiver.pk, changes={"status": status}
            ),
            done,
            title=title,
            explain=explain,
        )

    @admin.action(description="Mark received (today)…", permissions=["change"])
    def mark_received(self, request, queryset):
        return self._mark(
            request,
            queryset,
            LienWaiverStatus.RECEIVED,
            "received",
            "Mark lien waivers received",
            "Each waiver is recorded as received today; a pay app no longer waits for it.",
        )

    @admin.action(description="Mark rejected…", permissions=["change"])
    def mark_rejected(self, request, queryset):
        return self._mark(
            request,
            queryset,
            LienWaiverStatus.REJECTED,
            "rejected",
            "Mark lien waivers rejected",
            "Each waiver is recorded as rejected; the vendor still owes a valid one.",
        )
