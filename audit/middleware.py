"""Stamp admin writes with the signed-in user as the audit actor (docs/resources.md,
audit_entry)."""

from audit.context import Actor, acting_as


class AdminActorMiddleware:
    """Within /admin/, a signed-in staff user is the actor of every write."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if request.path.startswith("/admin/") and user is not None and user.is_authenticated:
            # A back-office member acts in their account's role; an operator as superuser.
            membership = getattr(user, "backoffice_membership", None)
            if user.is_superuser:
                role = "superuser"
            else:
                role = membership.role if membership is not None else "staff"
            actor = Actor(
                type="user",
                id=user.get_username(),
                role=role,
                request_id=getattr(request, "request_id", None),
            )
            with acting_as(actor):
                return self.get_response(request)
        return self.get_response(request)
