"""The job cost report of one project and the postings behind each cost code
(docs/reports.md, "Job cost").

Per cost code, at the end of `as_of` (`budget_then`), in cents: `original_budget`,
`approved_changes`, `revised_budget` = original + approved changes, `committed`,
`cost_to_date`, `cost_to_complete` (the estimate in force then, or max(revised, committed) −
cost to date floored at 0), `projected_cost` = cost to date + cost to complete and
`variance` = revised budget − projected cost: the budget line's figures of every read.
"""

from __future__ import annotations

import datetime

from jobcost.models import Project
from jobcost.scope import Scope
from jobcost.selectors.reports.as_of import end_of, existing
from jobcost.selectors.reports.budget_then import budget_lines_then, posted_invoice_lines
from jobcost.selectors.reports.table import (
    DATE,
    ID,
    INTEGER,
    TEXT,
    Column,
    Report,
    ReportSpec,
    money,
    project_columns,
)

COST_CODE_COLUMNS = (
    Column("cost_code", ID, "Cost code ID", "The cost code's ID (`cc_…`)."),
    Column("code", TEXT, "Code"),
    Column("name", TEXT, "Cost code"),
)

JOB_COST = ReportSpec(
    name="job-cost",
    title="Job cost report",
    columns=(
        *project_columns(),
        *COST_CODE_COLUMNS,
        Column("currency", TEXT, "Currency"),
        money("original_budget", "Original budget"),
        money("approved_changes", "Approved changes"),
        money("revised_budget", "Revised budget"),
        money("committed", "Committed"),
        money("cost_to_date", "Cost to date"),
        money("cost_to_complete", "Cost to complete"),
        money("projected_cost", "Projected cost"),
        money("variance", "Variance", "Revised budget − projected cost (negative: over)."),
    ),
    summed=(
        "original_budget",
        "approved_changes",
        "revised_budget",
        "committed",
        "cost_to_date",
        "cost_to_complete",
        "projected_cost",
        "variance",
    ),
    key=("code", "cost_code"),
)

TRANSACTIONS = ReportSpec(
    name="job-cost-transactions",
    title="Job cost transactions",
    columns=(
        *project_columns(),
        *COST_CODE_COLUMNS,
        Column("date", DATE, "Date", "The invoice date."),
        Column("vendor", ID, "Vendor ID", "The vendor's ID (`vnd_…`)."),
        Column("vendor_name", TEXT, "Vendor"),
        Column("commitment", ID, "Commitment ID", "The commitment's ID (`cmt_…`)."),
        Column("commitment_number", TEXT, "Commitment"),
        Column("invoice", ID, "Invoice ID", "The invoice's ID (`inv_…`)."),
        Column("invoice_number", TEXT, "Invoice"),
        Column("line", INTEGER, "Line", "The line's position on the invoice (1, 2, …)."),
        Column("currency", TEXT, "Currency"),
        money("amount", "Amount", "The cents the line posted to the cost code."),
    ),
    summed=("amount",),
    key=("date", "invoice", "line"),
)


def visible_project(scope: Scope, project_id: str, as_of: datetime.date) -> Project | None:
    """The project if `scope` sees it and it existed at the end of `as_of`."""
    return (
        existing(scope.filter(Project.objects.all(), "id"), end_of(as_of))
        .filter(pk=project_id)
        .first()
    )


def job_cost_report(scope: Scope, *, project_id: str, as_of: datetime.date) -> Report:
    """Per cost code of the project the figures at the end of `as_of` (no rows for a project
    the scope does not see). Seven queries for any number of cost codes."""
    project = visible_project(scope, project_id, as_of)
    filters = {"project": project_id}
    if project is None:
        return Report(JOB_COST, as_of, [], filters=filters)
    rows = [
        {
            "project": project.pk,
            "project_number": project.number,
            "project_name": project.name,
            "cost_code": line.cost_code_id,
            "code": line.code,
            "name": line.name,
            "currency": project.currency,
            "original_budget": line.original_amount,
            "approved_changes": line.approved_changes,
            "revised_budget": line.revised_amount,
            "committed": line.committed,
            "cost_to_date": line.actual,
            "cost_to_complete": line.cost_to_complete,
            "projected_cost": line.projected_cost,
            "variance": line.variance,
        }
        for line in budget_lines_then([project.pk], as_of)
    ]
    return Report(JOB_COST, as_of, rows, filters=filters)


def transactions_report(
    scope: Scope,
    *,
    project_id: str,
    as_of: datetime.date,
    cost_code: str | None = None,
    vendor: str | None = None,
) -> Report:
    """Every invoice line posted to the project's cost by the end of `as_of` (the lines
    behind `cost_to_date`), one cost code's with `cost_code`, one vendor's with `vendor`,
    in (date, invoice, line) order. Two queries."""
    project = visible_project(scope, project_id, as_of)
    filters = {"project": project_id, "cost_code": cost_code, "vendor": vendor}
    if project is None:
        return Report(TRANSACTIONS, as_of, [], filters=filters)
    lines = posted_invoice_lines([project.pk], as_of)
    if cost_code is not None:
        lines = lines.filter(cost_code_id=cost_code)
    if vendor is not None:
        lines = lines.filter(invoice__vendor_id=vendor)
    rows = [
        {
            "project": project.pk,
            "project_number": project.number,
            "project_name": project.name,
            "cost_code": row["cost_code_id"],
            "code": row["cost_code__code"],
            "name": row["cost_code__name"],
            "date": row["invoice__invoice_date"],
            "vendor": row["invoice__vendor_id"],
            "vendor_name": row["invoice__vendor__name"],
            "commitment": row["invoice__commitment_id"],
            "commitment_number": row["invoice__commitment__number"],
            "invoice": row["invoice_id"],
            "invoice_number": row["invoice__number"],
            "line": row["position"],
            "currency": project.currency,
            "amount": row["amount"],
        }
        for row in lines.values(
            "amount",
            "position",
            "cost_code_id",
            "cost_code__code",
            "cost_code__name",
            "invoice_id",
            "invoice__invoice_date",
            "invoice__vendor_id",
            "invoice__vendor__name",
            "invoice__commitment_id",
            "invoice__commitment__number",
            "invoice__number",
        )
    ]
    return Report(TRANSACTIONS, as_of, rows, filters=filters)
