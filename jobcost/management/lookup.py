"""What the key and user commands share: finding the account and the projects they name."""

from __future__ import annotations

from django.core.management.base import CommandError

from jobcost.models import Account, Project
from jobcost.services.api_keys import account_get_or_create


def account_and_projects(account: str, project_ids: list[str]) -> tuple[Account, list[Project]]:
    """The account named by `account` (an `acct_` ID, or a name, created when new) and its
    projects `project_ids`; CommandError for an unknown `acct_` ID or a project it lacks."""
    if account.startswith("acct_"):
        found = Account.objects.filter(pk=account).first()
        if found is None:
            raise CommandError(f"No account {account}.")
    else:
        found = account_get_or_create(name=account)
    projects = list(Project.objects.filter(pk__in=project_ids, account=found))
    missing = set(project_ids) - {p.pk for p in projects}
    if missing:
        raise CommandError(f"No such project in {found.name}: {', '.join(sorted(missing))}")
    return found, projects
