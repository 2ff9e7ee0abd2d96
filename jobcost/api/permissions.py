"""DRF permission class that applies the policy table to every view."""

from rest_framework.permissions import BasePermission

from jobcost.api.policy import authorize


class RolePolicy(BasePermission):
    """Runs before any body is parsed, so a forbidden call changes and reveals nothing."""

    def has_permission(self, request, view) -> bool:
        if view.action is None:
            return True  # no such method on this route: the handler answers 405
        key = request.auth
        authorize(
            role=key.role,
            restricted=view.scope.restricted,
            basename=view.basename,
            action=view.action,
        )
        return True
