"""The visible querysets behind every endpoint, with what their API shape needs loaded.

Each takes the key's `Scope` and costs one query for any number of rows.
"""

from __future__ import annotations

from django.db.models import BigIntegerField, OuterRef, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from jobcost.api.scope import Scope
from jobcost.models import BudgetLine, Commitment, CostCode, Owner, Project, Vendor
from jobcost.selectors.rollups import projected_cost_expr


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
    projected_cost) and `rollup_billed_to_date` (SPEC §9) as subqueries over the project's
    budget lines: a constant number of queries whatever the project's size."""
    return queryset.annotate(
        rollup_cost_to_date=_budget_sum("actual"),
        rollup_projected_cost=_budget_sum(projected_cost_expr()),
        rollup_billed_to_date=Value(0, output_field=BigIntegerField()),
    )


def project_list(scope: Scope) -> QuerySet[Project]:
    return with_rollups(scope.filter(Project.objects.all(), "id"))


def cost_code_list(scope: Scope) -> QuerySet[CostCode]:
    return scope.filter(CostCode.objects.select_related("project", "budget_line"))


def budget_line_list(scope: Scope) -> QuerySet[BudgetLine]:
    return scope.filter(BudgetLine.objects.select_related("project", "cost_code"))


def commitment_list(scope: Scope) -> QuerySet[Commitment]:
    return scope.filter(Commitment.objects.select_related("project", "vendor"))
