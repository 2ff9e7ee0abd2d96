"""The role matrix (docs/keys.md, "Who may call what"), in one place for every endpoint.

Each route needs one capability, found from the view's basename and action: first in
`UNIVERSAL_CAPABILITY` (OPTIONS on any route), then `COLLECTION_CAPABILITY`, `ROUTE_CAPABILITY`
and `ACTION_CAPABILITY`. A route in none is refused (and the route × role test fails), so a
new endpoint cannot ship without a policy.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from jobcost.error_codes import AuthErrorCode
from jobcost.errors import Forbidden
from jobcost.models import Role

READ = "read"
WRITE = "write"
APPROVE = "approve"
PROPOSE = "propose"
MANAGE_WEBHOOKS = "manage_webhooks"
# Creating and revoking API keys: no API route does it (the command and the back office do),
# and it is the admin role's alone, like webhook endpoints.
MANAGE_KEYS = "manage_keys"
# OPTIONS (DRF's implicit `metadata` action) only names the route's methods in `Allow`; it
# reads and changes nothing, so every role has it, on every collection (docs/decisions.md,
# "Errors and methods": every method on every route has a defined answer).
DESCRIBE = "describe"

ROLE_CAPABILITIES: dict[str, frozenset[str]] = {
    Role.ADMIN: frozenset({DESCRIBE, READ, WRITE, APPROVE, PROPOSE, MANAGE_WEBHOOKS, MANAGE_KEYS}),
    Role.MANAGER: frozenset({DESCRIBE, READ, WRITE, APPROVE, PROPOSE}),
    Role.MEMBER: frozenset({DESCRIBE, READ, WRITE, PROPOSE}),
    Role.VIEWER: frozenset({DESCRIBE, READ}),
    Role.AGENT: frozenset({DESCRIBE, READ, WRITE, PROPOSE}),
}

ACTION_CAPABILITY: dict[str, str] = {
    "list": READ,
    "retrieve": READ,
    "audit": READ,
    "lines": READ,
    # Printing the pay app (GET /v1/pay-apps/{id}/pdf): anyone who can read it can print it.
    "pdf": READ,
    "submit": WRITE,
    "create": WRITE,
    "partial_update": WRITE,
    "execute": APPROVE,
    "close": APPROVE,
    "void": APPROVE,
    "approve": APPROVE,
    "reject": APPROVE,
    "mark_paid": APPROVE,
    # The owner's receipts of a pay app (GET/POST /v1/pay-apps/{id}/payments): reading them
    # is reading the pay app; recording one is marking it (partly) paid.
    "payments": READ,
    "record_payment": APPROVE,
}

# (basename, action) → capability, where the action name alone does not decide.
ROUTE_CAPABILITY: dict[tuple[str, str], str] = {
    # Closing an RFI is record keeping, not an approval (docs/keys.md, "Who may call what": create /
    # update records).
    ("rfis", "close"): WRITE,
    # Proposing is its own right (docs/keys.md, "Who may call what": propose agent actions).
    ("agent-actions", "create"): PROPOSE,
    # Importing a budget creates cost codes: whoever may create them may import (a dry run
    # too, since it stands for the import; docs/budget-import.md).
    ("projects", "budget_import"): WRITE,
}

# Collections whose every route needs one capability (docs/keys.md, "Who may call what": webhook
# endpoints are the admin role's alone).
# Reports read figures every role may read (docs/reports.md).
COLLECTION_CAPABILITY: dict[str, str] = {
    "webhooks": MANAGE_WEBHOOKS,
    "api-keys": MANAGE_KEYS,
    "reports": READ,
}

# Routes a project-restricted key may never call (docs/keys.md, "Who may call what": it cannot
# create projects).
UNRESTRICTED_ONLY: set[tuple[str, str]] = {("projects", "create")}


# Actions that need the same capability on every collection, before any collection rule.
UNIVERSAL_CAPABILITY: dict[str, str] = {"metadata": DESCRIBE}


def capability_for(basename: str, action: str) -> str:
    """The capability a route needs; ImproperlyConfigured when the route has no policy."""
    capability = (
        UNIVERSAL_CAPABILITY.get(action)
        or COLLECTION_CAPABILITY.get(basename)
        or ROUTE_CAPABILITY.get((basename, action))
        or ACTION_CAPABILITY.get(action)
    )
    if capability is None:
        raise ImproperlyConfigured(f"No role policy for route {basename}.{action}")
    return capability


def authorize(*, role: str, restricted: bool, basename: str, action: str) -> None:
    """Raise 403 unless a key of `role` may call the route.

    Agent keys on an approve/reject/void/execute/close/mark-paid route (including approving
    or rejecting agent actions) get
    `agent_cannot_approve`; everything else refused gets `role_forbidden`.
    """
    capability = capability_for(basename, action)
    if capability == APPROVE and role == Role.AGENT:
        raise Forbidden(
            "Agent keys cannot approve, reject, void, execute, close or mark paid; "
            "propose an agent action for a person to approve.",
            code=AuthErrorCode.AGENT_CANNOT_APPROVE,
        )
    if capability not in ROLE_CAPABILITIES.get(role, frozenset()):
        raise Forbidden(f"A {role} key may not {action.replace('_', ' ')} {basename}.")
    restricted_out = (basename, action) in UNRESTRICTED_ONLY or capability in (
        MANAGE_WEBHOOKS,
        MANAGE_KEYS,
    )
    if restricted and restricted_out:
        raise Forbidden(
            f"A key restricted to projects may not {action.replace('_', ' ')} {basename}."
        )
