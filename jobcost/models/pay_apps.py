"""Pay apps: owner billings in the AIA G702 (application) / G703 (continuation sheet) shape
(docs/resources.md, pay_app, §9)."""

from django.db import models
from django.db.models import F, Q

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.models.accounts import Account
from jobcost.models.base import TimestampedModel, list_index
from jobcost.models.projects import CostCode, Project


class PayAppStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    SUBMITTED = "submitted", "Submitted"
    APPROVED = "approved", "Approved (certified)"
    PAID = "paid", "Paid"


CERTIFIED_STATUSES = (PayAppStatus.SUBMITTED, PayAppStatus.APPROVED, PayAppStatus.PAID)


class PayAppFormat(models.TextChoices):
    AIA = "aia_g702_g703", "AIA G702/G703"
    CUSTOM = "custom", "Custom"


class PayApp(Audited, TimestampedModel):
    """One application for payment for a billing period.

    The G702 figures are computed from the G703 lines (`selectors.pay_apps`). On submit, the
    application's line 4 (`total_completed_and_stored`) and line 6
    (`total_earned_less_retainage`) are kept in `certified_*`: the period is locked then, and
    the next application's line 7 and the project's `billed_to_date` read them.
    """

    OBJECT = "pay_app"
    COLLECTION = "pay-apps"
    PREFIX = "pa"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="pay_apps")
    number = models.PositiveIntegerField()
    status = models.CharField(
        max_length=16, choices=PayAppStatus.choices, default=PayAppStatus.DRAFT
    )
    format = models.CharField(max_length=20, choices=PayAppFormat.choices, default=PayAppFormat.AIA)
    period_start = models.DateField()
    period_end = models.DateField()
    retainage_pct = models.DecimalField(max_digits=5, decimal_places=2)
    rejection_reason = models.TextField(blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True, editable=False)
    approved_at = models.DateTimeField(null=True, blank=True, editable=False)
    paid_at = models.DateTimeField(null=True, blank=True, editable=False)
    certified_total_completed = models.BigIntegerField(null=True, blank=True, editable=False)
    certified_earned_less_retainage = models.BigIntegerField(null=True, blank=True, editable=False)

    class Meta:
        indexes = [
            list_index("payapp_list", "account"),
            models.Index(fields=["project", "period_start", "period_end"], name="payapp_period"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["project", "number"], name="payapp_number_unique"),
            models.UniqueConstraint(
                fields=["project"], condition=Q(status="draft"), name="payapp_one_draft"
            ),
            models.CheckConstraint(
                condition=Q(period_start__lte=F("period_end")), name="payapp_period_ordered"
            ),
            models.CheckConstraint(
                condition=Q(retainage_pct__gte=0, retainage_pct__lte=100),
                name="payapp_retainage_0_100",
            ),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in PayAppStatus]), name="payapp_status_valid"
            ),
        ]

    def __str__(self) -> str:
        """`Pay app #3 (Nov 2026)`: the number and the month its period ends in."""
        return f"Pay app #{self.number} ({self.period_end:%b %Y})"

    @property
    def currency(self) -> str:
        return self.project.currency


class PayAppLine(models.Model):
    """A G703 row: a cost code's scheduled value, or an approved owner change order's.

    Stored (cents): `scheduled_value`, `previous` (work billed on earlier applications),
    `this_period`, `materials_stored` (re-entered each period). Totals, percent, balance and
    retainage are computed (docs/computations.md). No public ID: rows are addressed by `item`.
    """

    pay_app = models.ForeignKey(PayApp, on_delete=models.CASCADE, related_name="lines")
    position = models.PositiveIntegerField()
    item = models.CharField(max_length=40)
    description = models.CharField(max_length=300)
    cost_code = models.ForeignKey(
        CostCode, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    change_order = models.ForeignKey(
        "jobcost.ChangeOrder", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    scheduled_value = models.BigIntegerField()
    previous = models.BigIntegerField(default=0)
    this_period = models.BigIntegerField(default=0)
    materials_stored = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(
                fields=["pay_app", "position"], name="payappline_position_unique"
            ),
            models.UniqueConstraint(fields=["pay_app", "item"], name="payappline_item_unique"),
            models.CheckConstraint(
                condition=Q(materials_stored__gte=0), name="payappline_stored_gte_0"
            ),
            models.CheckConstraint(
                condition=Q(cost_code__isnull=False) | Q(change_order__isnull=False),
                name="payappline_has_source",
            ),
        ]

    def __str__(self) -> str:
        return f"Item {self.item}"

    @property
    def total_completed_and_stored(self) -> int:
        return self.previous + self.this_period + self.materials_stored
