"""The visible querysets behind every endpoint, with what their API shape needs loaded.

Each takes the key's `Scope` and costs one query for any number of rows.
"""

from __future__ import annotations

import functools
import threading

from django.db.models import (
    BigIntegerField,
    CharField,
    IntegerField,
    OuterRef,
    Prefetch,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce

from jobcost.models import (
    CERTIFIED_STATUSES,
    AgentAction,
    BudgetLine,
    ChangeOrder,
    Commitment,
    CostCode,
    DailyLog,
    Invoice,
    LienWaiver,
    LienWaiverStatus,
    Owner,
    PayApp,
    Project,
    Rfi,
    Vendor,
)
from jobcost.scope import Scope
from jobcost.selectors.pay_apps import earlier_certificate, receipts_sum
from jobcost.selectors.rollups import projected_cost_expr

BIG = BigIntegerField()


def owner_list(scope: Scope) -> QuerySet[Owner]:
    return scope.filter(Owner.objects.all(), None)


def vendor_list(scope: Scope) -> QuerySet[Vendor]:
    return scope.filter(Vendor.objects.all(), None)


def _budget_sum(expression) -> Coalesce:
    lines = (
        BudgetLine.objects.filter(project_id=OuterRef("pk"))
        .order_by()
        .values("project_id")
        .annotate(total=Sum(expression))
        .values("total")
    )
    return Coalesce(
        Subquery(lines, output_field=BigIntegerField()), Value(0, output_field=BigIntegerField())
    )


def with_rollups(queryset: QuerySet[Project]) -> QuerySet[Project]:
    """Annotate `rollup_cost_to_date` (Σ budget actual), `rollup_projected_cost` (Σ budget
    projected_cost) and `rollup_billed_to_date` (line 4 of the latest submitted, approved or
    paid pay app, docs/computations.md) as subqueries over the project's budget lines and pay apps:
    a constant number of queries whatever the project's size."""
    latest_certified = (
        PayApp.objects.filter(project_id=OuterRef("pk"), status__in=CERTIFIED_STATUSES)
        .order_by("-number")
        .values("certified_total_completed")[:1]
    )
    return queryset.annotate(
        rollup_cost_to_date=_budget_sum("actual"),
        rollup_projected_cost=_budget_sum(projected_cost_expr()),
        rollup_billed_to_date=Coalesce(
            Subquery(latest_certified, output_field=BIG), Value(0, output_field=BIG)
        ),
    )


_per_thread = threading.local()


def _once_per_thread(build):
    """`build()` made once per thread and kept: a resolved queryset's expressions are shared
    by its clones, and compiling one adjusts its inner queries' alias counts for a moment, so
    two threads of a server must not compile the same one at once."""

    @functools.wraps(build)
    def cached():
        found = getattr(_per_thread, build.__name__, None)
        if found is None:
            found = build()
            setattr(_per_thread, build.__name__, found)
        return found

    return cached


@_once_per_thread
def _projects_with_rollups() -> QuerySet[Project]:
    """The rollup annotations, resolved once per thread: resolving their three subqueries
    cost more than a retrieve's own query. Never evaluated; each read takes a clone
    (`.all()`) and filters it, which gives the same SQL as annotating the filtered queryset
    (tests/jobcost/selectors/test_visible.py)."""
    return with_rollups(Project.objects.all())


def project_list(scope: Scope) -> QuerySet[Project]:
    """Projects a scope may see, with their rollups (`with_rollups`)."""
    return scope.filter(_projects_with_rollups().all(), "id")


def cost_code_list(scope: Scope) -> QuerySet[CostCode]:
    return scope.filter(CostCode.objects.select_related("project", "budget_line"))


def budget_line_list(scope: Scope) -> QuerySet[BudgetLine]:
    return scope.filter(BudgetLine.objects.select_related("project", "cost_code"))


def commitment_list(scope: Scope) -> QuerySet[Commitment]:
    return scope.filter(Commitment.objects.select_related("project", "vendor"))


def pay_app_holding(date_field: str, field: str = "id") -> Subquery:
    """The ID (or `field`, e.g. its `number`) of the project's pay app whose period holds the
    row's `date_field`."""
    return Subquery(
        PayApp.objects.filter(
            project_id=OuterRef("project_id"),
            period_start__lte=OuterRef(date_field),
            period_end__gte=OuterRef(date_field),
        )
        .order_by("number")
        .values(field)[:1],
        output_field=CharField() if field == "id" else IntegerField(),
    )


def change_order_list(scope: Scope) -> QuerySet[ChangeOrder]:
    return scope.filter(ChangeOrder.objects.select_related("project").prefetch_related("lines"))


@_once_per_thread
def _invoices_with_pay_app() -> QuerySet[Invoice]:
    """Invoices with their project, `period_pay_app_id` and their lines as the list
    `line_list` (position order; what `InvoiceSerializer.lines` reads), resolved once per
    thread (as `_projects_with_rollups`); never evaluated, each read filters a clone. A list
    attribute, not the `lines` manager's cache: Django builds a filtered queryset per invoice
    for the latter, which was a third of a 100-invoice page's ORM time."""
    return (
        Invoice.objects.select_related("project")
        .prefetch_related(Prefetch("lines", to_attr="line_list"))
        .annotate(period_pay_app_id=pay_app_holding("invoice_date"))
    )


def invoice_list(scope: Scope) -> QuerySet[Invoice]:
    """Invoices with `period_pay_app_id` (the pay app whose period holds the invoice date) and
    `line_list`."""
    return scope.filter(_invoices_with_pay_app().all())


def lien_waiver_list(scope: Scope) -> QuerySet[LienWaiver]:
    """Waivers with `period_pay_app_id`: the pay app whose period holds `through_date`."""
    return scope.filter(LienWaiver.objects.select_related("project")).annotate(
        period_pay_app_id=pay_app_holding("through_date")
    )


def pay_app_list(scope: Scope) -> QuerySet[PayApp]:
    """Pay apps with their lines, billed change orders, the project's open waivers,
    `previous_certificates` (G702 line 7) and `amount_paid` (Σ the owner's receipts, cents) —
    five queries for any page size."""
    earlier = earlier_certificate(OuterRef("project_id"), OuterRef("number"))
    open_waivers = LienWaiver.objects.exclude(status=LienWaiverStatus.RECEIVED).only(
        "id", "project_id", "vendor_id", "status", "through_date"
    )
    return (
        scope.filter(PayApp.objects.select_related("project"))
        .prefetch_related(
            "lines",
            Prefetch("change_orders", queryset=ChangeOrder.objects.only("id", "pay_app_id")),
            Prefetch("project__lien_waivers", queryset=open_waivers, to_attr="open_waivers"),
        )
        .annotate(
            previous_certificates=Coalesce(
                Subquery(earlier, output_field=BIG), Value(0, output_field=BIG)
            ),
            amount_paid=receipts_sum(),
        )
    )


def rfi_list(scope: Scope) -> QuerySet[Rfi]:
    """RFIs with the IDs of the change orders that link to them (two queries a page)."""
    return scope.filter(Rfi.objects.all()).prefetch_related(
        Prefetch(
            "change_orders",
            queryset=ChangeOrder.objects.only("id", "rfi_id", "created_at").order_by(
                "created_at", "id"
            ),
        )
    )


def daily_log_list(scope: Scope) -> QuerySet[DailyLog]:
    return scope.filter(DailyLog.objects.all()).prefetch_related("manpower")


def agent_action_list(scope: Scope) -> QuerySet[AgentAction]:
    return scope.filter(AgentAction.objects.all())
