"""Requests for information (docs/resources.md, rfi): a question to the design team, numbered per
project, answered and closed; change orders link to the RFI that caused them."""

from django.db import models
from django.db.models import Q

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.models.accounts import Account
from jobcost.models.base import TimestampedModel, list_index
from jobcost.models.projects import Project


class RfiStatus(models.TextChoices):
    OPEN = "open", "Open"
    ANSWERED = "answered", "Answered"
    CLOSED = "closed", "Closed"


class Rfi(Audited, TimestampedModel):
    """An RFI: `open` → `answered` (an answer is recorded) → `closed`; an open RFI may also
    be closed unanswered (withdrawn). `cost_impact` flags that it may lead to a change order."""

    OBJECT = "rfi"
    COLLECTION = "rfis"
    PREFIX = "rfi"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="rfis")
    number = models.CharField(max_length=60)
    subject = models.CharField(max_length=200)
    question = models.TextField()
    answer = models.TextField(blank=True)
    status = models.CharField(max_length=16, choices=RfiStatus.choices, default=RfiStatus.OPEN)
    due_date = models.DateField(null=True, blank=True)
    cost_impact = models.BooleanField(default=False)
    answered_at = models.DateTimeField(null=True, blank=True, editable=False)
    closed_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        verbose_name = "RFI"
        indexes = [list_index("rfi_list", "account")]
        constraints = [
            models.UniqueConstraint(fields=["project", "number"], name="rfi_number_unique"),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in RfiStatus]), name="rfi_status_valid"
            ),
            models.CheckConstraint(
                condition=~Q(status="answered") | ~Q(answer=""), name="rfi_answered_has_answer"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.number} {self.subject}"
