"""Change orders: draft → pending → approved | rejected | void (docs/resources.md, change_order).

Approving an owner change order adds its amount to the project's `approved_changes`
(so `revised_contract` moves), each line's `budget_amount` to its budget line's
`approved_changes`, and lands it on the project's draft pay app as its own G703 row (or on
the next pay app created). Approving a commitment change order adds its amount to the
commitment's `approved_changes` and, the commitment being executed, to the budget line's
`committed`. All in one transaction, under row locks.
"""

from __future__ import annotations

from django.utils import timezone

from audit.context import current_actor
from audit.services import record_created
from jobcost.error_codes import CommitmentErrorCode, RequestErrorCode
from jobcost.errors import Conflict, InvalidRequest, ValidationFailed
from jobcost.models import (
    CHANGE_ORDER_UNDECIDED,
    COMMITMENT_BINDING,
    ChangeOrder,
    ChangeOrderKind,
    ChangeOrderLine,
    ChangeOrderStatus,
    Commitment,
    PayApp,
    PayAppStatus,
    Project,
    Rfi,
)
from jobcost.money import format_dollars
from jobcost.services.common import (
    check_writable,
    ensure_free,
    lock,
    lock_in_state,
    lock_open_project,
    next_number,
    not_allowed,
    save_audited,
    service,
    transition,
)
from jobcost.services.cost_codes import budget_line_adjust, budget_lines_adjust
from jobcost.services.pay_apps import pay_app_add_change_order
from jobcost.services.totals import (
    ensure_commitment_totals,
    ensure_project_totals,
    ensure_sum,
)

S = ChangeOrderStatus
PREFIX: dict[str, str] = {ChangeOrderKind.OWNER: "CO", ChangeOrderKind.COMMITMENT: "CCO"}


def _check_lines(project: Project, amount: int, lines: list[dict]) -> list[dict]:
    """Lines must name this project's cost codes and sum to `amount` (422
    `lines_sum_mismatch`, param `lines`); `budget_amount` defaults to `amount`, and the
    budget amounts may not sum past the money cap (422 `amount_out_of_range`, param `lines`;
    docs/operations/limits.md)."""
    for index, line in enumerate(lines):
        if line["cost_code"].project_id != project.pk:
            raise InvalidRequest(
                "The cost code belongs to another project.", param=f"lines[{index}].cost_code"
            )
    total = sum(line["amount"] for line in lines)
    if total != amount:
        raise ValidationFailed(
            f"The lines add up to {format_dollars(total)}, but the change order is for "
            f"{format_dollars(amount)}.",
            code=CommitmentErrorCode.LINES_SUM_MISMATCH,
            param="lines",
        )
    lines = [{**line, "budget_amount": line.get("budget_amount", line["amount"])} for line in lines]
    ensure_sum(
        "the sum of the lines' budget amounts",
        (line["budget_amount"] for line in lines),
        param="lines",
    )
    return lines


def _write_lines(change_order: ChangeOrder, lines: list[dict]) -> None:
    change_order.lines.all().delete()
    ChangeOrderLine.objects.bulk_create(
        ChangeOrderLine(
            change_order=change_order,
            position=i,
            cost_code=line["cost_code"],
            description=line.get("description", ""),
            amount=line["amount"],
            budget_amount=line["budget_amount"],
        )
        for i, line in enumerate(lines, start=1)
    )


def _lines_audit(lines: list[dict]) -> list[dict]:
    return [
        {
            "cost_code": line["cost_code"].pk,
            "description": line.get("description", ""),
            "amount": line["amount"],
            "budget_amount": line["budget_amount"],
        }
        for line in lines
    ]


def _refuse_digits_only(number: str) -> None:
    """An owner change order's G703 row is itemized by its number, beside the schedule of
    values' items "1", "2", …; a number of digits only could collide with one (400)."""
    if number.isdigit():
        raise InvalidRequest(
            f"Change order number '{number}' is only digits, which are reserved for the "
            f"schedule-of-values items of the G703; use a prefix such as 'CO-{number}'.",
            param="number",
        )


def _ensure_number_free(project_id: str, number: str) -> None:
    ensure_free(
        ChangeOrder.objects.filter(project_id=project_id, number=number),
        param="number",
        message=f"A change order numbered '{number}' already exists on this project.",
    )


def _check_rfi(project: Project, rfi: Rfi | None) -> None:
    if rfi is not None and rfi.project_id != project.pk:
        raise InvalidRequest("The RFI belongs to another project.", param="rfi")


def _next_number(project_id: str, kind: str) -> str:
    taken = set(ChangeOrder.objects.filter(project_id=project_id).values_list("number", flat=True))
    return next_number(taken, PREFIX[kind])


@service
def change_order_create(
    *,
    project: Project,
    kind: str,
    title: str,
    amount: int,
    lines: list[dict],
    commitment: Commitment | None = None,
    number: str | None = None,
    description: str = "",
    rfi: Rfi | None = None,
) -> ChangeOrder:
    """Create a draft change order (cents; negative is deductive). A `commitment` kind needs
    a commitment of the project (400 param `commitment`); an `owner` kind takes none. `rfi`
    (optional) is the RFI that led to it, of the same project (400 param `rfi`).

    Emits: audit change_order.created; events change_order.created.
    """
    project = lock_open_project(project.pk)
    _check_rfi(project, rfi)
    if kind == ChangeOrderKind.COMMITMENT:
        if commitment is None:
            raise InvalidRequest(
                "A commitment change order names its commitment.",
                code=RequestErrorCode.PARAMETER_MISSING,
                param="commitment",
            )
        if commitment.project_id != project.pk:
            raise InvalidRequest("The commitment belongs to another project.", param="commitment")
    elif commitment is not None:
        raise InvalidRequest("An owner change order takes no commitment.", param="commitment")
    lines = _check_lines(project, amount, lines)
    if number:
        _refuse_digits_only(number)
        _ensure_number_free(project.pk, number)
    else:
        number = _next_number(project.pk, kind)
    change_order = ChangeOrder(
        account_id=project.account_id,
        project=project,
        number=number,
        title=title,
        description=description,
        kind=kind,
        commitment=commitment,
        rfi=rfi,
        amount=amount,
    )
    save_audited(change_order, defer_created=True)
    _write_lines(change_order, lines)
    record_created(change_order, extra={"lines": {"before": None, "after": _lines_audit(lines)}})
    return change_order


@service
def change_order_update(*, change_order_id: str, changes: dict) -> ChangeOrder:
    """Edit a draft: `title`, `description`, `number`, `rfi` (an Rfi or None), `amount` and
    `lines` (which must still sum to the amount). Not draft → 409 `invalid_state_transition`,
    except for `rfi` alone: the link to the RFI behind a change order is a cross-reference,
    not a term of it, so it can be set in any status but void.

    Emits: audit change_order.updated; events none.
    """
    change_order = lock(ChangeOrder, change_order_id)
    project = lock_open_project(change_order.project_id)
    link_only = set(changes) == {"rfi"} and change_order.status != S.VOID
    if change_order.status != S.DRAFT and not link_only:
        raise not_allowed(change_order, "edit")
    check_writable(changes, frozenset({"title", "description", "number", "rfi", "amount", "lines"}))
    changes = dict(changes)
    lines = changes.pop("lines", None)
    if "rfi" in changes:
        _check_rfi(project, changes["rfi"])
    if "number" in changes and changes["number"] != change_order.number:
        _refuse_digits_only(changes["number"])
        _ensure_number_free(project.pk, changes["number"])
    for field, value in changes.items():
        setattr(change_order, field, value)
    extra = None
    if lines is None:
        lines = [
            {
                "cost_code": line.cost_code,
                "description": line.description,
                "amount": line.amount,
                "budget_amount": line.budget_amount,
            }
            for line in change_order.lines.select_related("cost_code")
        ]
        _check_lines(project, change_order.amount, lines)
    else:
        before = [
            {
                "cost_code": line.cost_code_id,
                "description": line.description,
                "amount": line.amount,
                "budget_amount": line.budget_amount,
            }
            for line in change_order.lines.all()
        ]
        lines = _check_lines(project, change_order.amount, lines)
        extra = {"lines": {"before": before, "after": _lines_audit(lines)}}
        _write_lines(change_order, lines)
    return save_audited(change_order, extra=extra)


@service
def change_order_submit(*, change_order_id: str) -> ChangeOrder:
    """draft → pending (sent for approval).

    Emits: audit change_order.submitted; events change_order.submitted.
    """
    return transition(
        ChangeOrder,
        change_order_id,
        allowed=(S.DRAFT,),
        to=S.PENDING,
        verb="submit",
        action="submitted",
        stamp="submitted_at",
    )


def _approve_owner(change_order: ChangeOrder, project: Project) -> None:
    note = f"Change order {change_order.number} approved."
    project.approved_changes += change_order.amount
    save_audited(project, note=note)
    moves: dict[str, int] = {}
    for cost_code_id, budget_amount in change_order.lines.values_list(
        "cost_code_id", "budget_amount"
    ):
        if budget_amount:
            moves[cost_code_id] = moves.get(cost_code_id, 0) + budget_amount
    budget_lines_adjust(
        deltas={code: {"approved_changes": cents} for code, cents in moves.items()}, note=note
    )
    draft = (
        PayApp.objects.select_for_update(no_key=True)
        .filter(project=project, status=PayAppStatus.DRAFT)
        .first()
    )
    if draft is not None:
        pay_app_add_change_order(pay_app=draft, change_order=change_order)


def _approve_commitment(change_order: ChangeOrder) -> None:
    commitment = lock(Commitment, change_order.commitment_id)
    if commitment.status not in COMMITMENT_BINDING:
        raise Conflict(
            f"Commitment {commitment.number} is {commitment.status}; change it directly "
            "while draft, or execute it first.",
            code=CommitmentErrorCode.COMMITMENT_NOT_EXECUTED,
            object_id=commitment.pk,
        )
    if commitment.remaining + change_order.amount < 0:
        raise ValidationFailed(
            f"This deduction would take commitment {commitment.number} below the "
            f"{format_dollars(commitment.billed_to_date)} already billed.",
            code=CommitmentErrorCode.EXCEEDS_COMMITMENT,
            param="amount",
            object_id=change_order.pk,
        )
    commitment.approved_changes += change_order.amount
    save_audited(commitment, note=f"Change order {change_order.number} approved.")
    if commitment.cost_code_id:
        budget_line_adjust(
            cost_code_id=commitment.cost_code_id,
            committed=change_order.amount,
            note=f"Change order {change_order.number} approved.",
        )


@service
def change_order_approve(*, change_order_id: str) -> ChangeOrder:
    """draft | pending → approved, applying it (see module docstring). Approving a void,
    rejected or approved change order is 409 `invalid_state_transition`; a project or
    commitment total carried past the money cap is 422 `amount_out_of_range`. Lock order, as
    invoices take it: the commitment (of a commitment change order), the change order, the
    project, its budget lines by cost code, then the project's draft pay app (an owner change
    order lands on it; the pay-app services too lock the project before their pay app).

    Emits: audit budget_line.updated, change_order.approved, commitment.updated,
    pay_app.lines_updated, project.updated; events budget.updated, change_order.approved,
    commitment.updated, pay_app.updated, project.updated.
    """
    commitment_id = ChangeOrder.objects.values_list("commitment_id", flat=True).get(
        pk=change_order_id
    )
    if commitment_id is not None:
        lock(Commitment, commitment_id)
    change_order = lock(ChangeOrder, change_order_id)
    project = lock_open_project(change_order.project_id)
    if change_order.status not in CHANGE_ORDER_UNDECIDED:
        raise not_allowed(change_order, "approve")
    if change_order.kind == ChangeOrderKind.OWNER:
        _approve_owner(change_order, project)
    else:
        _approve_commitment(change_order)
        ensure_commitment_totals([change_order.commitment_id])
    ensure_project_totals(project.pk)
    change_order.status = S.APPROVED
    change_order.approved_at = timezone.now()
    change_order.approved_by = current_actor().id or current_actor().type
    return save_audited(change_order, action="approved")


@service
def change_order_reject(*, change_order_id: str, reason: str = "") -> ChangeOrder:
    """pending → rejected, with an optional reason.

    Emits: audit change_order.rejected; events change_order.rejected.
    """
    change_order = lock_in_state(ChangeOrder, change_order_id, allowed=(S.PENDING,), verb="reject")
    change_order.status = S.REJECTED
    change_order.rejected_at = timezone.now()
    change_order.rejection_reason = reason
    return save_audited(change_order, action="rejected", note=reason)


@service
def change_order_void(*, change_order_id: str) -> ChangeOrder:
    """draft | pending → void.

    Emits: audit change_order.voided; events change_order.voided.
    """
    return transition(
        ChangeOrder,
        change_order_id,
        allowed=(S.DRAFT, S.PENDING),
        to=S.VOID,
        verb="void",
        action="voided",
        stamp="voided_at",
    )
