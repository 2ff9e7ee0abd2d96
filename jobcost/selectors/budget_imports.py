"""Budget imports as a key or a back-office member may see them."""

from django.db.models import QuerySet

from jobcost.api.scope import Scope
from jobcost.models import BudgetImport


def budget_import_list(scope: Scope) -> QuerySet[BudgetImport]:
    """The account's imports, of the key's projects when it is restricted."""
    return scope.filter(BudgetImport.objects.all())
