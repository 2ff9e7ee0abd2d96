"""Agent actions (docs/resources.md, agent_action): a change an agent proposes and a person
approves.

Nothing changes until approval; approval runs `payload` through the real endpoint's parsing
and service function (see `jobcost.services.agent_actions`)."""

from django.db import models
from django.db.models import Q

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.models.accounts import Account
from jobcost.models.base import TimestampedModel, list_index
from jobcost.models.projects import Project


class AgentActionKind(models.TextChoices):
    INVOICE_CODE = "invoice.code", "Code an invoice"
    CHANGE_ORDER_CREATE = "change_order.create", "Create a change order"
    RFI_CREATE = "rfi.create", "Create an RFI"
    DAILY_LOG_CREATE = "daily_log.create", "Create a daily log"
    BUDGET_UPDATE = "budget.update", "Update a budget line"


class AgentActionStatus(models.TextChoices):
    PROPOSED = "proposed", "Proposed"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    FAILED = "failed", "Failed"


class AgentAction(Audited, TimestampedModel):
    """A proposed change: `action` on `target` (an ID, for `invoice.code` and
    `budget.update`) with `payload` (the real endpoint's body) and `rationale`.

    `result` is the ID approval created or changed; `failure` the error object (docs/errors.md
    shape) when approval hit a rule. `proposed_by` / `decided_by` are actor objects
    {`type`: `api_key`|`user`|`system`, `id`, `role`}, as on the audit trail.
    """

    OBJECT = "agent_action"
    COLLECTION = "agents/actions"
    PREFIX = "aa"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="agent_actions")
    action = models.CharField(max_length=32, choices=AgentActionKind.choices)
    target = models.CharField(max_length=40, blank=True)
    # Blank allowed: `{}` is a valid body of PATCH /v1/budgets/{id} (budget.update), a no-op.
    payload = models.JSONField(blank=True)
    rationale = models.TextField(blank=True)
    status = models.CharField(
        max_length=16, choices=AgentActionStatus.choices, default=AgentActionStatus.PROPOSED
    )
    result = models.CharField(max_length=40, blank=True, editable=False)
    failure = models.JSONField(null=True, blank=True, editable=False)
    proposed_by = models.JSONField(editable=False)
    decided_by = models.JSONField(null=True, blank=True, editable=False)
    decided_at = models.DateTimeField(null=True, blank=True, editable=False)
    rejection_reason = models.TextField(blank=True, editable=False)

    class Meta:
        indexes = [list_index("agentaction_list", "account")]
        constraints = [
            models.CheckConstraint(
                condition=Q(action__in=[a.value for a in AgentActionKind]),
                name="agentaction_action_valid",
            ),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in AgentActionStatus]),
                name="agentaction_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(action__in=["invoice.code", "budget.update"], target__gt="")
                | (~Q(action__in=["invoice.code", "budget.update"]) & Q(target="")),
                name="agentaction_target_for_updates",
            ),
        ]

    def __str__(self) -> str:
        return f"Agent proposal: {self.get_action_display()}"
