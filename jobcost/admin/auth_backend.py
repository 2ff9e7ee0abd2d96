"""The back office's sign-in backend (docs/architecture.md, "The back office's user"): Django's
`ModelBackend`, except that the signed-in user of each request is read together with their
`Membership` and the IDs of the projects it is restricted to, in one query.

Every admin page needs all three (the audit actor's role, the `Scope` of every list, the
permission of every link), and Django read them in three queries a page. The user is read on
every request, as Django reads it: a deactivated user or a changed membership takes effect on
the next page."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.postgres.expressions import ArraySubquery
from django.core.exceptions import ObjectDoesNotExist
from django.db import connection
from django.db.models import OuterRef

from jobcost.models import Membership


class BackOfficeBackend(ModelBackend):
    """`ModelBackend` whose `get_user` reads the user with `backoffice_membership` (None when
    they have none) and, on PostgreSQL, the membership's `project_id_list` (the IDs of the
    projects it is restricted to; empty: every project), which `Scope.for_key` reads without
    a query."""

    def get_user(self, user_id):
        users = get_user_model()._default_manager.select_related("backoffice_membership")
        if connection.vendor == "postgresql":
            restriction = Membership.projects.through.objects.filter(
                membership_id=OuterRef("backoffice_membership__pk")
            )
            users = users.annotate(
                backoffice_project_ids=ArraySubquery(restriction.values("project_id"))
            )
        try:
            user = users.get(pk=user_id)
        except get_user_model().DoesNotExist:
            return None
        if not self.user_can_authenticate(user):
            return None
        ids = getattr(user, "backoffice_project_ids", None)
        try:
            membership = user.backoffice_membership
        except ObjectDoesNotExist:
            membership = None
        if membership is not None and ids is not None:
            membership.project_id_list = ids
        return user
