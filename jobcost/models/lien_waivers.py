"""Lien waivers (docs/resources.md, lien_waiver)."""

from django.db import models
from django.db.models import Q

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.models.accounts import Account
from jobcost.models.base import TimestampedModel, list_index
from jobcost.models.commitments import Commitment
from jobcost.models.invoices import Invoice
from jobcost.models.parties import Vendor
from jobcost.models.projects import Project


class LienWaiverType(models.TextChoices):
    CONDITIONAL_PROGRESS = "conditional_progress", "Conditional progress"
    UNCONDITIONAL_PROGRESS = "unconditional_progress", "Unconditional progress"
    CONDITIONAL_FINAL = "conditional_final", "Conditional final"
    UNCONDITIONAL_FINAL = "unconditional_final", "Unconditional final"


class LienWaiverStatus(models.TextChoices):
    REQUESTED = "requested", "Requested"
    RECEIVED = "received", "Received"
    REJECTED = "rejected", "Rejected"


class LienWaiver(Audited, TimestampedModel):
    """A vendor's waiver of lien rights through a date, for an amount (cents).

    It belongs to the billing period that holds `through_date`; its `pay_app` is the pay app
    whose period covers that date (computed at read, so it appears once such a pay app exists).
    """

    OBJECT = "lien_waiver"
    COLLECTION = "lien-waivers"
    PREFIX = "lw"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="lien_waivers")
    vendor = models.ForeignKey(Vendor, on_delete=models.PROTECT, related_name="lien_waivers")
    commitment = models.ForeignKey(
        Commitment, on_delete=models.PROTECT, null=True, blank=True, related_name="lien_waivers"
    )
    invoice = models.ForeignKey(
        Invoice, on_delete=models.PROTECT, null=True, blank=True, related_name="lien_waivers"
    )
    type = models.CharField(max_length=32, choices=LienWaiverType.choices)
    amount = models.BigIntegerField()
    through_date = models.DateField()
    status = models.CharField(
        max_length=16, choices=LienWaiverStatus.choices, default=LienWaiverStatus.REQUESTED
    )
    received_on = models.DateField(null=True, blank=True)
    document_url = models.URLField(max_length=2000, blank=True)

    class Meta:
        indexes = [
            list_index("lienwaiver_list", "account"),
            models.Index(fields=["project", "through_date"], name="lienwaiver_project_date"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gte=0), name="lienwaiver_amount_gte_0"),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in LienWaiverStatus]),
                name="lienwaiver_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(type__in=[t.value for t in LienWaiverType]),
                name="lienwaiver_type_valid",
            ),
        ]

    def __str__(self) -> str:
        return (
            f"{self.get_type_display()} waiver from {self.vendor.name} "
            f"through {self.through_date:%b %-d, %Y}"
        )

    @property
    def currency(self) -> str:
        return self.project.currency
