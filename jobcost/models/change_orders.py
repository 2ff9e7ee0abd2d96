"""Change orders: owner changes to the prime contract, commitment changes to a subcontract or
purchase order (docs/resources.md, change_order)."""

from django.db import models
from django.db.models import Q

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.models.accounts import Account
from jobcost.models.base import TimestampedModel, list_index, loaded
from jobcost.models.commitments import Commitment
from jobcost.models.projects import CostCode, Project


class ChangeOrderKind(models.TextChoices):
    OWNER = "owner", "Owner (prime contract)"
    COMMITMENT = "commitment", "Commitment"


class ChangeOrderStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    PENDING = "pending", "Pending"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    VOID = "void", "Void"


# A change order not yet decided: approvable (and voidable).
CHANGE_ORDER_UNDECIDED = (ChangeOrderStatus.DRAFT, ChangeOrderStatus.PENDING)


class ChangeOrder(Audited, TimestampedModel):
    """A change to the prime contract (`owner`) or to a commitment (`commitment`).

    `amount` (cents) may be negative (deductive). Its lines sum to it. Once an owner change
    order is approved, `pay_app` is the pay app it lands on as its own G703 row.
    """

    OBJECT = "change_order"
    COLLECTION = "change-orders"
    PREFIX = "co"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="change_orders")
    number = models.CharField(max_length=60)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    kind = models.CharField(max_length=16, choices=ChangeOrderKind.choices)
    commitment = models.ForeignKey(
        Commitment, on_delete=models.PROTECT, null=True, blank=True, related_name="change_orders"
    )
    rfi = models.ForeignKey(
        "jobcost.Rfi", on_delete=models.PROTECT, null=True, blank=True, related_name="change_orders"
    )
    amount = models.BigIntegerField()
    status = models.CharField(
        max_length=16, choices=ChangeOrderStatus.choices, default=ChangeOrderStatus.DRAFT
    )
    pay_app = models.ForeignKey(
        "jobcost.PayApp",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="change_orders",
        editable=False,
    )
    submitted_at = models.DateTimeField(null=True, blank=True, editable=False)
    approved_at = models.DateTimeField(null=True, blank=True, editable=False)
    approved_by = models.CharField(max_length=200, blank=True, editable=False)
    rejected_at = models.DateTimeField(null=True, blank=True, editable=False)
    rejection_reason = models.TextField(blank=True)
    voided_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        indexes = [list_index("changeorder_list", "account")]
        constraints = [
            models.UniqueConstraint(fields=["project", "number"], name="changeorder_number_unique"),
            models.CheckConstraint(
                condition=Q(kind="owner", commitment__isnull=True)
                | Q(kind="commitment", commitment__isnull=False),
                name="changeorder_kind_commitment",
            ),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in ChangeOrderStatus]),
                name="changeorder_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.number} {self.title}"

    @property
    def currency(self) -> str:
        return self.project.currency


class ChangeOrderLine(models.Model):
    """One cost code's share of a change order: `amount` (contract or commitment change) and
    `budget_amount` (the cost-budget change, default `amount`), both cents, may be negative."""

    change_order = models.ForeignKey(ChangeOrder, on_delete=models.CASCADE, related_name="lines")
    position = models.PositiveIntegerField()
    cost_code = models.ForeignKey(CostCode, on_delete=models.PROTECT, related_name="+")
    description = models.CharField(max_length=500, blank=True)
    amount = models.BigIntegerField()
    budget_amount = models.BigIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(
                fields=["change_order", "position"], name="changeorderline_position_unique"
            )
        ]

    def __str__(self) -> str:
        order = loaded(self, "change_order")
        return f"Line {self.position}" + (f" of {order.number}" if order else "")
