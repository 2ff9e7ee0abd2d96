"""Projects, cost codes and budget lines (docs/resources.md, docs/computations.md)."""

from django.db import models
from django.db.models import Q

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.figures import BudgetFigures
from jobcost.models.accounts import Account
from jobcost.models.base import TimestampedModel, list_index, loaded
from jobcost.models.parties import Owner


class ProjectStatus(models.TextChoices):
    BID = "bid", "Bid"
    ACTIVE = "active", "Active"
    CLOSEOUT = "closeout", "Closeout"
    CLOSED = "closed", "Closed"


# A project's status sets: the ones a project may be created in; the ones in progress (on
# the WIP schedule).
PROJECT_INITIAL = (ProjectStatus.BID, ProjectStatus.ACTIVE)
PROJECT_IN_PROGRESS = (ProjectStatus.ACTIVE, ProjectStatus.CLOSEOUT)


class Project(Audited, TimestampedModel):
    """A construction job under a prime contract with an owner.

    Stored money: `contract_amount` (original contract, cents) and `approved_changes` (sum of
    approved owner change orders, cents, moved only by change-order services with F()
    updates). Everything else on the API object is computed by `selectors.projects`.
    """

    OBJECT = "project"
    COLLECTION = "projects"
    PREFIX = "prj"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="projects")
    number = models.CharField(max_length=60)
    name = models.CharField(max_length=200)
    status = models.CharField(
        max_length=16, choices=ProjectStatus.choices, default=ProjectStatus.BID
    )
    owner = models.ForeignKey(Owner, on_delete=models.PROTECT, related_name="projects")
    contract_amount = models.BigIntegerField()
    approved_changes = models.BigIntegerField(default=0, editable=False)
    retainage_pct = models.DecimalField(max_digits=5, decimal_places=2, default=0)
    currency = models.CharField(max_length=3, default="usd")
    # What the G702 heading prints (docs/documents.md): the day the prime contract was signed
    # and the architect (or engineer) who certifies the applications.
    contract_date = models.DateField(null=True, blank=True)
    architect_name = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [list_index("project_list", "account")]
        constraints = [
            models.UniqueConstraint(fields=["account", "number"], name="project_number_unique"),
            models.CheckConstraint(
                condition=Q(contract_amount__gte=0), name="project_contract_gte_0"
            ),
            models.CheckConstraint(
                condition=Q(retainage_pct__gte=0, retainage_pct__lte=100),
                name="project_retainage_0_100",
            ),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in ProjectStatus]),
                name="project_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(currency__regex=r"^[a-z]{3}$"), name="project_currency_iso"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.number} {self.name}"


class CostType(models.TextChoices):
    LABOR = "labor", "Labor"
    MATERIAL = "material", "Material"
    EQUIPMENT = "equipment", "Equipment"
    SUBCONTRACT = "subcontract", "Subcontract"
    OTHER = "other", "Other"


class CostCode(Audited, TimestampedModel):
    """A line of the job's cost breakdown (e.g. CSI `03-300` Cast-in-place concrete).

    `scheduled_value` is this code's share of the contract: its G703 row (cents).
    """

    OBJECT = "cost_code"
    COLLECTION = "cost-codes"
    PREFIX = "cc"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="cost_codes")
    code = models.CharField(max_length=40)
    name = models.CharField(max_length=200)
    cost_type = models.CharField(max_length=16, choices=CostType.choices, default=CostType.OTHER)
    scheduled_value = models.BigIntegerField(default=0)

    class Meta:
        indexes = [list_index("costcode_list", "account")]
        constraints = [
            models.UniqueConstraint(fields=["project", "code"], name="costcode_code_unique"),
            models.CheckConstraint(condition=Q(scheduled_value__gte=0), name="costcode_sv_gte_0"),
            models.CheckConstraint(
                condition=Q(cost_type__in=[c.value for c in CostType]), name="costcode_type_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.code} {self.name}"

    @property
    def currency(self) -> str:
        return self.project.currency


class BudgetLine(Audited, BudgetFigures, TimestampedModel):
    """The cost budget of one cost code (one per project and cost code).

    Stored: `original_amount`, `approved_changes` (from owner change orders' budget amounts),
    `committed` (revised amounts of executed and closed commitments on the code), `actual`
    (approved invoice lines posted to the code) and `cost_to_complete_estimate` (the PATCHed
    estimate, null while never set). The counters move only by F() updates in the services
    that change their sources, in the same transaction, so they are exact at every read.
    `revised_amount`, `cost_to_complete`, `projected_cost` and `variance` are computed
    (`jobcost.figures.BudgetFigures`; the SQL twin is `selectors.rollups`).
    """

    OBJECT = "budget_line"
    # The PATCHable `cost_to_complete` is stored as the estimate (null while computed).
    AUDIT_NAMES = {"cost_to_complete_estimate": "cost_to_complete"}
    COLLECTION = "budgets"
    PREFIX = "bl"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="budget_lines")
    cost_code = models.OneToOneField(CostCode, on_delete=models.PROTECT, related_name="budget_line")
    original_amount = models.BigIntegerField(default=0)
    approved_changes = models.BigIntegerField(default=0, editable=False)
    committed = models.BigIntegerField(default=0, editable=False)
    actual = models.BigIntegerField(default=0, editable=False)
    cost_to_complete_estimate = models.BigIntegerField(null=True, blank=True)

    class Meta:
        indexes = [list_index("budgetline_list", "account")]
        constraints = [
            models.CheckConstraint(
                condition=Q(original_amount__gte=0), name="budget_original_gte_0"
            ),
            models.CheckConstraint(
                condition=Q(cost_to_complete_estimate__isnull=True)
                | Q(cost_to_complete_estimate__gte=0),
                name="budget_ctc_gte_0",
            ),
            models.CheckConstraint(condition=Q(actual__gte=0), name="budget_actual_gte_0"),
            models.CheckConstraint(condition=Q(committed__gte=0), name="budget_committed_gte_0"),
        ]

    def __str__(self) -> str:
        cost_code = loaded(self, "cost_code")
        return f"Budget of {cost_code}" if cost_code else "Budget line"

    @property
    def currency(self) -> str:
        return self.project.currency
