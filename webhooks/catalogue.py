"""The event catalogue (docs/webhooks.md) and how audited changes map onto it."""

from __future__ import annotations

from jobcost.resources import RESOURCES

CATALOGUE: frozenset[str] = frozenset(
    {
        "project.created",
        "project.updated",
        "cost_code.created",
        "budget.updated",
        "commitment.created",
        "commitment.updated",
        "commitment.executed",
        "commitment.closed",
        "commitment.voided",
        "change_order.created",
        "change_order.submitted",
        "change_order.approved",
        "change_order.rejected",
        "change_order.voided",
        "invoice.created",
        "invoice.coded",
        "invoice.approved",
        "invoice.paid",
        "invoice.voided",
        "lien_waiver.requested",
        "lien_waiver.received",
        "pay_app.created",
        "pay_app.updated",
        "pay_app.submitted",
        "pay_app.approved",
        "pay_app.rejected",
        "pay_app.paid",
        "rfi.created",
        "rfi.answered",
        "rfi.closed",
        "daily_log.created",
        "agent_action.proposed",
        "agent_action.approved",
        "agent_action.rejected",
        "agent_action.failed",
    }
)


def event_resources() -> dict:
    """Object name → its table entry (`jobcost.resources`), for the objects that can be an
    event's `data.object` (those with an event prefix)."""
    return {name: r for name, r in RESOURCES.items() if r.event_prefix is not None}


# Audit action → event verb, where they differ ("lines_updated" on a pay app is an update, and
# so is a receipt that leaves it approved, "payment_received").
VERBS = {"lines_updated": "updated", "payment_received": "updated"}


def event_type(object_name: str, action: str) -> str | None:
    """The catalogue type for an audited change, or None when it is not an event."""
    resource = RESOURCES.get(object_name)
    if resource is None or resource.event_prefix is None:
        return None
    candidate = f"{resource.event_prefix}.{VERBS.get(action, action)}"
    return candidate if candidate in CATALOGUE else None


def subscribes(events: list[str], type_: str) -> bool:
    """True when an endpoint's `events` list covers the type (`*` covers all)."""
    return "*" in events or type_ in events
