"""Change orders: view-only in the back office, moved through `services.change_orders`.

A change order's lines must sum to its amount, which a single admin form cannot check
before the service runs; drafts are therefore created and edited through the API
(`POST/PATCH /v1/change-orders`). Here they are listed and read (lines inline, in dollars),
and submit / approve / reject (with an optional reason) / void are actions calling the same
services as `POST /v1/change-orders/{id}/submit|approve|reject|void`.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import F

from jobcost.admin.base import (
    ReadOnlyAdmin,
    ReadOnlyInline,
    TransitionActions,
    change_link,
    money_column,
    run_each,
    run_each_with_reason,
    visible_queryset,
)
from jobcost.models import ChangeOrder, ChangeOrderLine, PayApp
from jobcost.selectors import visible
from jobcost.services import change_orders

TIMESTAMPS = ("created_at", "updated_at")


class ChangeOrderLineInline(ReadOnlyInline):
    """The change order's lines, read-only: contract (or commitment) and budget changes."""

    model = ChangeOrderLine
    fields = readonly_fields = (
        "position",
        "cost_code",
        "description",
        "amount_display",
        "budget_amount_display",
    )
    amount_display = money_column("amount", "Amount")
    budget_amount_display = money_column("budget_amount", "Budget change")

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("cost_code")
            .annotate(currency=F("change_order__project__currency"))
        )


@admin.register(ChangeOrder)
class ChangeOrderAdmin(TransitionActions, ReadOnlyAdmin):
    """Owner and commitment change orders; every status move is an action."""

    policy_basename = "change-orders"

    fieldsets = (
        (None, {"fields": ["id", "project", "number", "title", "description", "status"]}),
        ("Change", {"fields": ["kind", "commitment", "amount_display", "pay_app_link"]}),
        (
            "Dates",
            {
                "fields": [
                    "submitted_at",
                    "approved_at",
                    "approved_by",
                    "rejected_at",
                    "rejection_reason",
                    "voided_at",
                    *TIMESTAMPS,
                ]
            },
        ),
    )
    readonly_fields = tuple(name for _title, box in fieldsets for name in box["fields"])
    inlines = [ChangeOrderLineInline]
    list_display = (
        "number",
        "title",
        "project",
        "kind",
        "commitment",
        "amount_display",
        "status",
        "pay_app",
        "approved_at",
    )
    list_display_links = ("number", "title")
    list_select_related = ("project", "commitment", "pay_app")
    list_filter = ("project", "status", "kind")
    search_fields = ("number", "title", "=id")
    ordering = ("project__number", "number")
    actions = ("submit", "approve", "reject", "void")

    amount_display = money_column("amount", "Amount", ordering="amount")

    @admin.display(description="Pay app (billed on)")
    def pay_app_link(self, change_order: ChangeOrder) -> str:
        pay_app = change_order.pay_app
        return change_link(PayApp, change_order.pay_app_id, str(pay_app) if pay_app else None)

    def get_queryset(self, request):
        return visible_queryset(self, request, visible.change_order_list)

    def _run(self, request, queryset, service, done: str) -> None:
        run_each(self, request, queryset, lambda co: service(change_order_id=co.pk), done)

    @admin.action(description="Submit (draft → pending)", permissions=["transition"])
    def submit(self, request, queryset):
        self._run(request, queryset, change_orders.change_order_submit, "submitted (pending)")

    @admin.action(
        description="Approve (applies it to the contract, budget or commitment)",
        permissions=["transition"],
    )
    def approve(self, request, queryset):
        self._run(request, queryset, change_orders.change_order_approve, "approved")

    @admin.action(description="Reject (pending → rejected)…", permissions=["transition"])
    def reject(self, request, queryset):
        return run_each_with_reason(
            self,
            request,
            queryset,
            lambda co, reason: change_orders.change_order_reject(
                change_order_id=co.pk, reason=reason
            ),
            "rejected",
            title="Reject change orders",
            required=False,
        )

    @admin.action(description="Void (draft or pending)", permissions=["transition"])
    def void(self, request, queryset):
        self._run(request, queryset, change_orders.change_order_void, "voided")
