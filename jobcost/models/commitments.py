"""Commitments: subcontracts and purchase orders (docs/resources.md, docs/computations.md)."""

from django.db import models
from django.db.models import Q

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.models.accounts import Account
from jobcost.models.base import TimestampedModel, list_index
from jobcost.models.parties import Vendor
from jobcost.models.projects import CostCode, Project


class CommitmentType(models.TextChoices):
    SUBCONTRACT = "subcontract", "Subcontract"
    PURCHASE_ORDER = "purchase_order", "Purchase order"


class CommitmentStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    EXECUTED = "executed", "Executed"
    CLOSED = "closed", "Closed"
    VOID = "void", "Void"


# A commitment that binds the vendor (committed on the budget, billable, open to change
# orders): executed, or closed with its bills kept.
COMMITMENT_BINDING = (CommitmentStatus.EXECUTED, CommitmentStatus.CLOSED)


class Commitment(Audited, TimestampedModel):
    """A subcontract or purchase order with a vendor.

    Stored money (cents): `original_amount`, `approved_changes` (approved commitment change
    orders) and `billed_to_date` (approved and paid invoices), the last two moved only under a
    row lock by services. `revised_amount` and `remaining` are computed (docs/computations.md).
    """

    OBJECT = "commitment"
    COLLECTION = "commitments"
    PREFIX = "cmt"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="commitments")
    vendor = models.ForeignKey(Vendor, on_delete=models.PROTECT, related_name="commitments")
    cost_code = models.ForeignKey(
        CostCode, on_delete=models.PROTECT, null=True, blank=True, related_name="commitments"
    )
    number = models.CharField(max_length=60)
    type = models.CharField(max_length=20, choices=CommitmentType.choices)
    status = models.CharField(
        max_length=16, choices=CommitmentStatus.choices, default=CommitmentStatus.DRAFT
    )
    description = models.CharField(max_length=500, blank=True)
    original_amount = models.BigIntegerField()
    approved_changes = models.BigIntegerField(default=0, editable=False)
    billed_to_date = models.BigIntegerField(default=0, editable=False)
    retainage_pct = models.DecimalField(max_digits=5, decimal_places=2, default=0)
    executed_at = models.DateTimeField(null=True, blank=True, editable=False)
    closed_at = models.DateTimeField(null=True, blank=True, editable=False)
    voided_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        indexes = [list_index("commitment_list", "account")]
        constraints = [
            models.UniqueConstraint(fields=["project", "number"], name="commitment_number_unique"),
            models.CheckConstraint(
                condition=Q(original_amount__gte=0), name="commitment_original_gte_0"
            ),
            models.CheckConstraint(
                condition=Q(billed_to_date__gte=0), name="commitment_billed_gte_0"
            ),
            models.CheckConstraint(
                condition=Q(retainage_pct__gte=0, retainage_pct__lte=100),
                name="commitment_retainage_0_100",
            ),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in CommitmentStatus]),
                name="commitment_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(type__in=[t.value for t in CommitmentType]),
                name="commitment_type_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"Commitment {self.number} ({self.vendor.name})"

    @property
    def revised_amount(self) -> int:
        return self.original_amount + self.approved_changes

    @property
    def remaining(self) -> int:
        return self.revised_amount - self.billed_to_date

    @property
    def currency(self) -> str:
        return self.project.currency
