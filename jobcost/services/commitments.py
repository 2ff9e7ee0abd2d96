"""Commitments: create, edit in draft, execute, close, void (docs/resources.md, commitment).

Executing adds the commitment's revised amount to its cost code's budget `committed`;
voiding an executed commitment (nothing billed) takes it off again; both under the budget
line's row lock in the transition's transaction, audited on the budget line.
"""

from __future__ import annotations

from decimal import Decimal

from django.utils import timezone

from jobcost.error_codes import CommitmentErrorCode
from jobcost.errors import InvalidRequest, ValidationFailed
from jobcost.models import (
    Commitment,
    CommitmentStatus,
    CommitmentType,
    CostCode,
    Project,
    Vendor,
)
from jobcost.services.common import (
    apply_changes,
    ensure_free,
    ensure_same_account,
    lock,
    lock_exclusively,
    lock_open_project,
    next_number,
    not_allowed,
    save_audited,
    service,
    transition,
)
from jobcost.services.cost_codes import budget_line_adjust
from jobcost.services.totals import ensure_project_totals

S = CommitmentStatus
# docs/resources.md: in draft, PATCH writes the amount, number, cost code and retainage (and the
# description); vendor and type are fixed once created.
WRITABLE = frozenset({"number", "cost_code", "original_amount", "retainage_pct", "description"})
PREFIX: dict[str, str] = {CommitmentType.SUBCONTRACT: "SC", CommitmentType.PURCHASE_ORDER: "PO"}


def _check_cost_code(project: Project, cost_code: CostCode | None) -> None:
    if cost_code is not None and cost_code.project_id != project.pk:
        raise InvalidRequest(
            f"Cost code {cost_code.code} belongs to another project.", param="cost_code"
        )


def _ensure_number_free(project_id: str, number: str, exclude_pk: str | None = None) -> None:
    ensure_free(
        Commitment.objects.filter(project_id=project_id, number=number),
        param="number",
        message=f"A commitment numbered '{number}' already exists on this project.",
        exclude_pk=exclude_pk,
    )


def _next_number(project_id: str, type_: str) -> str:
    """`SC-001`, `PO-002`, …: the first free number of that kind (project row is locked)."""
    taken = set(Commitment.objects.filter(project_id=project_id).values_list("number", flat=True))
    return next_number(taken, PREFIX[type_])


@service
def commitment_create(
    *,
    project: Project,
    vendor: Vendor,
    type: str,
    original_amount: int,
    number: str | None = None,
    cost_code: CostCode | None = None,
    retainage_pct: Decimal | None = None,
    description: str = "",
) -> Commitment:
    """Create a draft subcontract or purchase order (cents). Defaults: `number` the next
    `SC-nnn`/`PO-nnn`, `retainage_pct` the project's. Raises 409 `project_closed`, 409
    `resource_already_exists` (param `number`), 400 for a cost code of another project.

    Emits: audit commitment.created; events commitment.created.
    """
    project = lock_open_project(project.pk)
    ensure_same_account(vendor, project.account_id, param="vendor", noun="vendor")
    _check_cost_code(project, cost_code)
    if number:
        _ensure_number_free(project.pk, number)
    else:
        number = _next_number(project.pk, type)
    return save_audited(
        Commitment(
            account_id=project.account_id,
            project=project,
            vendor=vendor,
            type=type,
            number=number,
            cost_code=cost_code,
            original_amount=original_amount,
            retainage_pct=project.retainage_pct if retainage_pct is None else retainage_pct,
            description=description,
        )
    )


@service
def commitment_update(*, commitment_id: str, changes: dict) -> Commitment:
    """Edit a draft: `number`, `cost_code`, `original_amount`, `retainage_pct`,
    `description`. Not draft → 409 `invalid_state_transition`.

    Emits: audit commitment.updated; events commitment.updated.
    """
    commitment = lock(Commitment, commitment_id)
    project = lock_open_project(commitment.project_id)
    if commitment.status != S.DRAFT:
        raise not_allowed(
            commitment,
            message=f"Only draft commitments can be edited; this one is {commitment.status}. "
            "Use a commitment change order.",
        )
    if "cost_code" in changes:
        _check_cost_code(project, changes["cost_code"])
    if "number" in changes:
        _ensure_number_free(project.pk, changes["number"], exclude_pk=commitment.pk)
    if apply_changes(commitment, changes, WRITABLE):
        save_audited(commitment)
    return commitment


def _move_committed(commitment: Commitment, delta: int, why: str) -> None:
    if commitment.cost_code_id and delta:
        budget_line_adjust(
            cost_code_id=commitment.cost_code_id,
            committed=delta,
            note=f"Commitment {commitment.number} {why}.",
        )


@service
def commitment_execute(*, commitment_id: str) -> Commitment:
    """draft → executed. Needs a cost code (422 `cost_code_required`), so the budget's
    `committed` always reflects it; adds `revised_amount` to that budget line. 422
    `amount_out_of_range` when the project's committed cost would pass the money cap.

    Emits: audit budget_line.updated, commitment.executed; events budget.updated,
    commitment.executed.
    """
    commitment = lock(Commitment, commitment_id)
    lock_open_project(commitment.project_id)
    if commitment.status != S.DRAFT:
        raise not_allowed(commitment, "execute")
    if commitment.cost_code_id is None:
        raise ValidationFailed(
            "Set the commitment's cost_code before executing it.",
            code=CommitmentErrorCode.COST_CODE_REQUIRED,
            param="cost_code",
            object_id=commitment.pk,
        )
    commitment.status = S.EXECUTED
    commitment.executed_at = timezone.now()
    save_audited(commitment, action="executed")
    _move_committed(commitment, commitment.revised_amount, "executed")
    ensure_project_totals(commitment.project_id)
    return commitment


@service
def commitment_close(*, commitment_id: str) -> Commitment:
    """executed → closed: no more invoices; it stays in `committed`. Locks the commitment `FOR
    UPDATE` once its project is locked (`lock_exclusively`), so it waits for the invoices being
    received on it (which hold it `FOR KEY SHARE`), and a receipt that waited for it reads it
    closed.

    Emits: audit commitment.closed; events commitment.closed.
    """
    return transition(
        Commitment,
        commitment_id,
        allowed=(S.EXECUTED,),
        to=S.CLOSED,
        verb="close",
        action="closed",
        stamp="closed_at",
        exclusive=True,
    )


@service
def commitment_void(*, commitment_id: str) -> Commitment:
    """draft → void, or executed → void while nothing is billed (its revised amount leaves
    the budget's `committed`). Anything else is 409 `invalid_state_transition`.

    Locks the commitment `FOR UPDATE` once its project is locked, as a close does (it waits
    for receipts in flight).

    Emits: audit budget_line.updated, commitment.voided; events budget.updated,
    commitment.voided.
    """
    commitment = lock(Commitment, commitment_id)
    lock_open_project(commitment.project_id)
    lock_exclusively(Commitment, commitment_id)
    was_executed = commitment.status == S.EXECUTED
    if commitment.status not in (S.DRAFT, S.EXECUTED):
        raise not_allowed(commitment, "void")
    if was_executed and commitment.billed_to_date != 0:
        raise not_allowed(
            commitment,
            message="An executed commitment with billed invoices cannot be voided; "
            "close it instead.",
        )
    commitment.status = S.VOID
    commitment.voided_at = timezone.now()
    save_audited(commitment, action="voided")
    if was_executed:
        _move_committed(commitment, -commitment.revised_amount, "voided")
    return commitment
