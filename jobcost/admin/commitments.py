"""Commitments (subcontracts, purchase orders): created and edited (draft only) through
`commitment_create` / `commitment_update`; execute, close and void as actions calling the
same services as `POST /v1/commitments/{id}/execute|close|void`."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.db.models import F
from django.template.response import TemplateResponse
from django.urls import path

from jobcost.admin.base import (
    ServiceAdmin,
    ServiceForm,
    confirm_each,
    money_column,
    project_number_column,
)
from jobcost.admin.commitment_ledger import ledger
from jobcost.admin.fields import DollarsField, LabelledChoiceField, with_account
from jobcost.admin.object_pages import object_or_404, page_context, page_url
from jobcost.models import Commitment, CostCode, Vendor
from jobcost.services import commitments

TIMESTAMPS = ("created_at", "updated_at")


def _vendor_field() -> LabelledChoiceField:
    return LabelledChoiceField(
        Vendor.objects.select_related("account").order_by("account__name", "name"),
        label_of=with_account,
    )


def _cost_code_field() -> LabelledChoiceField:
    return LabelledChoiceField(
        CostCode.objects.select_related("project").order_by("project__number", "code"),
        label_of=lambda code: f"{code.project.number} · {code}",
        required=False,
        help_text="Needed before executing: the budget line it commits against.",
    )


class CommitmentAddForm(ServiceForm):
    """`commitment_create`'s arguments; blank number and retainage take the defaults."""

    vendor = _vendor_field()
    cost_code = _cost_code_field()
    number = forms.CharField(
        max_length=60, required=False, help_text="Blank: the next SC-nnn / PO-nnn."
    )
    original_amount = DollarsField(label="Original amount ($)")
    retainage_pct = forms.DecimalField(
        max_digits=5, decimal_places=2, required=False, help_text="Blank: the project's."
    )

    class Meta:
        model = Commitment
        fields = [
            "project",
            "vendor",
            "type",
            "number",
            "cost_code",
            "original_amount",
            "retainage_pct",
            "description",
        ]


class CommitmentChangeForm(ServiceForm):
    """What `commitment_update` edits; the service refuses anything but a draft."""

    cost_code = _cost_code_field()
    original_amount = DollarsField(label="Original amount ($)")

    class Meta:
        model = Commitment
        fields = [
            "number",
            "cost_code",
            "original_amount",
            "retainage_pct",
            "description",
        ]


@admin.register(Commitment)
class CommitmentAdmin(ServiceAdmin):
    """Commitments with their balances; transitions are actions."""

    policy_basename = "commitments"

    add_form, change_form = CommitmentAddForm, CommitmentChangeForm
    add_fieldsets = (
        (None, {"fields": ["project", "vendor", "type", "number", "cost_code", "description"]}),
        ("Amounts", {"fields": ["original_amount", "retainage_pct"]}),
    )
    change_fieldsets = (
        (
            None,
            {
                "fields": [
                    "id",
                    "project",
                    "status",
                    "number",
                    "type",
                    "vendor",
                    "cost_code",
                    "description",
                ]
            },
        ),
        (
            "Amounts",
            {
                "fields": [
                    "original_amount",
                    "retainage_pct",
                    "approved_changes_display",
                    "revised_amount_display",
                    "billed_to_date_display",
                    "remaining_display",
                ]
            },
        ),
        ("Dates", {"fields": ["executed_at", "closed_at", "voided_at", *TIMESTAMPS]}),
    )
    change_readonly = (
        "id",
        "project",
        "status",
        "type",
        "vendor",
        "approved_changes_display",
        "revised_amount_display",
        "billed_to_date_display",
        "remaining_display",
        "executed_at",
        "closed_at",
        "voided_at",
        *TIMESTAMPS,
    )
    list_display = (
        "number",
        "vendor",
        "status",
        "original_amount_display",
        "revised_amount_display",
        "billed_to_date_display",
        "remaining_display",
        "type",
        "cost_code_number",
        "project_number",
    )
    list_select_related = ("project", "vendor", "cost_code")
    list_filter = ("project", "status", "vendor", "type")
    search_fields = (
        "number",
        "description",
        "vendor__name",
        "cost_code__code",
        "project__number",
        "project__name",
        "=id",
    )
    ordering = ("-created_at", "-number")
    list_totals = {
        "original_amount_display": "original_amount",
        "revised_amount_display": F("original_amount") + F("approved_changes"),
        "billed_to_date_display": "billed_to_date",
        "remaining_display": F("original_amount") + F("approved_changes") - F("billed_to_date"),
    }
    project_number = project_number_column()

    @admin.display(description="Cost code", ordering="cost_code__code")
    def cost_code_number(self, commitment) -> str:
        return commitment.cost_code.code if commitment.cost_code_id else "—"

    actions = ("execute", "close", "void")

    original_amount_display = money_column(
        "original_amount", "Original", ordering="original_amount"
    )
    approved_changes_display = money_column("approved_changes", "Approved changes")
    revised_amount_display = money_column("revised_amount", "Revised")
    billed_to_date_display = money_column(
        "billed_to_date", "Billed to date", ordering="billed_to_date"
    )
    remaining_display = money_column("remaining", "Remaining")

    change_form_template = "admin/jobcost/change_form.html"

    def get_urls(self):
        ledger_page = path(
            "<path:object_id>/ledger/",
            self.admin_site.admin_view(self.ledger_view),
            name="jobcost_commitment_ledger",
        )
        return [ledger_page, *super().get_urls()]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, unquote(object_id))
        context = dict(extra_context or {})
        if obj is not None:
            context["object_links"] = [{"label": "Ledger", "url": page_url(self, obj, "ledger")}]
        return super().change_view(request, object_id, form_url, context)

    def ledger_view(self, request, object_id):
        """The commitment's ledger: its invoices, change orders and waivers with totals."""
        commitment = object_or_404(self, request, object_id)
        context = {
            **page_context(self, request, commitment, f"Ledger: {commitment}"),
            "ledger": ledger(commitment),
        }
        return TemplateResponse(request, "admin/jobcost/commitment/ledger.html", context)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("project", "vendor", "cost_code")

    def service_create(self, request, data):
        return commitments.commitment_create(
            project=data["project"],
            vendor=data["vendor"],
            type=data["type"],
            original_amount=data["original_amount"],
            number=data["number"] or None,
            cost_code=data["cost_code"],
            retainage_pct=data["retainage_pct"],
            description=data["description"],
        )

    def service_update(self, request, obj, changes):
        return commitments.commitment_update(commitment_id=obj.pk, changes=changes)

    @admin.action(description="Execute (draft → executed)…", permissions=["change"])
    def execute(self, request, queryset):
        return confirm_each(
            self,
            request,
            queryset,
            lambda c: commitments.commitment_execute(commitment_id=c.pk),
            "executed",
            title="Execute commitments",
            explain="An executed commitment is binding: its amount counts as committed on its "
            "budget line and the vendor's invoices can be received against it. Its amounts "
            "can no longer be edited; later changes go through change orders.",
        )

    @admin.action(description="Close (executed → closed)…", permissions=["change"])
    def close(self, request, queryset):
        return confirm_each(
            self,
            request,
            queryset,
            lambda c: commitments.commitment_close(commitment_id=c.pk),
            "closed",
            title="Close commitments",
            explain="A closed commitment takes no more invoices.",
        )

    @admin.action(
        description="Void (draft, or executed with nothing billed)…", permissions=["change"]
    )
    def void(self, request, queryset):
        return confirm_each(
            self,
            request,
            queryset,
            lambda c: commitments.commitment_void(commitment_id=c.pk),
            "voided",
            title="Void commitments",
            explain="A void commitment is cancelled: it no longer counts as committed and "
            "takes no invoices. This cannot be undone.",
        )
