"""Vendor invoices: receive, code, approve (draws the commitment down), mark paid, void
(docs/resources.md, invoice).

Approval locks the commitment row (`SELECT … FOR NO KEY UPDATE`) before re-checking its remaining
balance, so concurrent approvals are serialized and can never bill past `revised_amount`.
Lock order everywhere: commitment, then invoice (or change order), then project, then vendor,
then the budget lines, all of them in one `SELECT … FOR NO KEY UPDATE` ordered by cost code
(`budget_lines_adjust`), then the project's pay app and its lines (a change order's approval
lands on the draft; the pay-app services lock the project before their pay app). Two writes
that move no balance take lighter locks and run beside the commitment's approvals: an
invoice's receipt holds the commitment and the project with `FOR KEY SHARE` and locks the
vendor (`_lock_for_receipt`), and its coding skips the commitment and holds the project so
(`_lock_for_coding`).
"""

from __future__ import annotations

import datetime

from django.db import connection
from django.db.models import Exists, Subquery
from django.utils import timezone

from jobcost.error_codes import CommitmentErrorCode, InvoiceErrorCode, PayAppErrorCode
from jobcost.errors import Conflict, InvalidRequest, ValidationFailed
from jobcost.models import (
    COMMITMENT_BINDING,
    INVOICE_EDITABLE,
    Commitment,
    CommitmentStatus,
    Invoice,
    InvoiceLine,
    InvoiceStatus,
    Vendor,
)
from jobcost.money import format_dollars, percent_of
from jobcost.services.common import (
    check_writable,
    day_in_words,
    ensure_not_future,
    ensure_project_open,
    hold_project_open,
    hold_with,
    lock,
    lock_in_state,
    lock_with,
    not_allowed,
    save_audited,
    service,
    transition,
)
from jobcost.services.cost_codes import budget_lines_adjust
from jobcost.services.lien_waivers import lien_waiver_request_for_invoice
from jobcost.services.pay_apps import locked_periods, period_is_locked
from jobcost.services.totals import ensure_project_totals

S = InvoiceStatus


def _exceeds(commitment: Commitment, amount: int, *, object_id: str | None = None):
    return ValidationFailed(
        f"{format_dollars(amount)} is more than the {format_dollars(commitment.remaining)} "
        f"left on commitment {commitment.number} "
        f"({format_dollars(commitment.revised_amount)} committed, "
        f"{format_dollars(commitment.billed_to_date)} already billed).",
        code=CommitmentErrorCode.EXCEEDS_COMMITMENT,
        param="amount",
        object_id=object_id or commitment.pk,
    )


def _check_period(project_id: str, day: datetime.date) -> None:
    if period_is_locked(project_id, day):
        raise _period_locked_on(day)


def _period_locked_on(day: datetime.date) -> ValidationFailed:
    return ValidationFailed(
        f"{day} falls in a billing period already submitted; the period is locked.",
        code=PayAppErrorCode.PERIOD_LOCKED,
        param="invoice_date",
    )


def _duplicate(number: str) -> Conflict:
    return Conflict(
        f"This vendor already has an invoice numbered '{number}'.",
        code=InvoiceErrorCode.DUPLICATE_INVOICE,
        param="number",
    )


def _same_number(vendor_id: str, number: str, exclude_pk: str | None = None):
    """The vendor's invoices numbered `number` (but `exclude_pk`): the duplicate-invoice rule's
    one query, which `_check_number` and `_check_number_and_period` run."""
    return Invoice.objects.filter(vendor_id=vendor_id, number=number).exclude(pk=exclude_pk)


def _check_number(vendor_id: str, number: str, exclude_pk: str | None = None) -> None:
    """409 `duplicate_invoice`. Invoice numbers are unique per vendor across projects, so the
    vendor row is locked (after the commitment and project, as every caller holds them) and
    two writes of one number to two commitments of the vendor cannot both pass."""
    lock(Vendor, vendor_id)
    if _same_number(vendor_id, number, exclude_pk).exists():
        raise _duplicate(number)


def _check_number_and_period(vendor_id: str, number: str, project_id: str, day) -> None:
    """`_check_number` (409 `duplicate_invoice`) then `_check_period` (422 `period_locked`)
    for a new invoice, in one query, the vendor row being already locked by the caller."""
    taken, locked = (
        Vendor.objects.filter(pk=vendor_id)
        .annotate(
            taken=Exists(_same_number(vendor_id, number)),
            locked=Exists(locked_periods(project_id, day)),
        )
        .values_list("taken", "locked")
        .get()
    )
    if taken:
        raise _duplicate(number)
    if locked:
        raise _period_locked_on(day)


def _lock_for_change(invoice_id: str) -> tuple[Commitment, Invoice]:
    """Lock an invoice's commitment, then the invoice and its project (open, else 409
    `project_closed`), in two queries and in the documented lock order; all tracked."""
    of_invoice = Invoice.objects.filter(pk=invoice_id).values("commitment_id")
    try:
        commitment = (
            Commitment.objects.select_for_update(no_key=True).get(pk=Subquery(of_invoice)).track()
        )
    except Commitment.DoesNotExist:
        raise Invoice.DoesNotExist(f"No invoice {invoice_id}.") from None
    invoice = lock_with(Invoice, invoice_id, "project")
    ensure_project_open(invoice.project)
    return commitment, invoice


# The edits that leave the commitment's balance, the vendor's numbers and the billing periods
# alone: they lock the invoice alone and hold the project open (`_lock_for_coding`).
CODING_CHANGES = frozenset({"lines", "due_date"})


def _lock_for_coding(invoice_id: str) -> Invoice:
    """Lock an invoice alone, then hold its project open (`hold_project_open`: 409
    `project_closed`), in two queries, for an edit within `CODING_CHANGES`: such an edit
    checks nothing the commitment's, the vendor's or the project's exclusive lock guards, so
    it does not queue behind the approvals and receipts on the invoice's commitment and
    project. An approval of the same invoice locks the invoice after its commitment (the
    documented order), so the two still exclude each other there; the tracked invoice is
    returned with its project attached."""
    invoice = lock(Invoice, invoice_id)
    invoice.project = hold_project_open(invoice.project_id)
    return invoice


def _check_lines(invoice: Invoice, lines: list[dict]) -> None:
    for index, line in enumerate(lines):
        if line["cost_code"].project_id != invoice.project_id:
            raise InvalidRequest(
                "The cost code belongs to another project.", param=f"lines[{index}].cost_code"
            )
    total = sum(line["amount"] for line in lines)
    if total != invoice.amount:
        raise ValidationFailed(
            f"The lines add up to {format_dollars(total)}, but the invoice is for "
            f"{format_dollars(invoice.amount)}.",
            code=CommitmentErrorCode.LINES_SUM_MISMATCH,
            param="lines",
            object_id=invoice.pk,
        )


def _replace_lines(invoice: Invoice, lines: list[dict]) -> list[dict]:
    """Replace an invoice's coding lines with `lines` ({cost_code, amount}, positions from 1);
    returns the old ones as its audit entry shows them ({cost_code, amount} in position
    order). On PostgreSQL one statement: the DELETE, read back through RETURNING, runs to the
    end before the INSERT (whose rows wait on the count of the deleted ones), so the new
    positions never meet the old in the unique (invoice, position) index."""
    new = [
        InvoiceLine(invoice=invoice, position=i, cost_code=line["cost_code"], amount=line["amount"])
        for i, line in enumerate(lines, start=1)
    ]
    if connection.vendor != "postgresql":
        old = list(invoice.lines.values_list("position", "cost_code_id", "amount"))
        invoice.lines.all().delete()
        InvoiceLine.objects.bulk_create(new)
    else:
        meta = InvoiceLine._meta
        quote = connection.ops.quote_name
        fields = [meta.get_field(name) for name in ("position", "cost_code", "amount")]
        columns = ", ".join(quote(field.column) for field in fields)
        arrays = [
            [field.get_db_prep_save(getattr(line, field.attname), connection) for line in new]
            for field in fields
        ]
        unnest = ", ".join(f"%s::{field.cast_db_type(connection)}[]" for field in fields)
        table, invoice_column = quote(meta.db_table), quote(meta.get_field("invoice").column)
        # Only model metadata (quoted names, column types) is interpolated; values are params.
        sql = (
            f"WITH old AS (DELETE FROM {table} WHERE {invoice_column} = %s "  # noqa: S608
            f"RETURNING {columns}), "
            f"new AS (INSERT INTO {table} ({invoice_column}, {columns}) "
            f"SELECT %s, v.* FROM unnest({unnest}) AS v "
            "WHERE (SELECT count(*) FROM old) >= 0) "
            f"SELECT {columns} FROM old"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [invoice.pk, invoice.pk, *arrays])
            old = cursor.fetchall()
    return [{"cost_code": cost_code, "amount": amount} for _pos, cost_code, amount in sorted(old)]


def _lock_for_receipt(commitment_id: str) -> Commitment:
    """Hold a commitment and its project `FOR KEY SHARE` and lock its vendor `FOR NO KEY
    UPDATE` (its invoice numbers), in one query and in the documented lock order
    (`hold_with`), then check the project is open (409 `project_closed`), for a new invoice.

    A receipt moves no balance: it checks the commitment is executed, the amount within the
    balance left, the vendor's numbers and the project's billing periods. The moves that
    change what it checks lock `FOR UPDATE` and so wait for it (a commitment's close or void,
    a pay app's submission, a project's status move); the approvals and change orders that
    move the balance do not, and it does not queue behind them. Read against a balance that
    an approval in flight is lowering, the receipt is the earlier of the two writes, and the
    approval re-checks the balance under its own lock (docs/architecture.md, "Row locks").
    Returns the commitment with its project and vendor attached."""
    commitment = hold_with(Commitment, commitment_id, "project", "vendor", locked=("vendor",))
    ensure_project_open(commitment.project)
    return commitment


def _check_due_date(
    invoice_date: datetime.date, due_date: datetime.date | None, *, param: str = "due_date"
) -> None:
    """An invoice falls due on or after its date: a `due_date` before `invoice_date` is 400
    `parameter_invalid` with `param` (the field the request sent), both days in words."""
    if due_date is not None and due_date < invoice_date:
        raise InvalidRequest(
            f"The due date ({day_in_words(due_date)}) is before the invoice date "
            f"({day_in_words(invoice_date)}); an invoice falls due on or after its date.",
            param=param,
        )


@service
def invoice_create(
    *,
    commitment: Commitment,
    number: str,
    invoice_date: datetime.date,
    amount: int,
    due_date: datetime.date | None = None,
) -> Invoice:
    """Receive a vendor invoice (cents) against an executed commitment. Raises 400
    `parameter_invalid` (param `due_date`) for a due date before `invoice_date`, 409
    `commitment_not_executed`, 422 `exceeds_commitment` (param `amount`) over the remaining
    balance, 409 `duplicate_invoice` per vendor and number, 422 `period_locked`.

    Emits: audit invoice.created; events invoice.created.
    """
    _check_due_date(invoice_date, due_date)
    commitment = _lock_for_receipt(commitment.pk)
    if commitment.status != CommitmentStatus.EXECUTED:
        raise Conflict(
            f"Commitment {commitment.number} is {commitment.status}; invoices need an "
            "executed commitment.",
            code=CommitmentErrorCode.COMMITMENT_NOT_EXECUTED,
            param="commitment",
            object_id=commitment.pk,
        )
    if amount > commitment.remaining:
        raise _exceeds(commitment, amount)
    _check_number_and_period(commitment.vendor_id, number, commitment.project_id, invoice_date)
    return save_audited(
        Invoice(
            account_id=commitment.account_id,
            project_id=commitment.project_id,
            commitment=commitment,
            vendor_id=commitment.vendor_id,
            number=number,
            invoice_date=invoice_date,
            due_date=due_date,
            amount=amount,
            retainage_pct=commitment.retainage_pct,
            retainage_amount=percent_of(amount, commitment.retainage_pct),
        )
    )


@service
def invoice_update(*, invoice_id: str, changes: dict) -> Invoice:
    """Edit or code a received/coded invoice. `lines` [{cost_code, amount}] must sum to the
    amount (422 `lines_sum_mismatch`) and make it `coded`; a new `amount` is re-checked
    against the commitment; a new `invoice_date` against locked periods; the due date, old or
    new, against the invoice date, old or new (400 `parameter_invalid` naming `due_date`, or
    `invoice_date` when only that was sent). An edit of `lines` and `due_date` alone locks the
    invoice, not its commitment (`_lock_for_coding`).

    Emits: audit invoice.coded, invoice.updated; events invoice.coded.
    """
    if changes.keys() <= CODING_CHANGES:
        # No new amount: the commitment's balance is never read below.
        commitment, invoice = None, _lock_for_coding(invoice_id)
    else:
        commitment, invoice = _lock_for_change(invoice_id)
    if invoice.status not in INVOICE_EDITABLE:
        raise not_allowed(
            invoice,
            message=f"An {invoice.status} invoice cannot be edited.",
        )
    check_writable(changes, frozenset({"number", "invoice_date", "due_date", "amount", "lines"}))
    lines = changes.pop("lines", None)
    if "invoice_date" in changes or "due_date" in changes:
        _check_due_date(
            changes.get("invoice_date", invoice.invoice_date),
            changes.get("due_date", invoice.due_date),
            param="due_date" if "due_date" in changes else "invoice_date",
        )
    if "number" in changes and changes["number"] != invoice.number:
        _check_number(invoice.vendor_id, changes["number"], exclude_pk=invoice.pk)
    if "invoice_date" in changes and changes["invoice_date"] != invoice.invoice_date:
        _check_period(invoice.project_id, changes["invoice_date"])
    new_amount = changes.get("amount", invoice.amount)
    if new_amount != invoice.amount and new_amount > commitment.remaining:
        raise _exceeds(commitment, new_amount, object_id=invoice.pk)
    for field, value in changes.items():
        setattr(invoice, field, value)
    invoice.retainage_amount = percent_of(invoice.amount, invoice.retainage_pct)
    action = None
    extra = None
    if lines is not None:
        _check_lines(invoice, lines)
        extra = {
            "lines": {
                "before": _replace_lines(invoice, lines),
                "after": [
                    {"cost_code": ln["cost_code"].pk, "amount": ln["amount"]} for ln in lines
                ],
            }
        }
        invoice.status = S.CODED
        action = "coded"
    elif invoice.status == S.CODED:
        coded = [
            {"cost_code": line.cost_code, "amount": line.amount} for line in invoice.lines.all()
        ]
        _check_lines(invoice, coded)
    return save_audited(invoice, action=action, extra=extra)


@service
def invoice_approve(*, invoice_id: str) -> Invoice:
    """coded → approved: under the commitment's row lock, re-check the remaining balance
    (422 `exceeds_commitment`), add the amount to the commitment's `billed_to_date`, post
    each line to its budget line's `actual` (all lines in one bulk move, `budget_lines_adjust`),
    and request a conditional progress lien waiver. 422 `amount_out_of_range` when the
    project's cost to date would pass the money cap.

    Emits: audit budget_line.updated, commitment.updated, invoice.approved,
    lien_waiver.requested; events budget.updated, commitment.updated, invoice.approved,
    lien_waiver.requested.
    """
    commitment, invoice = _lock_for_change(invoice_id)
    if invoice.status != S.CODED:
        raise not_allowed(
            invoice,
            message=f"Only coded invoices can be approved; this one is {invoice.status}.",
        )
    if commitment.status not in COMMITMENT_BINDING:
        raise Conflict(
            f"Commitment {commitment.number} is {commitment.status}.",
            code=CommitmentErrorCode.COMMITMENT_NOT_EXECUTED,
            object_id=commitment.pk,
        )
    if invoice.amount > commitment.remaining:
        raise _exceeds(commitment, invoice.amount, object_id=invoice.pk)
    commitment.billed_to_date += invoice.amount
    save_audited(commitment, note=f"Invoice {invoice.number} approved.")
    posted: dict[str, int] = {}
    for cost_code_id, amount in invoice.lines.values_list("cost_code_id", "amount"):
        posted[cost_code_id] = posted.get(cost_code_id, 0) + amount
    budget_lines_adjust(
        deltas={code: {"actual": cents} for code, cents in posted.items()},
        note=f"Invoice {invoice.number} approved.",
    )
    ensure_project_totals(invoice.project_id, locked=invoice.project)
    invoice.status = S.APPROVED
    invoice.approved_at = timezone.now()
    save_audited(invoice, action="approved")
    lien_waiver_request_for_invoice(invoice)
    return invoice


@service
def invoice_mark_paid(
    *, invoice_id: str, paid_on: datetime.date | None = None, reference: str = ""
) -> Invoice:
    """approved → paid, on `paid_on` (default today) with the check or wire `reference`
    (≤ 100 characters, may be empty), kept as `paid_on` and `payment_reference`. A `paid_on`
    after today or before the invoice date is 400 `parameter_invalid` (param `paid_on`); an
    invoice not approved is 409 `invalid_state_transition`.

    Emits: audit invoice.paid; events invoice.paid.
    """
    status = Invoice.objects.values_list("status", flat=True).get(pk=invoice_id)
    invoice = lock_in_state(
        Invoice,
        invoice_id,
        allowed=(S.APPROVED,),
        verb="mark paid",
        message=f"Only approved invoices can be marked paid; this one is {status}.",
    )
    day = ensure_not_future(
        paid_on or timezone.localdate(), param="paid_on", what="The payment date"
    )
    if day < invoice.invoice_date:
        raise InvalidRequest(
            f"The payment date, {day_in_words(day)}, is before invoice {invoice.number}'s date "
            f"({day_in_words(invoice.invoice_date)}); an invoice is paid on or after its date.",
            param="paid_on",
        )
    invoice.status = S.PAID
    invoice.paid_at = timezone.now()
    invoice.paid_on = day
    invoice.payment_reference = reference
    return save_audited(invoice, action="paid")


@service
def invoice_void(*, invoice_id: str) -> Invoice:
    """received | coded → void (never once approved: reverse it with a credit instead).

    Emits: audit invoice.voided; events invoice.voided.
    """
    status = Invoice.objects.values_list("status", flat=True).get(pk=invoice_id)
    return transition(
        Invoice,
        invoice_id,
        allowed=INVOICE_EDITABLE,
        to=S.VOID,
        verb="void",
        action="voided",
        stamp="voided_at",
        message=f"{'An' if status[0] in 'aeiou' else 'A'} {status} invoice cannot be voided.",
    )
