"""Budget imports: a spreadsheet of cost codes and budgets read into a project
(docs/budget-import.md)."""

from django.db import models
from django.db.models import Q

from audit.ids import prefixed_id
from jobcost.models.accounts import Account
from jobcost.models.base import TimestampedModel, list_index
from jobcost.models.projects import Project


class BudgetImportStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class BudgetImportWarning(models.TextChoices):
    """A budget import's warnings: allowed, said in dollars, never a refusal."""

    SCHEDULED_VALUES_OFF_CONTRACT = (
        "scheduled_values_off_contract",
        "The scheduled values do not sum to the contract",
    )


class BudgetImport(TimestampedModel):
    """One upload of a budget file and what became of it: a job record, not a domain object.

    `rows` holds the file's data rows as read (row number, code, name, cost type, and the two
    amounts in cents, or the text typed when it could not be read), so a queued import and the
    back office's dry-run table need not keep the file itself. `errors` holds every refusal
    found, `{"row", "column", "code", "message"}` (row 1 is the header; `row` and `column` are
    null for a refusal of the whole file). `warnings` holds what is allowed but likely a
    mistake (scheduled values off the contract), `{"code", "message"}`. `rows_done` counts
    rows checked or written, for the progress bar. What the import writes — cost codes and
    their budget lines — is audited and emits events as `POST /v1/cost-codes` does; this
    record itself is not audited, so a dry run leaves no trace on the trail.
    """

    OBJECT = "budget_import"
    COLLECTION = "budget-imports"
    PREFIX = "imp"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="budget_imports")
    # Who started it (the audit actor: an API key or a back-office user), the request
    # (`req_…`) and its Idempotency-Key: the audit entries and events a queued import writes
    # carry them, as a synchronous one's do.
    actor_type = models.CharField(max_length=16, default="system")
    actor_id = models.CharField(max_length=150, blank=True, default="")
    actor_role = models.CharField(max_length=16, blank=True, default="")
    request_id = models.CharField(max_length=40, blank=True, default="")
    idempotency_key = models.CharField(max_length=255, blank=True, default="")
    status = models.CharField(
        max_length=16, choices=BudgetImportStatus.choices, default=BudgetImportStatus.PENDING
    )
    dry_run = models.BooleanField(default=False)
    file_name = models.CharField(max_length=255, blank=True, default="")
    file_format = models.CharField(max_length=8)
    rows_total = models.PositiveIntegerField(default=0)
    rows_done = models.PositiveIntegerField(default=0)
    rows = models.JSONField(default=list)
    errors = models.JSONField(default=list)
    # What the file does that is allowed but likely a mistake, `{"code", "message"}`: the
    # scheduled values not summing to the contract (docs/budget-import.md, "Warnings").
    warnings = models.JSONField(default=list)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [list_index("budgetimport_list", "account")]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in BudgetImportStatus]),
                name="budgetimport_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(rows_done__lte=models.F("rows_total")),
                name="budgetimport_done_lte_total",
            ),
        ]

    def __str__(self) -> str:
        kind = "Dry run" if self.dry_run else "Import"
        return f"{kind} {self.file_name or self.pk} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (BudgetImportStatus.SUCCEEDED, BudgetImportStatus.FAILED)
