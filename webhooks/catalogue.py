"""The event catalogue (README "Webhooks and events") and how audited changes map onto it."""

from __future__ import annotations

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

# Object name → (event prefix, output serializer): what an event's data.object is.
RESOURCES: dict[str, tuple[str, str]] = {
    "project": ("project", "jobcost.serializers.projects.ProjectSerializer"),
    "cost_code": ("cost_code", "jobcost.serializers.budgets.CostCodeSerializer"),
    "budget_line": ("budget", "jobcost.serializers.budgets.BudgetLineSerializer"),
    "commitment": ("commitment", "jobcost.serializers.commitments.CommitmentSerializer"),
    "change_order": ("change_order", "jobcost.serializers.change_orders.ChangeOrderSerializer"),
    "invoice": ("invoice", "jobcost.serializers.invoices.InvoiceSerializer"),
    "lien_waiver": ("lien_waiver", "jobcost.serializers.invoices.LienWaiverSerializer"),
    "pay_app": ("pay_app", "jobcost.serializers.pay_apps.PayAppSerializer"),
    "rfi": ("rfi", "jobcost.serializers.rfis.RfiSerializer"),
    "daily_log": ("daily_log", "jobcost.serializers.daily_logs.DailyLogSerializer"),
    "agent_action": ("agent_action", "jobcost.serializers.agent_actions.AgentActionSerializer"),
}

# Audit action → event verb, where they differ ("lines_updated" on a pay app is an update).
VERBS = {"lines_updated": "updated"}


def event_type(object_name: str, action: str) -> str | None:
    """The catalogue type for an audited change, or None when it is not an event."""
    if object_name not in RESOURCES:
        return None
    candidate = f"{RESOURCES[object_name][0]}.{VERBS.get(action, action)}"
    return candidate if candidate in CATALOGUE else None


def subscribes(events: list[str], type_: str) -> bool:
    """True when an endpoint's `events` list covers the type (`*` covers all)."""
    return "*" in events or type_ in events
