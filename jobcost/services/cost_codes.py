"""Cost codes and budget lines (docs/resources.md, cost_code, budget_line).

`cost_code_create` writes one cost code with its budget line; `cost_codes_create_many` writes
many at once (a budget imported from a spreadsheet, docs/budget-import.md) under the same
rules, each defined once here or below: the project is open (`lock_open_project`), a code is
unique in its project (`_codes_taken`) and within the batch, the fields pass the model's own
checks (`clean_fields`: cost type, lengths, blank), money is whole non-negative cents within
the cap (`jobcost.money.cents_problem`, as the API's `CentsField`), and the project's totals
stay within the money cap (`ensure_project_totals`).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from django.core.exceptions import ValidationError
from django.utils import timezone

from audit.services import flush as audit_flush
from audit.services import record_created, record_created_many, record_updated_many
from jobcost.error_codes import (
    BudgetImportErrorCode,
    ProjectErrorCode,
    RequestErrorCode,
    ResourceErrorCode,
)
from jobcost.errors import Conflict, ValidationFailed
from jobcost.models import BudgetLine, CostCode, Project, ProjectStatus
from jobcost.money import cents_problem
from jobcost.services.common import (
    apply_changes,
    bulk_set,
    check_writable,
    clean_fields,
    lock,
    lock_open_project,
    save_audited,
    service,
)
from jobcost.services.totals import ensure_project_totals

# The fields of one cost code to create, in the order errors are listed for a row.
NEW_COST_CODE_FIELDS = ("code", "name", "cost_type", "scheduled_value", "budget_amount")
# How many rows `cost_codes_create_many` inserts per statement (and reports progress after).
BULK_CHUNK = 1000


def _codes_taken(project_id: str, codes, exclude_pk: str | None = None) -> set[str]:
    """Which of `codes` the project already has (other than `exclude_pk`): the rule that a
    cost code is unique in its project, for one code or a whole batch, in one query."""
    queryset = CostCode.objects.filter(project_id=project_id, code__in=list(codes))
    if exclude_pk is not None:
        queryset = queryset.exclude(pk=exclude_pk)
    return set(queryset.values_list("code", flat=True))


def _code_taken_message(code: str) -> str:
    return f"Cost code '{code}' already exists on this project."


def _ensure_code_free(project_id: str, code: str, exclude_pk: str | None = None) -> None:
    """409 `resource_already_exists` (param `code`) when the project has the code."""
    if _codes_taken(project_id, [code], exclude_pk):
        raise Conflict(
            _code_taken_message(code), code=ResourceErrorCode.RESOURCE_ALREADY_EXISTS, param="code"
        )


def _new_cost_code(project: Project, *, code, name, cost_type, scheduled_value) -> CostCode:
    return CostCode(
        account_id=project.account_id,
        project=project,
        code=code,
        name=name,
        cost_type=cost_type,
        scheduled_value=scheduled_value,
    )


class RowsRefused(ValidationFailed):
    """422 `rows_invalid`: some rows of a batch break a rule; `errors` lists every refusal
    as `{"row", "field", "code", "message"}` (`row` as the caller numbered it)."""

    def __init__(self, errors: list[dict]) -> None:
        first = errors[0]
        super().__init__(
            f"{len(errors)} problem{'s' if len(errors) != 1 else ''} in the rows; the first, "
            f"row {first['row']} ({first['field']}): {first['message']}",
            code=BudgetImportErrorCode.ROWS_INVALID,
            param=first["field"],
        )
        self.errors = errors


def _field_errors(instance: CostCode) -> list[tuple[str, RequestErrorCode, str]]:
    """(field, code, message) of each model rule the new cost code breaks (`clean_fields`)."""
    try:
        clean_fields(instance)
    except ValidationError as exc:
        found = []
        for name, errors in exc.error_dict.items():
            error = errors[0]
            if error.code in ("blank", "null", "required"):
                found.append(
                    (
                        name,
                        RequestErrorCode.PARAMETER_MISSING,
                        f"{name.replace('_', ' ')} is empty.",
                    )
                )
            elif error.code == "invalid_choice":
                value = getattr(instance, name)
                choices = ", ".join(value for value, _ in instance._meta.get_field(name).choices)
                found.append(
                    (
                        name,
                        RequestErrorCode.PARAMETER_INVALID,
                        f"'{value}' is not a cost type; use {choices}.",
                    )
                )
            else:
                found.append((name, RequestErrorCode.PARAMETER_INVALID, " ".join(error.messages)))
        return found
    return []


def cost_codes_check_many(*, project: Project, rows: list[dict]) -> list[dict]:
    """Every rule a batch of new cost codes breaks, without writing: `rows` are dicts of
    `NEW_COST_CODE_FIELDS` (cents) and `row` (the caller's number for it). Returns
    `{"row", "field", "code", "message"}` refusals ordered by row then field: field rules
    (`parameter_missing`, `parameter_invalid`), money (`parameter_invalid`), a code repeated
    in the batch (`duplicate_code`, on every repeat, naming the first row) or already on the
    project (`resource_already_exists`). Two queries at most, whatever the rows.

    Emits: none.
    """
    errors: list[dict] = []
    first_row_of: dict[str, int] = {}
    order = {name: index for index, name in enumerate(NEW_COST_CODE_FIELDS)}

    def refuse(row: int, field: str, code: StrEnum, message: str) -> None:
        errors.append({"row": row, "field": field, "code": str(code), "message": message})

    for row in rows:
        number = row["row"]
        instance = _new_cost_code(
            project,
            code=row["code"],
            name=row["name"],
            cost_type=row["cost_type"],
            scheduled_value=row["scheduled_value"],
        )
        for field, code, message in _field_errors(instance):
            refuse(number, field, code, message)
        for field in ("scheduled_value", "budget_amount"):
            problem = cents_problem(row[field])
            if problem:
                refuse(number, field, RequestErrorCode.PARAMETER_INVALID, f"{field} {problem}.")
        code = row["code"]
        if code in first_row_of:
            refuse(
                number,
                "code",
                BudgetImportErrorCode.DUPLICATE_CODE,
                f"Cost code '{code}' is also on row {first_row_of[code]} of this file.",
            )
        elif code:
            first_row_of[code] = number
    for code in _codes_taken(project.pk, first_row_of):
        refuse(
            first_row_of[code],
            "code",
            ResourceErrorCode.RESOURCE_ALREADY_EXISTS,
            _code_taken_message(code),
        )
    errors.sort(key=lambda e: (e["row"], order.get(e["field"], len(order))))
    return errors


@service
def cost_codes_create_many(
    *,
    project: Project,
    rows: list[dict],
    progress: Callable[[int], None] | None = None,
) -> list[CostCode]:
    """Create many cost codes with their budget lines in one transaction, all or none: the
    same rules and records as `cost_code_create` per row, in a constant number of statements
    per `BULK_CHUNK` rows. `rows` are dicts of `NEW_COST_CODE_FIELDS` (cents) and `row` (the
    caller's number for it, named in refusals).

    Locks the open project (409 `project_closed`), checks every row
    (`cost_codes_check_many`; 422 `rows_invalid` carrying all refusals in `errors`), then per
    chunk inserts the cost codes, their budget lines, and the `created` audit entries of both
    (budget line first, as `cost_code_create` writes them), which record the
    `cost_code.created` events and their deliveries (`record_created_many`). `progress(n)` is
    called with the rows written so far after each chunk. Last, 422 `amount_out_of_range`
    (param `budget_amount`) when the project's budgets would sum past the money cap.

    Emits: audit budget_line.created, cost_code.created; events cost_code.created.
    """
    project = lock_open_project(project.pk)
    errors = cost_codes_check_many(project=project, rows=rows)
    if errors:
        raise RowsRefused(errors)
    created: list[CostCode] = []
    for start in range(0, len(rows), BULK_CHUNK):
        chunk = rows[start : start + BULK_CHUNK]
        codes = [
            _new_cost_code(
                project,
                code=row["code"],
                name=row["name"],
                cost_type=row["cost_type"],
                scheduled_value=row["scheduled_value"],
            )
            for row in chunk
        ]
        CostCode.objects.bulk_create(codes)
        lines = [
            BudgetLine(
                account_id=project.account_id,
                project=project,
                cost_code=cost_code,
                original_amount=row["budget_amount"],
            )
            for cost_code, row in zip(codes, chunk, strict=True)
        ]
        BudgetLine.objects.bulk_create(lines)
        record_created_many([*lines, *codes])
        audit_flush()  # this chunk's entries and events, not all 10,000 rows' at the end
        created += codes
        if progress is not None:
            progress(start + len(chunk))
    ensure_project_totals(project.pk, param="budget_amount")
    return created


@service
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
    the money cap (docs/operations/limits.md).

    Emits: audit budget_line.created, cost_code.created; events cost_code.created.
    """
    project = lock_open_project(project.pk)
    _ensure_code_free(project.pk, code)
    cost_code = save_audited(
        _new_cost_code(
            project, code=code, name=name, cost_type=cost_type, scheduled_value=scheduled_value
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


@service
def cost_code_update(*, cost_code_id: str, changes: dict) -> CostCode:
    """Change `code`, `name`, `cost_type` or `scheduled_value` (cents).

    Emits: audit cost_code.updated; events none.
    """
    cost_code = lock(CostCode, cost_code_id)
    lock_open_project(cost_code.project_id)
    if "code" in changes:
        _ensure_code_free(cost_code.project_id, changes["code"], exclude_pk=cost_code.pk)
    if apply_changes(
        cost_code, changes, frozenset({"code", "name", "cost_type", "scheduled_value"})
    ):
        save_audited(cost_code)
    return cost_code


@service
def budget_line_update(*, budget_line_id: str, changes: dict) -> BudgetLine:
    """PATCH a budget line: `cost_to_complete` (cents ≥ 0 sets the estimate; null returns to
    the computed value) any time, `original_amount` only while the project is `bid` (else 409
    `budget_locked`). 422 `amount_out_of_range` when a project total would pass the money cap
    (docs/operations/limits.md).

    Emits: audit budget_line.updated; events budget.updated.
    """
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
                code=ProjectErrorCode.BUDGET_LOCKED,
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
    inside the transaction of the change that causes it (execute, approval, …).

    Emits: audit budget_line.updated; events budget.updated.
    """
    line = BudgetLine.objects.select_for_update(no_key=True).get(cost_code_id=cost_code_id).track()
    line.committed += committed
    line.actual += actual
    line.approved_changes += approved_changes
    return save_audited(line, note=note)


COUNTERS = ("committed", "actual", "approved_changes")


def budget_lines_adjust(*, deltas: dict[str, dict[str, int]], note: str) -> list[BudgetLine]:
    """`budget_line_adjust` for many budget lines at once, in a constant number of queries:
    `deltas` maps a cost code ID to {counter: cents} (`committed`, `actual`,
    `approved_changes`). Locks every affected line in one `SELECT … FOR NO KEY UPDATE` ordered by
    cost code ID (the order the one-line calls always took, so approvals touching overlapping
    lines cannot deadlock), moves them in one bulk UPDATE stamping `updated_at`, and appends
    one audit entry per line with before/after and `note` (plus its `budget.updated` event)
    in one INSERT. Returns the lines in lock order. Called inside the causing transaction.

    Emits: audit budget_line.updated; events budget.updated.
    """
    if not deltas:
        return []
    lines = [
        line.track()
        for line in BudgetLine.objects.select_for_update(no_key=True)
        .filter(cost_code_id__in=list(deltas))
        .order_by("cost_code_id")
    ]
    now = timezone.now()
    for line in lines:
        for counter, cents in deltas[line.cost_code_id].items():
            setattr(line, counter, getattr(line, counter) + cents)
        line.updated_at = now
    bulk_set(BudgetLine, lines, [*COUNTERS, "updated_at"])
    record_updated_many(lines, note=note)
    return lines
