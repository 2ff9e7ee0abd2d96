"""Change orders in the back office, through `services.change_orders`
(docs/backoffice/change-orders.md).

A draft is created and edited here with its lines in one form (`change_order_forms`), saved by
one call of `change_order_create` / `change_order_update` (the services behind
`POST/PATCH /v1/change-orders`), so a refusal — the lines not adding up to the amount, a cost
code of another project — writes nothing and is shown at the lines. Submitted, approved,
rejected and void change orders are view-only. Submit, approve, reject (with an optional
reason) and void are buttons on the change order's page, each behind a confirmation page
(`object_steps.ObjectSteps`), and actions of the list.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.db.models import F
from django.http import HttpResponseRedirect

from jobcost.admin.base import (
    ReadOnlyInline,
    ReasonForm,
    ServiceAdmin,
    TransitionActions,
    change_link,
    date_range,
    money_column,
    project_number_column,
    run_each_with_reason,
    visible_queryset,
)
from jobcost.admin.change_order_forms import ChangeOrderAddForm, ChangeOrderForm
from jobcost.admin.display import dollars
from jobcost.admin.object_steps import NoForm, ObjectSteps, Step
from jobcost.models import (
    CHANGE_ORDER_UNDECIDED,
    ChangeOrder,
    ChangeOrderKind,
    ChangeOrderLine,
    ChangeOrderStatus,
    PayApp,
)
from jobcost.selectors import visible
from jobcost.services import change_orders

S = ChangeOrderStatus
TIMESTAMPS = ("created_at", "updated_at")
DATES = (
    "submitted_at",
    "approved_at",
    "approved_by",
    "rejected_at",
    "rejection_reason",
    "voided_at",
    *TIMESTAMPS,
)

EXPLAIN = {
    "submit": "The change order goes for approval as it stands (pending); its lines can no "
    "longer be edited.",
    "approve": "The change is applied: an owner change order adds its amount to the revised "
    "contract and each line's budget change to its cost code's budget, and lands on the draft "
    "pay app as its own G703 row; a commitment change order changes the commitment's revised "
    "amount.",
    "reject": "The change order is refused; nothing changes on the contract, budgets or "
    "commitment. The reason, if given, is kept on it.",
    "void": "The change order is cancelled for good; it stays on record as void.",
}
DONE = {
    "submit": "Submitted for approval (pending).",
    "approve": "Approved.",
    "reject": "Rejected.",
    "void": "Voided.",
}


def change_order_figures(change_order: ChangeOrder) -> list[tuple[str, str]]:
    """The amount, and the contract (or commitment) it changes, now and after approval."""
    figures = [("Amount", dollars(change_order.amount))]
    pending = change_order.status in CHANGE_ORDER_UNDECIDED
    if change_order.kind == ChangeOrderKind.OWNER:
        project = change_order.project
        revised = project.contract_amount + project.approved_changes
        figures.append(("Revised contract now", dollars(revised)))
        if pending:
            figures.append(("After approval", dollars(revised + change_order.amount)))
    elif change_order.commitment is not None:
        commitment = change_order.commitment
        figures.append((f"{commitment} now", dollars(commitment.revised_amount)))
        if pending:
            figures.append(
                ("After approval", dollars(commitment.revised_amount + change_order.amount))
            )
    return figures


def change_order_lines(change_order: ChangeOrder) -> dict:
    """The change order's lines as its confirmation pages list them."""
    lines = change_order.lines.select_related("cost_code").order_by("position")
    return {
        "title": "Lines",
        "id": "change-order-lines",
        "columns": ("Cost code", "Description", "Amount", "Budget change"),
        "rows": [
            (
                f"{line.cost_code.code} {line.cost_code.name}",
                line.description,
                dollars(line.amount),
                dollars(line.budget_amount),
            )
            for line in lines
        ],
    }


def _step(slug, label, action, statuses, form, run) -> Step:
    return Step(
        slug=slug,
        label=label,
        policy_action=action,
        offered=lambda change_order: change_order.status in statuses,
        explain=lambda change_order: EXPLAIN[slug],
        run=run,
        done=lambda change_order: f"{change_order}: {DONE[slug]}",
        form=form,
        figures=change_order_figures,
        details=change_order_lines,
    )


STEPS = (
    _step(
        "submit",
        "Submit",
        "submit",
        (S.DRAFT,),
        NoForm,
        lambda co, data: change_orders.change_order_submit(change_order_id=co.pk),
    ),
    _step(
        "approve",
        "Approve",
        "approve",
        (S.DRAFT, S.PENDING),
        NoForm,
        lambda co, data: change_orders.change_order_approve(change_order_id=co.pk),
    ),
    _step(
        "reject",
        "Reject",
        "reject",
        (S.PENDING,),
        ReasonForm,
        lambda co, data: change_orders.change_order_reject(
            change_order_id=co.pk, reason=data.get("reason", "")
        ),
    ),
    _step(
        "void",
        "Void",
        "void",
        (S.DRAFT, S.PENDING),
        NoForm,
        lambda co, data: change_orders.change_order_void(change_order_id=co.pk),
    ),
)
STEPS_BY_SLUG = {step.slug: step for step in STEPS}


class ChangeOrderLineInline(ReadOnlyInline):
    """The lines of a change order that can no longer change: amount and budget change."""

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
class ChangeOrderAdmin(ObjectSteps, TransitionActions, ServiceAdmin):
    """Owner and commitment change orders: drafts edited with their lines, status moves on
    the page (confirmed) and as list actions."""

    policy_basename = "change-orders"
    steps = STEPS
    change_form_template = "admin/jobcost/changeorder/change_form.html"

    add_form, change_form = ChangeOrderAddForm, ChangeOrderForm
    add_fieldsets = (
        (None, {"fields": ["project", "kind", "commitment", "number", "title", "description"]}),
        ("Amount", {"fields": ["amount"]}),
    )
    change_fieldsets = (
        (None, {"fields": ["project", "kind", "commitment", "number", "title", "description"]}),
        ("Amount", {"fields": ["amount", "status", "pay_app_link"]}),
        ("Dates", {"fields": list(DATES), "classes": ["collapse"]}),
    )
    change_readonly = (
        "project",
        "kind",
        "commitment",
        "status",
        "pay_app_link",
        "amount_display",
        *DATES,
    )
    list_display = (
        "number",
        "title",
        "status",
        "amount_display",
        "kind",
        "approved_at",
        "pay_app",
        "project_number",
    )
    list_display_links = ("number", "title")
    list_select_related = ("project", "commitment", "pay_app")
    list_filter = (
        "project",
        "status",
        "kind",
        date_range("approved_at", "approved"),
    )
    search_fields = ("number", "title", "commitment__number", "project__number", "=id")
    ordering = ("-created_at", "-number")
    list_totals = {"amount_display": "amount"}
    project_number = project_number_column()
    actions = ("submit", "approve", "reject", "void")

    amount_display = money_column("amount", "Amount", ordering="amount")

    @admin.display(description="Pay app (billed on)")
    def pay_app_link(self, change_order: ChangeOrder) -> str:
        pay_app = change_order.pay_app
        return change_link(PayApp, change_order.pay_app_id, str(pay_app) if pay_app else None)

    def get_queryset(self, request):
        return visible_queryset(self, request, visible.change_order_list)

    def has_change_permission(self, request, obj=None) -> bool:
        """Only a draft is edited; any other status is view-only (its page keeps its
        buttons)."""
        if obj is not None and obj.status != S.DRAFT:
            return False
        return super().has_change_permission(request, obj)

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        """A save posted to a change order that is no longer a draft (a page left open while
        it was submitted or approved) is answered in words on its page, not with Django's
        "permission denied", which would blame the user's role; nothing is written."""
        if request.method == "POST" and object_id is not None:
            obj = self.get_object(request, unquote(object_id))
            may_edit_drafts = super().has_change_permission(request, obj)
            if obj is not None and obj.status != S.DRAFT and may_edit_drafts:
                self.message_user(
                    request,
                    f"{obj} is {obj.get_status_display().lower()}: only a draft change order "
                    "can be edited. Nothing was saved; a further change needs a new change "
                    "order.",
                    messages.ERROR,
                )
                return HttpResponseRedirect(request.path)
        return super().changeform_view(request, object_id, form_url, extra_context)

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or self.has_change_permission(request, obj):
            return fieldsets
        # View-only: the amount as dollars, not the form's entry box.
        return tuple(
            (
                title,
                {
                    **box,
                    "fields": ["amount_display" if f == "amount" else f for f in box["fields"]],
                },
            )
            for title, box in fieldsets
        )

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and not self.has_change_permission(request, obj):
            return (*self.change_readonly, "number", "title", "description")
        return super().get_readonly_fields(request, obj)

    def get_inlines(self, request, obj):
        # An editable draft shows its lines in the form; any other, read-only below it.
        if obj is None or self.has_change_permission(request, obj):
            return []
        return [ChangeOrderLineInline]

    def service_create(self, request, data):
        commitment = data.get("commitment")
        kind = data["kind"]
        return change_orders.change_order_create(
            project=data["project"],
            kind=kind,
            title=data["title"],
            description=data.get("description") or "",
            number=data.get("number") or None,
            amount=data["amount"],
            lines=data["lines"],
            commitment=commitment if kind == ChangeOrderKind.COMMITMENT else None,
        )

    def service_save(self, request, form, obj):
        if obj is None:
            return self.service_create(request, form.cleaned_data)
        data = form.cleaned_data
        changes = {name: data[name] for name in ("title", "description", "amount") if name in data}
        if data.get("number") and data["number"] != obj.number:
            changes["number"] = data["number"]
        changes["lines"] = data["lines"]
        return change_orders.change_order_update(change_order_id=obj.pk, changes=changes)

    def _confirmed(self, request, queryset, slug: str, title: str):
        step = STEPS_BY_SLUG[slug]
        return run_each_with_reason(
            self,
            request,
            queryset,
            lambda change_order, reason: step.run(change_order, {"reason": reason}),
            DONE[slug][0].lower() + DONE[slug][1:].rstrip("."),
            title=title,
            required=False if step.form is ReasonForm else None,
            explain=EXPLAIN[slug],
        )

    @admin.action(description="Submit for approval…", permissions=["transition"])
    def submit(self, request, queryset):
        return self._confirmed(request, queryset, "submit", "Submit change orders")

    @admin.action(description="Approve (applies the change)…", permissions=["transition"])
    def approve(self, request, queryset):
        return self._confirmed(request, queryset, "approve", "Approve change orders")

    @admin.action(description="Reject…", permissions=["transition"])
    def reject(self, request, queryset):
        return self._confirmed(request, queryset, "reject", "Reject change orders")

    @admin.action(description="Void…", permissions=["transition"])
    def void(self, request, queryset):
        return self._confirmed(request, queryset, "void", "Void change orders")
