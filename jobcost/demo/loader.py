"""Load the demo job once, through the services, as the system actor.

The order is an accountant's: the account, its owner and vendors; the project in `bid`; the
cost codes with their scheduled values and original budgets (which lock when the project
leaves `bid`); the project moved to `active`; then the buyout, each subcontract or purchase
order created as a draft and most of them executed (which adds them to the budgets'
`committed`). Then the job in progress (`progress_loader`): three billing periods of change
orders, invoices, lien waivers and pay apps; and its field records (`field_records_loader`):
the RFIs (asked before the periods, so each change order names its RFI), the daily logs of
November's first three weeks and the agent's pending proposals.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.db.models import Count, Max, Min, Q, Sum

from audit.context import SYSTEM, acting_as
from jobcost.demo import school_addition as data
from jobcost.demo.field_records_loader import (
    demo_field_records_load,
    demo_rfis_load,
    field_records_are_blank,
)
from jobcost.demo.progress_loader import demo_progress_load, progress_is_blank
from jobcost.models import (
    Account,
    AgentAction,
    AgentActionStatus,
    BudgetLine,
    ChangeOrderStatus,
    CommitmentStatus,
    CostCode,
    DailyLog,
    DailyLogManpower,
    Invoice,
    InvoiceStatus,
    LienWaiver,
    LienWaiverStatus,
    Owner,
    PayApp,
    Project,
    ProjectStatus,
    Rfi,
    RfiStatus,
    Vendor,
)
from jobcost.selectors.projects import project_rollup
from jobcost.selectors.rollups import ProjectRollup
from jobcost.selectors.visible import with_rollups
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


@dataclass(frozen=True)
class DemoLoad:
    """What `demo_job_load` did: `setup` the account, parties, project, cost codes and
    buyout; `progress` the three billing periods; `field` the RFIs, daily logs and agent
    proposals."""

    project: Project
    setup: bool
    progress: bool
    field: bool = False


@transaction.atomic
def demo_job_load() -> DemoLoad:
    """Load the demo job unless it is there. Idempotent: when the account "Demo Builders"
    already has project 2026-014 its setup is not touched; the billing periods are only
    played onto it while it has no pay app, change order, invoice or lien waiver, and the
    field records only while it has no RFI, daily log or agent action (so a database seeded
    before either existed is brought up to date, and a second run writes nothing). Owners and
    vendors of the same name in that account, and the demo's agent key, are reused rather
    than duplicated. One transaction: a failure leaves nothing behind."""
    project = demo_project_find()
    setup = project is None
    with acting_as(SYSTEM):
        if setup:
            project = demo_setup_load()
        progress = progress_is_blank(project)
        field = field_records_are_blank(project)
        if field:
            demo_rfis_load(project)
        if progress:
            demo_progress_load(project)
        if field:
            demo_field_records_load(project)
    return DemoLoad(project=project, setup=setup, progress=progress, field=field)


def demo_setup_load() -> Project:
    """The account, owner, vendors, project, cost codes and buyout (`school_addition`), in
    the caller's transaction and as the caller's actor; returns the active project."""
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
    return project


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
    change_orders: dict[str, int]
    invoices: dict[str, int]
    pay_apps: list[tuple[int, str]]
    waivers_open: int
    rollup: ProjectRollup
    rfis: dict[str, int]
    daily_logs: int
    first_log: datetime.date | None
    last_log: datetime.date | None
    worker_hours: Decimal
    proposals: int
    proposed_by: list[str]


def _by_status(queryset, statuses) -> dict[str, int]:
    """Count per status, in the lifecycle order of `statuses` (a TextChoices)."""
    rows = dict(queryset.order_by().values_list("status").annotate(n=Count("id")))
    return {status.value: rows[status] for status in statuses if status in rows}


def demo_job_summary(project: Project) -> DemoSummary:
    """Count and total what the demo job holds (a constant number of queries)."""
    codes = CostCode.objects.filter(project=project).aggregate(
        n=Count("id"), sv=Sum("scheduled_value")
    )
    budget = BudgetLine.objects.filter(project=project).aggregate(
        original=Sum("original_amount"), committed=Sum("committed")
    )
    logs = DailyLog.objects.filter(project=project).aggregate(
        n=Count("id"), first=Min("date"), last=Max("date")
    )
    proposed = list(
        AgentAction.objects.filter(project=project, status=AgentActionStatus.PROPOSED).values_list(
            "proposed_by", flat=True
        )
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
        change_orders=_by_status(project.change_orders.all(), ChangeOrderStatus),
        invoices=_by_status(Invoice.objects.filter(project=project), InvoiceStatus),
        pay_apps=list(
            PayApp.objects.filter(project=project)
            .order_by("number")
            .values_list("number", "status")
        ),
        waivers_open=LienWaiver.objects.filter(project=project)
        .exclude(status=LienWaiverStatus.RECEIVED)
        .count(),
        rollup=project_rollup(with_rollups(Project.objects.filter(pk=project.pk)).get()),
        rfis=_by_status(Rfi.objects.filter(project=project), RfiStatus),
        daily_logs=logs["n"],
        first_log=logs["first"],
        last_log=logs["last"],
        worker_hours=DailyLogManpower.objects.filter(daily_log__project=project).aggregate(
            hours=Sum("hours")
        )["hours"]
        or Decimal(0),
        proposals=len(proposed),
        proposed_by=sorted({f"{a['id'] or a['type']} ({a['role']})" for a in proposed}),
    )
