"""The money cap on computed totals (docs/operations/limits.md).

Every money input is at most `MONEY_MAX` in magnitude, but sums of accepted inputs can grow
past it (a contract at the cap plus an approved change order, budgets added line by line, a
commitment changed again and again). The services that move a total call these checks at the
end of their transaction, after the write and under the locks they hold; a total past the cap
raises 422 `amount_out_of_range` and the whole write rolls back. So every figure a read
computes stays within ±MONEY_MAX per total (and far inside the signed 64-bit range).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from django.db.models import F, Max, Sum
from django.db.models.functions import Abs

from jobcost.error_codes import ProjectErrorCode
from jobcost.errors import ValidationFailed
from jobcost.models import BudgetLine, Commitment, PayApp, Project
from jobcost.money import MONEY_MAX, format_dollars
from jobcost.selectors import prepared
from jobcost.selectors.g702 import G702
from jobcost.selectors.rollups import projected_cost_expr, revised_expr


def out_of_range(what: str, cents: int, *, param: str | None = None, object_id=None):
    """The 422 `amount_out_of_range` error for a total `what` that would reach `cents`."""
    return ValidationFailed(
        f"This change would take {what} to {format_dollars(cents)}, past the maximum of "
        f"{format_dollars(MONEY_MAX)} (docs/operations/limits.md).",
        code=ProjectErrorCode.AMOUNT_OUT_OF_RANGE,
        param=param,
        object_id=object_id,
    )


def check_total(what: str, cents: int | None, *, param: str | None = None, object_id=None):
    """Raise `out_of_range` when `abs(cents)` passes MONEY_MAX."""
    if cents is not None and abs(cents) > MONEY_MAX:
        raise out_of_range(what, int(cents), param=param, object_id=object_id)


def ensure_project_totals(
    project_id: str, *, param: str | None = None, locked: Project | None = None
) -> None:
    """422 `amount_out_of_range` when the project's revised contract, or across its budget
    lines the sum of revised budgets, committed, actual or projected cost — or any one line's
    revised budget or projected cost — is past MONEY_MAX. Two queries, or one when the caller
    passes the project row it holds locked and has not changed since (`locked`). Callers hold
    the project's row lock, so concurrent writes to the project cannot pass the check
    together."""
    if locked is not None:
        project: dict[str, Any] = {
            "number": locked.number,
            "contract_amount": locked.contract_amount,
            "approved_changes": locked.approved_changes,
        }
    else:
        project = dict(
            Project.objects.values("number", "contract_amount", "approved_changes").get(
                pk=project_id
            )
        )
    revised = project["contract_amount"] + project["approved_changes"]
    name = f"project {project['number']}"
    check_total(f"the revised contract of {name}", revised, param=param, object_id=project_id)
    sums = _line_totals(project_id)
    labels = {
        "total_revised": f"the revised budget of {name}",
        "total_committed": f"the committed cost of {name}",
        "total_actual": f"the cost to date of {name}",
        "total_projected": f"the projected cost of {name}",
        "total_line_revised": f"a revised budget line of {name}",
        "total_line_projected": f"the projected cost of a budget line of {name}",
    }
    for key, what in labels.items():
        check_total(what, sums[key], param=param, object_id=project_id)


def _line_aggregates() -> dict:
    return {
        "total_revised": Sum(revised_expr()),
        "total_committed": Sum(F("committed")),
        "total_actual": Sum(F("actual")),
        "total_projected": Sum(projected_cost_expr()),
        "total_line_revised": Max(Abs(revised_expr())),
        "total_line_projected": Max(projected_cost_expr()),
    }


def _project_lines(project_id: str):
    return BudgetLine.objects.filter(project_id=project_id)


def _line_totals(project_id: str) -> dict[str, int | None]:
    """{aggregate name: cents, None when the project has no budget line} over the project's
    budget lines (`_line_aggregates`), in one query whose SQL is compiled once per process
    (`jobcost.selectors.prepared.rows`): every write that moves a budget runs it."""
    if not isinstance(project_id, str):
        # The SQL is compiled from the first call's shape: a None would keep `IS NULL`.
        raise TypeError(f"project_id must be a project's ID, not {project_id!r}")
    names = list(_line_aggregates())

    def build(project_id):
        grouped = _project_lines(project_id).values("project_id").order_by()
        return grouped.annotate(**_line_aggregates()).values_list(*names)

    found = prepared.rows((_line_totals,), build, project_id=project_id)
    if found is None:
        return _project_lines(project_id).aggregate(**_line_aggregates())
    if not found:
        return dict.fromkeys(names)
    # PostgreSQL's sum of bigints is a numeric (a Decimal here); the ORM would make it an int.
    return {name: None if v is None else int(v) for name, v in zip(names, found[0], strict=True)}


def ensure_commitment_totals(commitment_ids: Iterable[str], *, param: str | None = None):
    """422 `amount_out_of_range` when a commitment's revised amount (original + approved
    changes) or billed to date is past MONEY_MAX. One query."""
    rows = Commitment.objects.filter(pk__in=list(commitment_ids)).values(
        "pk", "number", "original_amount", "approved_changes", "billed_to_date"
    )
    for row in rows:
        what = f"commitment {row['number']}"
        revised = row["original_amount"] + row["approved_changes"]
        check_total(f"the revised amount of {what}", revised, param=param, object_id=row["pk"])
        check_total(
            f"the billed to date of {what}", row["billed_to_date"], param=param, object_id=row["pk"]
        )


def ensure_g702_totals(pay_app: PayApp, figures: G702, *, param: str | None = None) -> None:
    """422 `amount_out_of_range` when any G702 line of the pay app is past MONEY_MAX."""
    for field in dataclasses.fields(figures):
        check_total(
            f"line `{field.name}` of pay app #{pay_app.number}",
            getattr(figures, field.name),
            param=param,
            object_id=pay_app.pk,
        )


def ensure_sum(what: str, values: Iterable[int], *, param: str | None = None) -> None:
    """422 `amount_out_of_range` when the sum of `values` (cents) is past MONEY_MAX."""
    check_total(what, sum(values), param=param)
