"""Back-office users (docs/backoffice/month.md): a Django user who belongs to one account with a
role.

`backoffice_user_create` makes the staff user (never a superuser: operators are made with
`createsuperuser`) and its `Membership`; `create_backoffice_user` and `seed_demo` call it.
Error codes: `parameter_invalid` (role, project of another account, email in use).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model

from jobcost.errors import InvalidRequest
from jobcost.models import PERSON_ROLES, Account, Membership, Project
from jobcost.services.common import service


@service
def backoffice_user_create(
    *,
    account: Account,
    role: str,
    email: str,
    username: str | None = None,
    projects: list[Project] | tuple[Project, ...] = (),
    password: str | None = None,
) -> Membership:
    """Create the user (`is_staff`, not superuser; username defaults to the email) and its
    membership of `account` with `role`, restricted to `projects` when given. A None
    password leaves the user with an unusable one (set it later with `changepassword`).

    Emits: none.
    """
    if role not in [r.value for r in PERSON_ROLES]:
        allowed = ", ".join(r.value for r in PERSON_ROLES)
        raise InvalidRequest(f"A back-office role is one of {allowed}.", param="role")
    if any(project.account_id != account.pk for project in projects):
        raise InvalidRequest("Every project must belong to the account.", param="project")
    username = username or email
    users = get_user_model().objects
    if users.filter(username=username).exists():
        raise InvalidRequest(f"A user named {username} already exists.", param="email")
    user = users.create_user(username=username, email=email, password=password)
    user.is_staff = True
    user.is_superuser = False
    user.save(update_fields=["is_staff", "is_superuser"])
    membership = Membership.objects.create(user=user, account=account, role=role)
    membership.projects.set(projects)
    return membership
