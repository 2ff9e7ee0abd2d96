"""The project and invoice selectors filter a clone of annotations resolved once per process;
their SQL is the SQL of annotating the filtered queryset, for a key of the whole account and
for a key restricted to some projects, and two scopes never share a filter."""

import pytest

from jobcost.models import Invoice, Project
from jobcost.scope import Scope
from jobcost.selectors import visible
from tests.factories import ProjectFactory


def _sql(queryset) -> str:
    return str(queryset.order_by("-created_at", "-id")[:101].query)


@pytest.mark.parametrize("restricted", [False, True])
def test_cached_annotations_give_the_sql_of_annotating_the_filtered_queryset(account, restricted):
    project = ProjectFactory(account=account)
    scope = Scope(account.pk, frozenset({project.pk}) if restricted else None)
    projects = visible.with_rollups(scope.filter(Project.objects.all(), "id"))
    invoices = scope.filter(Invoice.objects.select_related("project")).annotate(
        period_pay_app_id=visible.pay_app_holding("invoice_date")
    )
    assert _sql(visible.project_list(scope)) == _sql(projects)
    assert _sql(visible.invoice_list(scope)) == _sql(invoices)
    (lines,) = visible.invoice_list(scope)._prefetch_related_lookups
    assert (lines.prefetch_through, lines.to_attr) == ("lines", "line_list")


def test_each_scope_sees_only_its_own_projects(account):
    mine, other = ProjectFactory(account=account), ProjectFactory()
    assert list(visible.project_list(Scope(account.pk))) == [mine]
    assert list(visible.project_list(Scope(other.account_id))) == [other]
    assert list(visible.project_list(Scope(account.pk))) == [mine]
    assert visible.project_list(Scope(account.pk)).get().rollup_cost_to_date == 0
