"""Cost codes and budget lines, written through `services.cost_codes`.

A cost code is created with its budget line (`cost_code_create`); a budget line is never
added or deleted by hand, only edited through `budget_line_update` (`original_amount` while
the project is in bid, the cost-to-complete estimate any time). `approved_changes`,
`committed` and `actual` are moved by the services that own their sources: read-only here.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.utils import quote
from django.urls import reverse
from django.utils.html import format_html

from jobcost.admin.base import ServiceAdmin, ServiceForm, money_column
from jobcost.admin.display import dollars
from jobcost.admin.fields import DollarsField
from jobcost.models import BudgetLine, CostCode
from jobcost.services.cost_codes import budget_line_update, cost_code_create, cost_code_update

TIMESTAMPS = ("created_at", "updated_at")


class CostCodeAddForm(ServiceForm):
    """`cost_code_create`'s arguments; `budget_amount` becomes the budget's original amount."""

    scheduled_value = DollarsField(
        label="Scheduled value ($)", initial=0, help_text="This code's G703 row of the contract."
    )
    budget_amount = DollarsField(label="Budget ($)", initial=0)

    class Meta:
        model = CostCode
        fields = ["project", "code", "name", "cost_type", "scheduled_value"]


class CostCodeChangeForm(ServiceForm):
    """What `cost_code_update` changes (the project is fixed)."""

    scheduled_value = DollarsField(label="Scheduled value ($)")

    class Meta:
        model = CostCode
        fields = ["code", "name", "cost_type", "scheduled_value"]


@admin.register(CostCode)
class CostCodeAdmin(ServiceAdmin):
    """Cost codes: `cost_code_create` (with the budget line) / `cost_code_update`."""

    policy_basename = "cost-codes"

    add_form, change_form = CostCodeAddForm, CostCodeChangeForm
    add_fieldsets = (
        (
            None,
            {
                "fields": [
                    "project",
                    "code",
                    "name",
                    "cost_type",
                    "scheduled_value",
                    "budget_amount",
                ]
            },
        ),
    )
    change_fieldsets = (
        (None, {"fields": ["id", "project", "code", "name", "cost_type", "scheduled_value"]}),
        ("Budget", {"fields": ["budget_line_link"]}),
        ("Timestamps", {"fields": TIMESTAMPS}),
    )
    change_readonly = ("id", "project", "budget_line_link", *TIMESTAMPS)
    list_display = (
        "code",
        "name",
        "project",
        "cost_type",
        "scheduled_value_display",
        "budget_display",
    )
    list_display_links = ("code", "name")
    list_select_related = ("project", "budget_line")
    list_filter = ("project", "cost_type")
    search_fields = ("code", "name", "project__number", "project__name", "=id")
    ordering = ("project__number", "code")

    scheduled_value_display = money_column(
        "scheduled_value", "Scheduled value", ordering="scheduled_value"
    )

    @admin.display(description="Budget (revised)")
    def budget_display(self, cost_code: CostCode) -> str:
        return dollars(cost_code.budget_line.revised_amount, cost_code.currency)

    @admin.display(description="Budget line")
    def budget_line_link(self, cost_code: CostCode) -> str:
        line = cost_code.budget_line
        url = reverse("admin:jobcost_budgetline_change", args=[quote(line.pk)])
        return format_html('<a href="{}">{}</a>', url, line.pk)

    def service_create(self, request, data):
        return cost_code_create(
            project=data["project"],
            code=data["code"],
            name=data["name"],
            cost_type=data["cost_type"],
            scheduled_value=data["scheduled_value"],
            budget_amount=data["budget_amount"],
        )

    def service_update(self, request, obj, changes):
        return cost_code_update(cost_code_id=obj.pk, changes=changes)


class BudgetLineForm(ServiceForm):
    """What `budget_line_update` takes; a blank estimate returns to the computed value."""

    original_amount = DollarsField(
        label="Original budget ($)", help_text="Changes only while the project is in bid."
    )
    cost_to_complete_estimate = DollarsField(
        label="Cost to complete estimate ($)",
        required=False,
        help_text="Leave blank to use the computed max(revised, committed) − actual.",
    )

    class Meta:
        model = BudgetLine
        fields = ["original_amount", "cost_to_complete_estimate"]


@admin.register(BudgetLine)
class BudgetLineAdmin(ServiceAdmin):
    """Budget lines: edited through `budget_line_update` only."""

    policy_basename = "budgets"

    change_form = BudgetLineForm
    change_fieldsets = (
        (None, {"fields": ["id", "project", "cost_code"]}),
        (
            "Budget",
            {
                "fields": [
                    "original_amount",
                    "approved_changes_display",
                    "revised_amount_display",
                    "committed_display",
                    "actual_display",
                    "cost_to_complete_estimate",
                    "cost_to_complete_display",
                    "projected_cost_display",
                    "variance_display",
                ]
            },
        ),
        ("Timestamps", {"fields": TIMESTAMPS}),
    )
    change_readonly = (
        "id",
        "project",
        "cost_code",
        "approved_changes_display",
        "revised_amount_display",
        "committed_display",
        "actual_display",
        "cost_to_complete_display",
        "projected_cost_display",
        "variance_display",
        *TIMESTAMPS,
    )
    param_fields = {"cost_to_complete": "cost_to_complete_estimate"}
    list_display = (
        "cost_code",
        "project",
        "original_amount_display",
        "approved_changes_display",
        "revised_amount_display",
        "committed_display",
        "actual_display",
        "cost_to_complete_display",
        "projected_cost_display",
        "variance_display",
    )
    list_select_related = ("project", "cost_code")
    list_filter = ("project",)
    search_fields = ("cost_code__code", "cost_code__name", "project__number", "project__name")
    ordering = ("project__number", "cost_code__code")

    original_amount_display = money_column(
        "original_amount", "Original", ordering="original_amount"
    )
    approved_changes_display = money_column("approved_changes", "Approved changes")
    revised_amount_display = money_column("revised_amount", "Revised")
    committed_display = money_column("committed", "Committed", ordering="committed")
    actual_display = money_column("actual", "Actual", ordering="actual")
    cost_to_complete_display = money_column("cost_to_complete", "Cost to complete")
    projected_cost_display = money_column("projected_cost", "Projected cost")
    variance_display = money_column("variance", "Variance")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("project", "cost_code")

    def has_add_permission(self, request) -> bool:
        return False

    def service_update(self, request, obj, changes):
        if "cost_to_complete_estimate" in changes:
            changes["cost_to_complete"] = changes.pop("cost_to_complete_estimate")
        return budget_line_update(budget_line_id=obj.pk, changes=changes)
