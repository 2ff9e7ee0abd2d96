"""Budget lines and prime contracts as they stood at the end of a day (docs/reports.md).

The budget-line formulas are the ones every read uses (`selectors.rollups`,
docs/reports.md "Computations"); only their inputs are taken as of the day:

- `original_amount` and the `cost_to_complete` estimate: the values then (audit trail);
- `approved_changes`: Σ `budget_amount` of owner change-order lines approved by then;
- `committed`: Σ revised amount then (original + commitment change orders approved by then) of
  the commitments executed by then and not voided by then, on the line's cost code;
- `actual`: Σ lines of approved or paid invoices dated on or before the day and approved by
  its end.

With `as_of` today these equal the stored counters (an invoice dated after today is the only
difference: it is cost of the day it is dated).
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import F, Sum

from jobcost.figures import BudgetFigures
from jobcost.models import (
    INVOICE_POSTED,
    BudgetLine,
    ChangeOrder,
    ChangeOrderKind,
    ChangeOrderLine,
    ChangeOrderStatus,
    Commitment,
    InvoiceLine,
    Project,
)
from jobcost.selectors.reports.as_of import end_of, existing, values_then

POSTED_STATUSES = INVOICE_POSTED


@dataclass
class LineThen(BudgetFigures):
    """One budget line's figures at the end of the day (cents); `revised_amount`,
    `cost_to_complete`, `projected_cost` and `variance` are the formulas of every read
    (`BudgetFigures`)."""

    id: str
    project_id: str
    cost_code_id: str
    code: str
    name: str
    original_amount: int
    approved_changes: int
    committed: int
    actual: int
    cost_to_complete_estimate: int | None


def posted_invoice_lines(project_ids: Iterable[str], as_of: datetime.date):
    """The invoice lines posted to cost by the end of `as_of`: lines of approved or paid
    invoices dated on or before it and approved by its end."""
    return InvoiceLine.objects.filter(
        invoice__project_id__in=list(project_ids),
        invoice__status__in=POSTED_STATUSES,
        invoice__invoice_date__lte=as_of,
        invoice__approved_at__lt=end_of(as_of),
    )


def _approved_changes(project_ids: list[str], moment) -> dict[str, int]:
    rows = (
        ChangeOrderLine.objects.filter(
            change_order__project_id__in=project_ids,
            change_order__kind=ChangeOrderKind.OWNER,
            change_order__status=ChangeOrderStatus.APPROVED,
            change_order__approved_at__lt=moment,
        )
        .values("cost_code_id")
        .annotate(total=Sum("budget_amount"))
        .order_by()
    )
    return {row["cost_code_id"]: row["total"] for row in rows}


def _committed(project_ids: list[str], moment) -> dict[str, int]:
    """Σ per cost code of each commitment's revised amount at `moment`; two queries."""
    live = Commitment.objects.filter(
        project_id__in=project_ids, executed_at__lt=moment, cost_code__isnull=False
    ).exclude(voided_at__lt=moment)
    committed: dict[str, int] = defaultdict(int)
    for row in live.values("cost_code_id").annotate(total=Sum("original_amount")).order_by():
        committed[row["cost_code_id"]] += row["total"]
    changes = (
        ChangeOrder.objects.filter(
            commitment__in=live,
            status=ChangeOrderStatus.APPROVED,
            approved_at__lt=moment,
        )
        .values("commitment__cost_code_id")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    for row in changes:
        committed[row["commitment__cost_code_id"]] += row["total"]
    return committed


def _actual(project_ids: list[str], as_of: datetime.date) -> dict[str, int]:
    rows = (
        posted_invoice_lines(project_ids, as_of)
        .values("cost_code_id")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    return {row["cost_code_id"]: row["total"] for row in rows}


def budget_lines_then(project_ids: Iterable[str], as_of: datetime.date) -> list[LineThen]:
    """The budget lines of `project_ids` that existed at the end of `as_of`, with their
    figures then, in (project, code) order. Six queries for any number of lines."""
    project_ids = list(project_ids)
    moment = end_of(as_of)
    lines = list(
        existing(BudgetLine.objects.filter(project_id__in=project_ids), moment)
        .order_by("project_id", "cost_code__code")
        .values(
            "id",
            "project_id",
            "cost_code_id",
            "original_amount",
            "cost_to_complete_estimate",
            code=F("cost_code__code"),
            name=F("cost_code__name"),
        )
    )
    then = values_then(
        "budget_line",
        (line["id"] for line in lines),
        ("original_amount", "cost_to_complete"),
        moment,
    )
    approved = _approved_changes(project_ids, moment)
    committed = _committed(project_ids, moment)
    actual = _actual(project_ids, as_of)
    result = []
    for line in lines:
        past = then.get(line["id"], {})
        code_id = line["cost_code_id"]
        result.append(
            LineThen(
                id=line["id"],
                project_id=line["project_id"],
                cost_code_id=code_id,
                code=line["code"],
                name=line["name"],
                original_amount=int(past.get("original_amount", line["original_amount"]) or 0),
                approved_changes=int(approved.get(code_id, 0)),
                committed=int(committed.get(code_id, 0)),
                actual=int(actual.get(code_id, 0)),
                cost_to_complete_estimate=past.get(
                    "cost_to_complete", line["cost_to_complete_estimate"]
                ),
            )
        )
    return result


@dataclass(frozen=True)
class ContractThen:
    """A project's prime contract at the end of the day: `status` then, and the revised
    contract (original then + owner change orders approved by then, cents)."""

    status: str
    contract_amount: int
    approved_changes: int

    @property
    def revised_contract(self) -> int:
        return self.contract_amount + self.approved_changes


def contracts_then(projects: list[Project], as_of: datetime.date) -> dict[str, ContractThen]:
    """{project ID: ContractThen} for `projects` (loaded rows). Two queries."""
    moment = end_of(as_of)
    ids = [project.pk for project in projects]
    then = values_then("project", ids, ("status", "contract_amount"), moment)
    changes = dict(
        ChangeOrder.objects.filter(
            project_id__in=ids,
            kind=ChangeOrderKind.OWNER,
            status=ChangeOrderStatus.APPROVED,
            approved_at__lt=moment,
        )
        .values("project_id")
        .annotate(total=Sum("amount"))
        .order_by()
        .values_list("project_id", "total")
    )
    result = {}
    for project in projects:
        past = then.get(project.pk, {})
        result[project.pk] = ContractThen(
            status=past.get("status", project.status),
            contract_amount=int(past.get("contract_amount", project.contract_amount) or 0),
            approved_changes=int(changes.get(project.pk, 0)),
        )
    return result
