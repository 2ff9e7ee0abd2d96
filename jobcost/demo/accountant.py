"""The demo's project accountant: a back-office user of "Demo Builders", role manager.

Only in development (`settings.DEVELOPMENT`, `JOBCOST_ENV=development`) does she get the
password docs/backoffice/index.md gives, so that the back office can be tried locally; anywhere else
she gets an unusable one (an operator sets one with `changepassword` if she is wanted at all).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model

from jobcost.models import Account, Membership, Role
from jobcost.services.backoffice_users import backoffice_user_create

USERNAME = "accountant"
EMAIL = "accountant@demo-builders.example"
# For local use only (docs/backoffice/index.md); never set outside development.
DEVELOPMENT_PASSWORD = "demo-accountant-2026"


def demo_accountant_ensure(account: Account) -> tuple[Membership, bool]:
    """The demo accountant's membership of `account`, created when missing (then True).
    Idempotent: an existing user is left as it is."""
    user = get_user_model().objects.filter(username=USERNAME).first()
    if user is not None:
        membership = Membership.objects.filter(user=user).first()
        if membership is not None:
            return membership, False
    password = DEVELOPMENT_PASSWORD if settings.DEVELOPMENT else None
    if user is not None:
        # A user of that name without a membership: not ours to take over.
        raise ValueError(f"A user named {USERNAME} already exists outside the back office.")
    membership = backoffice_user_create(
        account=account, role=Role.MANAGER, email=EMAIL, username=USERNAME, password=password
    )
    return membership, True
