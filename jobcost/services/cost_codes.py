"""Cost codes and budget lines (SPEC §8 cost_code, budget_line)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from audit.signals import record_created, record_updated_many
from jobcost.api.errors import Conflict
from jobcost.models import BudgetLine, CostCode, Project, ProjectStatus
from jobcost.services.common import (
    apply_changes,
    bulk_set,
    check_writable,
    ensure_free,
    lock,
    lock_open_project,
    save_audited,
)
from jobcost.services.totals import ensure_project_totals


def _ensure_code_free(project_id: str, code: str, exclude_pk: str | None = None) -> None:
    ensure_free(
        CostCode.objects.filter(project_id=project_id, code=code),
        param="code",
        message=f"Cost code '{code}' already exists on this project.",
        exclude_pk=exclude_pk,
    )


@transaction.atomic
def cost_code_create(
    *,
    project: Project,
    code: str,
    name: str,
    cost_type: str,
    scheduled_value: int = 0,
    budget_amount: int = 0,
) -> CostCode:
    """Create a cost code and its budget line (`original_amount` = `budget_amount`, cents).
    Raises 409 `project_closed`, 409 `resource_already_exists` (param `code`) and 422
    `amount_out_of_range` (param `budget_amount`) when the project's budgets would sum past
    the money cap (README "Limits")."""
    project = lock_open_project(project.pk)
    _ensure_code_free(project.pk, code)
    cost_code = save_audited(
        CostCode(
            account_id=project.account_id,
            project=project,
            code=code,
            name=name,
            cost_type=cost_type,
            scheduled_value=scheduled_value,
        ),
        defer_created=True,
    )
    save_audited(
        BudgetLine(
            account_id=project.account_id,
            project=project,
            cost_code=cost_code,
            original_amount=budget_amount,
        )
    )
    ensure_project_totals(project.pk, param="budget_amount")
    record_created(cost_code)
    return cost_code


@transaction.atomic
def cost_code_update(*, cost_code_id: str, changes: dict) -> CostCode:
    """Change `code`, `name`, `cost_type` or `scheduled_value` (cents)."""
    cost_code = lock(CostCode, cost_code_id)
    lock_open_project(cost_code.project_id)
    if "code" in changes:
        _ensure_code_free(cost_code.project_id, changes["code"], exclude_pk=cost_code.pk)
    if apply_changes(
        cost_code, changes, frozenset({"code", "name", "cost_type", "scheduled_value"})
    ):
        save_audited(cost_code)
    return cost_code


@transaction.atomic
def budget_line_update(*, budget_line_id: str, changes: dict) -> BudgetLine:
    """PATCH a budget line: `cost_to_complete` (cents ≥ 0 sets the estimate; null returns to
    the computed value) any time, `original_amount` only while the project is `bid` (else 409
    `budget_locked`). 422 `amount_out_of_range` when a project total would pass the money cap
    (README "Limits")."""
    # Lock order: the project, then its budget lines (as every approval takes them).
    project = lock_open_project(
        BudgetLine.objects.values_list("project_id", flat=True).get(pk=budget_line_id)
    )
    line = lock(BudgetLine, budget_line_id)
    check_writable(changes, frozenset({"cost_to_complete", "original_amount"}))
    fields = {}
    if "cost_to_complete" in changes:
        fields["cost_to_complete_estimate"] = changes["cost_to_complete"]
    if "original_amount" in changes:
        if (
            changes["original_amount"] != line.original_amount
            and project.status != ProjectStatus.BID
        ):
            raise Conflict(
                "The original budget can only change while the project is in bid; "
                "use a change order.",
                code="budget_locked",
                param="original_amount",
                object_id=line.pk,
            )
        fields["original_amount"] = changes["original_amount"]
    if apply_changes(line, fields, frozenset({"cost_to_complete_estimate", "original_amount"})):
        save_audited(line)
        ensure_project_totals(project.pk, param=next(iter(changes)))
    return line


def budget_line_adjust(
    *, cost_code_id: str, note: str, committed: int = 0, actual: int = 0, approved_changes: int = 0
) -> BudgetLine:
    """Move a budget line's stored counters by the given deltas (cents) under its row lock,
    stamping `updated_at` and appending an audit entry with before/after and `note`. Called
    inside the transaction of the change that causes it (execute, approval, …)."""
    line = BudgetLine.objects.select_for_update().get(cost_code_id=cost_code_id)
    line.committed += committed
    line.actual += actual
    line.approved_changes += approved_changes
    return save_audited(line, note=note)


COUNTERS = ("committed", "actual", "approved_changes")


def budget_lines_adjust(*, deltas: dict[str, dict[str, int]], note: str) -> list[BudgetLine]:
    """`budget_line_adjust` for many budget lines at once, in a constant number of queries:
    `deltas` maps a cost code ID to {counter: cents} (`committed`, `actual`,
    `approved_changes`). Locks every affected line in one `SELECT … FOR UPDATE` ordered by
    cost code ID (the order the one-line calls always took, so approvals touching overlapping
    lines cannot deadlock), moves them in one bulk UPDATE stamping `updated_at`, and appends
    one audit entry per line with before/after and `note` (plus its `budget.updated` event)
    in one INSERT. Returns the lines in lock order. Called inside the causing transaction."""
    if not deltas:
        return []
    lines = list(
        BudgetLine.objects.select_for_update()
        .filter(cost_code_id__in=list(deltas))
        .order_by("cost_code_id")
    )
    now = timezone.now()
    for line in lines:
        for counter, cents in deltas[line.cost_code_id].items():
            setattr(line, counter, getattr(line, counter) + cents)
        line.updated_at = now
    bulk_set(BudgetLine, lines, [*COUNTERS, "updated_at"])
    record_updated_many(lines, note=note)
    return lines
