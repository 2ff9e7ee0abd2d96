"""RFIs, written through `services.rfis`.

An RFI is raised with `rfi_create` (numbered `RFI-001`, … unless a number is typed) and
edited with `rfi_update` while open or answered; typing an answer on an open RFI answers it.
Closing is an action (`rfi_close`); a closed RFI is final, so its page is view-only. The
change orders that name the RFI are listed read-only (they are written on their own pages
and through the API). Lists read through `visible.rfi_list`, as `GET /v1/rfis` does.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin

from jobcost.admin.base import (
    ReadOnlyInline,
    ServiceAdmin,
    ServiceForm,
    confirm_each,
    money_column,
    visible_queryset,
)
from jobcost.admin.fields import LabelledChoiceField, with_account
from jobcost.admin.queue_filters import OverdueRfiFilter
from jobcost.models import ChangeOrder, Project, Rfi, RfiStatus
from jobcost.selectors import visible
from jobcost.services import rfis

TIMESTAMPS = ("created_at", "updated_at")


class _ServiceChecksNumbers:
    """The service owns the one-number-per-project rule (409 `resource_already_exists`,
    param `number`): Django's own check of the unique constraint is skipped (by leaving
    `number` out of the model validation; the form field still checks its length), so the
    form shows the service's message and the API's wording."""

    def _get_validation_exclusions(self) -> set[str]:
        return super()._get_validation_exclusions() | {"number"}


class RfiAddForm(_ServiceChecksNumbers, ServiceForm):
    """`rfi_create`'s arguments; a blank number takes the project's next `RFI-nnn`."""

    project = LabelledChoiceField(
        Project.objects.select_related("account").order_by("account__name", "number"),
        label_of=with_account,
    )
    number = forms.CharField(
        max_length=60, required=False, help_text="Leave blank for the project's next RFI-nnn."
    )

    class Meta:
        model = Rfi
        fields = ["project", "subject", "question", "number", "due_date", "cost_impact"]


class RfiChangeForm(_ServiceChecksNumbers, ServiceForm):
    """What `rfi_update` edits; an answer on an open RFI moves it to answered."""

    class Meta:
        model = Rfi
        fields = ["number", "subject", "question", "answer", "due_date", "cost_impact"]
        help_texts = {
            "answer": "Recording an answer on an open RFI marks it answered; an answered "
            "RFI's answer can be changed but not cleared.",
        }


class ChangeOrderInline(ReadOnlyInline):
    """The change orders that name this RFI, read-only (open one to act on it)."""

    model = ChangeOrder
    fk_name = "rfi"
    show_change_link = True
    verbose_name = "linked change order"
    verbose_name_plural = "linked change orders"
    fields = readonly_fields = ("number", "title", "kind", "amount_display", "status")
    amount_display = money_column("amount", "Amount")

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("project")  # the amount's currency
            .order_by("created_at", "id")
        )


@admin.register(Rfi)
class RfiAdmin(ServiceAdmin):
    """RFIs: `rfi_create` / `rfi_update`; closing is an action; closed RFIs are view-only."""

    policy_basename = "rfis"

    add_form, change_form = RfiAddForm, RfiChangeForm
    add_fieldsets = (
        (None, {"fields": ["project", "subject", "question"]}),
        ("Tracking", {"fields": ["number", "due_date", "cost_impact"]}),
    )
    change_fieldsets = (
        (None, {"fields": ["id", "project", "number", "status", "subject", "question"]}),
        ("Answer", {"fields": ["answer", "answered_at"]}),
        ("Tracking", {"fields": ["due_date", "cost_impact", "closed_at", *TIMESTAMPS]}),
    )
    change_readonly = ("id", "project", "status", "answered_at", "closed_at", *TIMESTAMPS)
    list_display = ("number", "subject", "project", "status", "due_date", "cost_impact")
    list_display_links = ("number", "subject")
    list_select_related = ("project",)
    list_filter = ("status", OverdueRfiFilter, "project", "cost_impact")
    search_fields = ("number", "subject", "question", "=id")
    ordering = ("project__number", "number")
    actions = ("close",)

    def get_queryset(self, request):
        return visible_queryset(self, request, visible.rfi_list)

    def get_inlines(self, request, obj):
        return [] if obj is None else [ChangeOrderInline]

    def has_change_permission(self, request, obj=None) -> bool:
        """A closed RFI is final: its page is view-only (the service would refuse anyway)."""
        if obj is not None and obj.status == RfiStatus.CLOSED:
            return False
        return super().has_change_permission(request, obj)

    def service_create(self, request, data):
        return rfis.rfi_create(
            project=data["project"],
            subject=data["subject"],
            question=data["question"],
            number=data["number"] or None,
            due_date=data["due_date"],
            cost_impact=data["cost_impact"],
        )

    def service_update(self, request, obj, changes):
        return rfis.rfi_update(rfi_id=obj.pk, changes=changes)

    @admin.action(description="Close selected RFIs…", permissions=["change"])
    def close(self, request, queryset):
        return confirm_each(
            self,
            request,
            queryset,
            lambda rfi: rfis.rfi_close(rfi_id=rfi.pk),
            "closed",
            title="Close RFIs",
            explain="Each RFI is closed: it leaves the open RFIs and takes no more answers.",
        )
