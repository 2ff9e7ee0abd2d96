"""The work-in-progress schedule (docs/reports.md, "WIP schedule").

One row per project of the account that was `active` or in `closeout` at the end of `as_of`,
with the figures of that day (`budget_then`, `as_of`). Per row, in cents:

- `revised_contract` = original contract then + owner change orders approved by then;
- `estimated_total_cost` = Σ budget lines' projected cost then; `cost_to_date` = Σ actual then;
- `percent_complete` = cost_to_date / estimated_total_cost × 100 (two places, capped at 100);
- `earned_revenue` = revised_contract × cost_to_date / estimated_total_cost, exact, rounded
  once (the same `ProjectRollup` as every project read);
- `billed_to_date` = G702 line 4 of the pay app billing the day (`billing_pay_apps`);
- `over_billing` = max(billed − earned, 0) (billings in excess of costs and estimated
  earnings); `under_billing` = max(earned − billed, 0) (costs and estimated earnings in
  excess of billings);
- `gross_profit_to_date` = earned_revenue − cost_to_date;
  `projected_gross_profit` = revised_contract − estimated_total_cost;
- `loss_provision`: when projected_gross_profit < 0, the part of that loss not yet in
  gross_profit_to_date (gross_profit_to_date − projected_gross_profit), so that
  gross_profit_to_date − loss_provision is the whole projected loss, recognized at once; else 0.
"""

from __future__ import annotations

import datetime

from jobcost.models import PROJECT_IN_PROGRESS, Project
from jobcost.scope import Scope
from jobcost.selectors.reports.as_of import billing_pay_apps, end_of, existing
from jobcost.selectors.reports.budget_then import budget_lines_then, contracts_then
from jobcost.selectors.reports.table import (
    PERCENT,
    TEXT,
    Column,
    Report,
    ReportSpec,
    money,
    project_columns,
)
from jobcost.selectors.rollups import ProjectRollup

IN_PROGRESS = PROJECT_IN_PROGRESS

WIP = ReportSpec(
    name="wip",
    title="Work-in-progress schedule",
    columns=(
        *project_columns(),
        Column("status", TEXT, "Status", "The project's status at the end of `as_of`."),
        Column("currency", TEXT, "Currency"),
        money("revised_contract", "Revised contract", "Original contract + approved changes."),
        money("estimated_total_cost", "Estimated total cost", "Σ budget projected cost."),
        money("cost_to_date", "Cost to date"),
        money("cost_to_complete", "Cost to complete", "estimated_total_cost − cost_to_date."),
        Column("percent_complete", PERCENT, "% complete", "Cost to date ÷ estimated cost."),
        money("earned_revenue", "Earned revenue"),
        money("billed_to_date", "Billed to date"),
        money("over_billing", "Over billing", "Billings in excess of costs and earnings."),
        money("under_billing", "Under billing", "Costs and earnings in excess of billings."),
        money("gross_profit_to_date", "Gross profit to date"),
        money("projected_gross_profit", "Projected gross profit"),
        money("loss_provision", "Loss provision", "The projected loss not yet recognized."),
    ),
    summed=(
        "revised_contract",
        "estimated_total_cost",
        "cost_to_date",
        "cost_to_complete",
        "earned_revenue",
        "billed_to_date",
        "over_billing",
        "under_billing",
        "gross_profit_to_date",
        "projected_gross_profit",
        "loss_provision",
    ),
    key=("project_number", "project"),
)


def wip_row(project: Project, contract, lines: list, billed: int) -> dict:
    """One WIP row from a project's contract and budget lines then and its billing (cents)."""
    cost_to_date = sum(line.actual for line in lines)
    estimated = sum(line.projected_cost for line in lines)
    rollup = ProjectRollup(
        revised_contract=contract.revised_contract,
        cost_to_date=cost_to_date,
        projected_cost=estimated,
        billed_to_date=billed,
    )
    earned = rollup.earned_revenue
    gross_profit = earned - cost_to_date
    projected_profit = contract.revised_contract - estimated
    return {
        "project": project.pk,
        "project_number": project.number,
        "project_name": project.name,
        "status": contract.status,
        "currency": project.currency,
        "revised_contract": contract.revised_contract,
        "estimated_total_cost": estimated,
        "cost_to_date": cost_to_date,
        "cost_to_complete": estimated - cost_to_date,
        "percent_complete": rollup.percent_complete,
        "earned_revenue": earned,
        "billed_to_date": billed,
        "over_billing": max(billed - earned, 0),
        "under_billing": max(earned - billed, 0),
        "gross_profit_to_date": gross_profit,
        "projected_gross_profit": projected_profit,
        "loss_provision": max(gross_profit - projected_profit, 0) if projected_profit < 0 else 0,
    }


def wip_report(scope: Scope, *, as_of: datetime.date, project: str | None = None) -> Report:
    """The WIP schedule at the end of `as_of` for the projects `scope` sees (one project with
    `project`). Ten queries for any number of projects and lines."""
    started = existing(scope.filter(Project.objects.all(), "id"), end_of(as_of))
    if project is not None:
        started = started.filter(pk=project)
    found = list(started)
    contracts = contracts_then(found, as_of)
    projects = [p for p in found if contracts[p.pk].status in IN_PROGRESS]
    ids = [p.pk for p in projects]
    lines_by_project: dict[str, list] = {pk: [] for pk in ids}
    for line in budget_lines_then(ids, as_of):
        lines_by_project[line.project_id].append(line)
    billing = billing_pay_apps(ids, as_of)
    rows = [
        wip_row(
            p,
            contracts[p.pk],
            lines_by_project[p.pk],
            billing[p.pk]["total_completed"] if p.pk in billing else 0,
        )
        for p in projects
    ]
    return Report(WIP, as_of, rows, filters={"project": project})
