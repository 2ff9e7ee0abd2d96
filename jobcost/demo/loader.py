"""Load the demo job once, through the services, as the system actor.

The order is an accountant's: the account, its owner and vendors; the project in `bid`; the
cost codes with their scheduled values and original budgets (which lock when the project
leaves `bid`); the project moved to `active`; then the buyout, each subcontract or purchase
order created as a draft and most of them executed (which adds them to the budgets'
`committed`).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q, Sum

from audit.context import SYSTEM, acting_as
from jobcost.demo import school_addition as data
from jobcost.models import (
    Account,
    BudgetLine,
    CommitmentStatus,
    CostCode,
    Owner,
    Project,
    ProjectStatus,
    Vendor,
)
from jobcost.services.api_keys import account_get_or_create
from jobcost.services.commitments import commitment_create, commitment_execute
from jobcost.services.cost_codes import cost_code_create
from jobcost.services.parties import owner_create, vendor_create
from jobcost.services.projects import project_create, project_update


def demo_project_find() -> Project | None:
    """The demo project, found by the demo account's name and the project number."""
    return (
        Project.objects.select_related("account", "owner")
        .filter(account__name=data.ACCOUNT_NAME, number=data.PROJECT["number"])
        .first()
    )


def _owner(account: Account) -> Owner:
    found = Owner.objects.filter(account=account, name=data.OWNER["name"]).first()
    return found or owner_create(account_id=account.pk, **data.OWNER)


def _vendor(account: Account, row: data.VendorRow) -> Vendor:
    found = Vendor.objects.filter(account=account, name=row.name).first()
    return found or vendor_create(
        account_id=account.pk,
        name=row.name,
        email=row.email,
        tax_id_last4=row.tax_id_last4,
        trade=row.trade,
    )


@transaction.atomic
def demo_job_load() -> tuple[Project, bool]:
    """Load the demo job unless it is there: returns (project, created). Idempotent: when the
    account "Demo Builders" already has project 2026-014 nothing is written. Owners and
    vendors of the same name in that account are reused rather than duplicated. One
    transaction: a failure leaves nothing behind."""
    existing = demo_project_find()
    if existing is not None:
        return existing, False
    with acting_as(SYSTEM):
        account = account_get_or_create(name=data.ACCOUNT_NAME)
        owner = _owner(account)
        vendors = {row.key: _vendor(account, row) for row in data.VENDORS}
        project = project_create(
            account_id=account.pk, owner=owner, status=ProjectStatus.BID, **data.PROJECT
        )
        cost_codes = [
            (
                row,
                cost_code_create(
                    project=project,
                    code=row.code,
                    name=row.name,
                    cost_type=row.cost_type,
                    scheduled_value=row.scheduled_value,
                    budget_amount=row.budget,
                ),
            )
            for row in data.COST_CODES
        ]
        project = project_update(project_id=project.pk, changes={"status": ProjectStatus.ACTIVE})
        for row, cost_code in cost_codes:
            if row.commitment is None:
                continue
            commitment = commitment_create(
                project=project,
                vendor=vendors[row.commitment.vendor],
                type=row.commitment.type,
                original_amount=row.commitment.amount,
                cost_code=cost_code,
                description=row.commitment.description,
            )
            if row.commitment.executed:
                commitment_execute(commitment_id=commitment.pk)
    return project, True


@dataclass(frozen=True)
class DemoSummary:
    """Figures of the loaded demo job (money in cents), for the command's closing lines."""

    vendors: int
    cost_codes: int
    scheduled_values: int
    budget: int
    committed: int
    executed: int
    drafts: int


def demo_job_summary(project: Project) -> DemoSummary:
    """Count and total what the demo job holds (three queries)."""
    codes = CostCode.objects.filter(project=project).aggregate(
        n=Count("id"), sv=Sum("scheduled_value")
    )
    budget = BudgetLine.objects.filter(project=project).aggregate(
        original=Sum("original_amount"), committed=Sum("committed")
    )
    commitments = project.commitments.aggregate(
        executed=Count("id", filter=Q(status=CommitmentStatus.EXECUTED)),
        drafts=Count("id", filter=Q(status=CommitmentStatus.DRAFT)),
    )
    return DemoSummary(
        vendors=Vendor.objects.filter(account_id=project.account_id).count(),
        cost_codes=codes["n"],
        scheduled_values=codes["sv"] or 0,
        budget=budget["original"] or 0,
        committed=budget["committed"] or 0,
        executed=commitments["executed"],
        drafts=commitments["drafts"],
    )
