"""Stamp admin writes with the signed-in user as the audit actor (SPEC §8 audit_entry)."""

from audit.context import Actor, acting_as


class AdminActorMiddleware:
    """Within /admin/, a signed-in staff user is the actor of every write."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if request.path.startswith("/admin/") and user is not None and user.is_authenticated:
            actor = Actor(
                type="user",
                id=user.get_username(),
                role="superuser" if user.is_superuser else "staff",
                request_id=getattr(request, "request_id", None),
            )
            with acting_as(actor):
                return self.get_response(request)
        return self.get_response(request)
