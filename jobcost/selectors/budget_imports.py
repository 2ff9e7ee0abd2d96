"""Budget imports as a key or a back-office member may see them."""

from django.db.models import QuerySet

from jobcost.models import BudgetImport
from jobcost.scope import Scope


def budget_import_list(scope: Scope) -> QuerySet[BudgetImport]:
    """The account's imports, of the key's projects when it is restricted."""
    return scope.filter(BudgetImport.objects.all())
