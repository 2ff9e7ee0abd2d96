"""Pay apps: owner billings in the AIA G702 (application) / G703 (continuation sheet) shape
(docs/resources.md, pay_app, §9)."""

from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.models.accounts import Account
from jobcost.models.base import TimestampedModel, list_index
from jobcost.models.projects import CostCode, Project
from jobcost.money import format_dollars


class PayAppStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    SUBMITTED = "submitted", "Submitted"
    APPROVED = "approved", "Approved (certified)"
    PAID = "paid", "Paid"


CERTIFIED_STATUSES = (PayAppStatus.SUBMITTED, PayAppStatus.APPROVED, PayAppStatus.PAID)
# Approved by the owner: a certificate, owed until paid.
OWNER_CERTIFIED = (PayAppStatus.APPROVED, PayAppStatus.PAID)


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
    # The owner's side (docs/resources.md, "Certification"): what the
    # architect certified at approval (cents, at most line 8), when, and why less; receipts
    # are `PayAppPayment` rows.
    amount_certified = models.BigIntegerField(null=True, blank=True, editable=False)
    certified_on = models.DateField(null=True, blank=True, editable=False)
    certification_note = models.TextField(blank=True, editable=False)

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


class PayAppPayment(Audited, TimestampedModel):
    """A receipt from the owner against an approved pay app: `amount` (cents, > 0), the day it
    was received and the owner's `reference` (a check or wire number). The pay app is paid when
    its receipts reach its `amount_certified`. Never edited: a wrong receipt is corrected by
    the service that records receipts, on the audit trail."""

    OBJECT = "pay_app_payment"
    PREFIX = "pmt"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="+")
    pay_app = models.ForeignKey(PayApp, on_delete=models.PROTECT, related_name="payments")
    amount = models.BigIntegerField()
    received_on = models.DateField()
    reference = models.CharField(max_length=100, blank=True)

    class Meta:
        indexes = [list_index("payapppayment_list", "pay_app")]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="payapppayment_amount_gt_0"),
        ]

    def __str__(self) -> str:
        """`Payment of $4,000.00 received 2026-11-06`: what people read where it is named."""
        return f"Payment of {format_dollars(self.amount)} received {self.received_on}"

    @property
    def currency(self) -> str:
        return self.project.currency


class PayAppDocumentStage(models.TextChoices):
    SUBMITTED = "submitted", "As submitted"
    CERTIFIED = "certified", "As certified"


class PayAppDocument(models.Model):
    """The printed pay app as it was certified (docs/documents.md, "Certified means frozen"):
    `snapshot` holds every name, date and figure the document prints, taken in the transaction
    that submitted (stage `submitted`) or approved (stage `certified`) it, and `pdf` the bytes
    rendered from it, with their SHA-256. A row is written once and never changed; a pay app
    rejected back to draft and submitted again gets a new `submitted` row, and one approval
    its single `certified` row."""

    pay_app = models.ForeignKey(PayApp, on_delete=models.PROTECT, related_name="documents")
    stage = models.CharField(max_length=16, choices=PayAppDocumentStage.choices)
    snapshot = models.JSONField()
    pdf = models.BinaryField()
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["pay_app"],
                condition=Q(stage="certified"),
                name="payappdocument_one_certified",
            ),
            models.CheckConstraint(
                condition=Q(stage__in=[s.value for s in PayAppDocumentStage]),
                name="payappdocument_stage_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_stage_display()} document of pay app {self.pay_app_id}"


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
