"""Pay apps (docs/resources.md, pay_app): create the next draft, enter the period's work, submit
with the lien-waiver rule, reject back to draft, approve (certify an amount on a day). The
owner's receipts and marking paid are `services.pay_app_payments`.

Lines are generated at creation: one per cost code with a scheduled value (ordered by code,
items "1", "2", …) and one per approved owner change order (item = the change order number),
a change order's row first appearing on the pay app it lands on and staying on every later
one. `previous` carries the work (not the stored materials) billed on earlier applications.

Lock order: every pay-app write locks the project first, then the pay app, then its lines
(`lock_project_first`), as a change order's approval does when it lands on the draft
(jobcost/services/invoices.py has the whole order); creating one locks the approved change
orders it lands (change orders come before their project) before the project.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

from django.db.models import QuerySet, Sum
from django.utils import timezone

from audit.services import record, record_created
from jobcost.error_codes import PayAppErrorCode, RequestErrorCode
from jobcost.errors import Conflict, InvalidRequest, ValidationFailed
from jobcost.models import (
    CERTIFIED_STATUSES,
    ChangeOrder,
    ChangeOrderKind,
    ChangeOrderStatus,
    CostCode,
    PayApp,
    PayAppDocumentStage,
    PayAppLine,
    PayAppStatus,
    Project,
)
from jobcost.money import format_dollars
from jobcost.selectors.g702 import g702, g703_row
from jobcost.selectors.lien_waivers import vendors_missing_waivers
from jobcost.selectors.pay_app_snapshot import change_order_description
from jobcost.selectors.pay_apps import earlier_certificate
from jobcost.services.common import (
    bulk_set,
    day_in_words,
    ensure_not_future,
    lock_in_state,
    lock_open_project,
    lock_project_first,
    not_allowed,
    save_audited,
    service,
)
from jobcost.services.pay_app_documents import pay_app_document_store
from jobcost.services.totals import ensure_g702_totals

S = PayAppStatus


def _previous_work(project_id: str, before_number: int) -> dict[tuple[str, str], int]:
    """Work billed on earlier applications, per row source: ("cc", id) or ("co", id)."""
    rows = (
        PayAppLine.objects.filter(pay_app__project_id=project_id, pay_app__number__lt=before_number)
        .values("cost_code_id", "change_order_id")
        .annotate(work=Sum("this_period"))
    )
    carried: dict[tuple[str, str], int] = {}
    for row in rows:
        key = (
            ("co", row["change_order_id"])
            if row["change_order_id"]
            else ("cc", row["cost_code_id"])
        )
        carried[key] = carried.get(key, 0) + (row["work"] or 0)
    return carried


def _change_order_line(pay_app: PayApp, change_order: ChangeOrder, position: int, previous: int):
    return PayAppLine(
        pay_app=pay_app,
        position=position,
        item=change_order.number,
        description=change_order_description(change_order.number, change_order.title),
        change_order=change_order,
        scheduled_value=change_order.amount,
        previous=previous,
    )


@service
def pay_app_create(
    *,
    project: Project,
    period_start: datetime.date,
    period_end: datetime.date,
    retainage_pct: Decimal | None = None,
) -> PayApp:
    """Create the project's next-numbered draft and its G703 lines.

    Raises 409 `draft_pay_app_exists` (one draft per project), 400 for an end before the
    start, 422 `periods_overlap` when the period does not start after every earlier period,
    422 `schedule_of_values_unbalanced` when the cost codes' scheduled values do not sum to
    the contract amount. Approved owner change orders not yet billed land on this draft
    (one approved while this runs and held by another transaction lands on the next one).

    Emits: audit change_order.billed, pay_app.created; events pay_app.created.
    """
    # The approved owner change orders about to land are marked billed below: a change order
    # is locked before its project (the lock order, jobcost/services/invoices.py), so they are
    # locked first, in ID order.
    held = set(_unbilled_owner_orders(project.pk).order_by("pk").values_list("pk", flat=True))
    project = lock_open_project(project.pk)
    # One approved meanwhile (its approval held the project before this did) is locked only
    # if it is free now: waiting for it while holding the project could deadlock. One that is
    # not lands on the next pay app, as any approved change order not yet billed does.
    held |= set(
        _unbilled_owner_orders(project.pk, skip_locked=True)
        .exclude(pk__in=held)
        .values_list("pk", flat=True)
    )
    if period_end < period_start:
        raise InvalidRequest("period_end must not be before period_start.", param="period_end")
    draft = PayApp.objects.filter(project=project, status=S.DRAFT).first()
    if draft is not None:
        raise Conflict(
            f"Pay app #{draft.number} is still a draft; submit it before creating the next.",
            code=PayAppErrorCode.DRAFT_PAY_APP_EXISTS,
            object_id=draft.pk,
        )
    latest = (
        PayApp.objects.filter(project=project, period_end__gte=period_start)
        .order_by("-number")
        .first()
    )
    if latest is not None:
        raise ValidationFailed(
            f"The period overlaps pay app #{latest.number} ({latest.period_start} to "
            f"{latest.period_end}); a new period starts after {latest.period_end}.",
            code=PayAppErrorCode.PERIODS_OVERLAP,
            param="period_start",
            object_id=latest.pk,
        )
    codes = list(CostCode.objects.filter(project=project).order_by("code"))
    scheduled = sum(c.scheduled_value for c in codes)
    if scheduled != project.contract_amount:
        raise ValidationFailed(
            f"The schedule of values ({format_dollars(scheduled)}) does not equal the contract "
            f"amount ({format_dollars(project.contract_amount)}); fix the cost codes' scheduled "
            "values.",
            code=PayAppErrorCode.SCHEDULE_OF_VALUES_UNBALANCED,
        )
    last = PayApp.objects.filter(project=project).order_by("-number").first()
    number = (last.number if last else 0) + 1
    pay_app = save_audited(
        PayApp(
            account_id=project.account_id,
            project=project,
            number=number,
            period_start=period_start,
            period_end=period_end,
            retainage_pct=project.retainage_pct if retainage_pct is None else retainage_pct,
        ),
        defer_created=True,
    )
    carried = _previous_work(project.pk, number)
    lines = [
        PayAppLine(
            pay_app=pay_app,
            position=i,
            item=str(i),
            description=f"{c.code} {c.name}",
            cost_code=c,
            scheduled_value=c.scheduled_value,
            previous=carried.get(("cc", c.pk), 0),
        )
        for i, c in enumerate((c for c in codes if c.scheduled_value > 0), start=1)
    ]
    billed_orders = ChangeOrder.objects.filter(
        project=project,
        kind=ChangeOrderKind.OWNER,
        status=ChangeOrderStatus.APPROVED,
    ).order_by("approved_at", "number")
    landing = []
    for order in billed_orders:
        if order.pay_app_id is None:
            if order.pk not in held:
                continue  # locked elsewhere: it lands on the next pay app
            landing.append(order)
        lines.append(
            _change_order_line(pay_app, order, len(lines) + 1, carried.get(("co", order.pk), 0))
        )
    PayAppLine.objects.bulk_create(lines)
    for order in landing:
        order.pay_app = pay_app
        save_audited(order, action="billed", note=f"Landed on pay app #{number}.")
    record_created(pay_app)
    return pay_app


def _unbilled_owner_orders(project_id: str, *, skip_locked: bool = False) -> QuerySet:
    """The project's approved owner change orders not yet on a pay app, locked (`FOR NO KEY
    UPDATE`; with `skip_locked`, only those no other transaction holds)."""
    return ChangeOrder.objects.select_for_update(no_key=True, skip_locked=skip_locked).filter(
        project_id=project_id,
        kind=ChangeOrderKind.OWNER,
        status=ChangeOrderStatus.APPROVED,
        pay_app__isnull=True,
    )


def pay_app_add_change_order(*, pay_app: PayApp, change_order: ChangeOrder) -> None:
    """Land an approved owner change order on a draft pay app as its own G703 row (called
    inside the change order's approval transaction, with the draft locked).

    Emits: audit pay_app.lines_updated; events pay_app.updated.
    """
    position = (
        pay_app.lines.order_by("-position").values_list("position", flat=True).first() or 0
    ) + 1
    _change_order_line(pay_app, change_order, position, 0).save()
    change_order.pay_app = pay_app
    record(
        pay_app,
        action="lines_updated",
        changes={f"lines.{change_order.number}": {"before": None, "after": change_order.amount}},
        note=f"Change order {change_order.number} landed as its own G703 row.",
    )


def scheduled_value_breach(line: PayAppLine) -> str | None:
    """The G703 rule for one row, as entered: total completed and stored to date (G = D
    previous + E this period + F materials stored) stays between zero and the row's
    scheduled value C (for a deductive change-order row, C is negative and the range runs the
    other way). Returns the refusal in the accountant's words and dollars, or None when the
    row keeps to it. The one place of the rule: `pay_app_update` refuses with it and the back
    office's G703 grid flags every line with it.

    Emits: none.
    """
    total = line.previous + line.this_period + line.materials_stored
    low, high = sorted((0, line.scheduled_value))
    if low <= total <= high:
        return None
    where = "more than its scheduled value" if total > high else "less than"
    bound = format_dollars(high if total > high else low)
    return (
        f"Line {line.item}: completed and stored to date would be {format_dollars(total)}, "
        f"{where} {bound}."
    )


def _lock_draft(pay_app_id: str) -> PayApp:
    pay_app = lock_project_first(PayApp, pay_app_id)
    if pay_app.status != S.DRAFT:
        raise ValidationFailed(
            f"Pay app #{pay_app.number} is {pay_app.status}; its period is locked.",
            code=PayAppErrorCode.PERIOD_LOCKED,
            object_id=pay_app.pk,
        )
    return pay_app


@service
def pay_app_update(
    *, pay_app_id: str, lines: list[dict] | None = None, retainage_pct: Decimal | None = None
) -> PayApp:
    """Enter the period: `lines` [{item, this_period, materials_stored}] (cents) and/or the
    `retainage_pct`. Draft only (else 422 `period_locked`). A row whose total would pass its
    scheduled value (or go below zero; for a deductive row, the other way) is 422
    `exceeds_scheduled_value` with param `lines[i]`; an unknown item is 400; a G702 line past
    the money cap is 422 `amount_out_of_range` (param `lines`). The changed rows are written
    in one statement (`bulk_set`).

    Emits: audit pay_app.lines_updated, pay_app.updated; events pay_app.updated.
    """
    pay_app = _lock_draft(pay_app_id)
    changes = {}
    changed_rows = []
    if lines:
        rows = {
            line.item: line for line in pay_app.lines.select_for_update(no_key=True).order_by("pk")
        }
        seen: set[str] = set()
        for index, entry in enumerate(lines):
            if entry["item"] in seen:
                raise InvalidRequest(
                    f"Line '{entry['item']}' appears twice; send each item once.",
                    param=f"lines[{index}].item",
                )
            seen.add(entry["item"])
            row = rows.get(entry["item"])
            if row is None:
                raise InvalidRequest(
                    f"Pay app #{pay_app.number} has no line '{entry['item']}'.",
                    param=f"lines[{index}].item",
                )
            before = (row.this_period, row.materials_stored)
            row.this_period = entry.get("this_period", row.this_period)
            row.materials_stored = entry.get("materials_stored", row.materials_stored)
            breach = scheduled_value_breach(row)
            if breach:
                raise ValidationFailed(
                    breach,
                    code=PayAppErrorCode.EXCEEDS_SCHEDULED_VALUE,
                    param=f"lines[{index}]",
                    object_id=pay_app.pk,
                )
            if before != (row.this_period, row.materials_stored):
                changed_rows.append(row)
                changes[f"lines.{row.item}"] = {
                    "before": {"this_period": before[0], "materials_stored": before[1]},
                    "after": {
                        "this_period": row.this_period,
                        "materials_stored": row.materials_stored,
                    },
                }
    bulk_set(PayAppLine, changed_rows, ["this_period", "materials_stored"])
    if retainage_pct is not None and retainage_pct != pay_app.retainage_pct:
        pay_app.retainage_pct = retainage_pct
    if changed_rows:
        ensure_g702_totals(pay_app, _figures(pay_app), param="lines")
    save_audited(pay_app)
    if changes:
        record(
            pay_app,
            action="lines_updated",
            changes=changes,
        )
    return pay_app


def _figures(pay_app: PayApp):
    rows = [g703_row(line, pay_app.retainage_pct) for line in pay_app.lines.all()]
    return g702(rows, pay_app.retainage_pct, previous_certificates(pay_app))


def previous_certificates(pay_app: PayApp) -> int:
    """G702 line 7 (cents), by the one rule of `selectors.pay_apps.earlier_certificate`.

    Emits: none.
    """
    earlier = earlier_certificate(pay_app.project_id, pay_app.number).first()
    earlier = earlier["certified_earned_less_retainage"] if earlier else None
    return earlier or 0


@service
def pay_app_submit(
    *, pay_app_id: str, allow_missing_waivers: bool = False, reason: str = ""
) -> PayApp:
    """draft → submitted; locks the period. With waivers missing for the period, 422
    `lien_waivers_missing` naming the vendors, unless `allow_missing_waivers`: then the
    override, the missing vendors and the `reason` given for it (the back office asks for
    one) are recorded on the audit trail (`waiver_override`). Locks the project `FOR UPDATE`:
    locking the period waits for the invoices being received (which hold the project `FOR
    KEY SHARE` and check the periods), and a receipt that waited for it sees the period locked.

    Stores the document as submitted (`services.pay_app_documents`, docs/documents.md).

    Emits: audit pay_app.submitted, pay_app.waiver_override; events pay_app.submitted.
    """
    pay_app = lock_in_state(
        PayApp,
        pay_app_id,
        allowed=(S.DRAFT,),
        verb="submit",
        project_first=True,
        exclusive=True,
    )
    missing = vendors_missing_waivers(pay_app)
    note = ""
    if missing:
        names = ", ".join(f"{v.name} ({v.pk})" for v in missing)
        if not allow_missing_waivers:
            raise ValidationFailed(
                f"Lien waivers for this period are missing from: {names}. Record them, or "
                "submit with allow_missing_waivers: true.",
                code=PayAppErrorCode.LIEN_WAIVERS_MISSING,
                param="allow_missing_waivers",
                object_id=pay_app.pk,
            )
        note = f"Submitted with lien waivers missing (override) from: {names}."
        if reason.strip():
            note = f"{note} Reason: {reason.strip()}"
    figures = _figures(pay_app)
    pay_app.status = S.SUBMITTED
    pay_app.submitted_at = timezone.now()
    pay_app.rejection_reason = ""
    pay_app.certified_total_completed = figures.total_completed_and_stored
    pay_app.certified_earned_less_retainage = figures.total_earned_less_retainage
    save_audited(pay_app, action="submitted", note=note)
    if missing:
        record(
            pay_app,
            action="waiver_override",
            changes={"lien_waivers_missing": {"before": None, "after": [v.pk for v in missing]}},
            note=note,
        )
    pay_app_document_store(pay_app, PayAppDocumentStage.SUBMITTED)
    return pay_app


@service
def pay_app_reject(*, pay_app_id: str, reason: str) -> PayApp:
    """submitted → draft with the owner's `reason`, unlocking the period. Refused (409) when
    a later application exists, since its carried figures rest on this one.

    Emits: audit pay_app.rejected; events pay_app.rejected.
    """
    pay_app = lock_in_state(
        PayApp, pay_app_id, allowed=(S.SUBMITTED,), verb="reject", project_first=True
    )
    if PayApp.objects.filter(project_id=pay_app.project_id, number__gt=pay_app.number).exists():
        raise not_allowed(
            pay_app,
            message="A later pay app exists; only the latest application can go back to draft.",
        )
    pay_app.status = S.DRAFT
    pay_app.rejection_reason = reason
    pay_app.submitted_at = None
    pay_app.certified_total_completed = None
    pay_app.certified_earned_less_retainage = None
    return save_audited(pay_app, action="rejected", note=reason)


@service
def pay_app_approve(
    *,
    pay_app_id: str,
    amount_certified: int | None = None,
    certified_on: datetime.date | None = None,
    certification_note: str = "",
) -> PayApp:
    """submitted → approved: the owner's architect certifies `amount_certified` cents for
    payment on `certified_on` (docs/resources.md, pay_app, "Certification").

    `amount_certified` is from 0 to the current payment due (G702 line 8, or 0 when line 8 is
    negative); default line 8. More is 422 `exceeds_payment_due` (param `amount_certified`,
    in dollars); a negative amount is 400 `parameter_invalid`. Certifying less than line 8
    needs a `certification_note` saying why (400 `parameter_missing`, param
    `certification_note`). `certified_on` defaults to today; a later day, or a day before the
    pay app was submitted, is 400 `parameter_invalid` (param `certified_on`). The amount, day
    and note are stored on the pay app, so they are in the `approved` audit entry and the
    `pay_app.approved` event; the note is also the entry's note. 409
    `invalid_state_transition` unless submitted, 409 `project_closed`. Stores the document
    as certified (docs/documents.md).

    Emits: audit pay_app.approved; events pay_app.approved.
    """
    pay_app = lock_in_state(
        PayApp, pay_app_id, allowed=(S.SUBMITTED,), verb="approve", project_first=True
    )
    due = _figures(pay_app).current_payment_due
    payable = max(due, 0)
    amount = payable if amount_certified is None else amount_certified
    note = certification_note.strip()
    if amount < 0:
        raise InvalidRequest("amount_certified must be 0 or more cents.", param="amount_certified")
    if amount > payable:
        raise ValidationFailed(
            f"The amount certified, {format_dollars(amount)}, is more than pay app "
            f"#{pay_app.number}'s current payment due (G702 line 8) of {format_dollars(payable)}; "
            "the architect certifies at most the amount applied for.",
            code=PayAppErrorCode.EXCEEDS_PAYMENT_DUE,
            param="amount_certified",
            object_id=pay_app.pk,
        )
    if amount < due and not note:
        raise InvalidRequest(
            f"Certifying {format_dollars(amount)} of the {format_dollars(due)} current payment "
            "due needs a certification_note saying why the architect certified less.",
            code=RequestErrorCode.PARAMETER_MISSING,
            param="certification_note",
        )
    submitted_on = timezone.localdate(pay_app.submitted_at)
    day = ensure_not_future(
        certified_on or timezone.localdate(), param="certified_on", what="The certification date"
    )
    if day < submitted_on:
        raise InvalidRequest(
            f"The certification date, {day_in_words(day)}, is before pay app #{pay_app.number} "
            f"was submitted ({day_in_words(submitted_on)}); the architect certifies an "
            "application once it is submitted.",
            param="certified_on",
        )
    pay_app.status = S.APPROVED
    pay_app.approved_at = timezone.now()
    pay_app.amount_certified = amount
    pay_app.certified_on = day
    pay_app.certification_note = note
    save_audited(pay_app, action="approved", note=note)
    pay_app_document_store(pay_app, PayAppDocumentStage.CERTIFIED)
    return pay_app


def period_is_locked(project_id: str, day: datetime.date) -> bool:
    """True when a submitted, approved or paid pay app's period holds `day`.

    Emits: none.
    """
    return locked_periods(project_id, day).exists()


def locked_periods(project_id: str, day: datetime.date) -> QuerySet[PayApp]:
    """The submitted, approved or paid pay apps whose period holds `day` (for an `Exists`
    beside other checks in one query).

    Emits: none.
    """
    return PayApp.objects.filter(
        project_id=project_id,
        status__in=CERTIFIED_STATUSES,
        period_start__lte=day,
        period_end__gte=day,
    )
