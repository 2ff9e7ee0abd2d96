"""Lien waivers: requested on invoice approval or by POST, received or rejected by PATCH."""

from __future__ import annotations

import datetime

from django.utils import timezone

from jobcost.errors import InvalidRequest
from jobcost.models import (
    Commitment,
    Invoice,
    LienWaiver,
    LienWaiverStatus,
    LienWaiverType,
    Project,
    Vendor,
)
from jobcost.services.common import (
    check_writable,
    ensure_same_account,
    lock,
    lock_open_project,
    not_allowed,
    save_audited,
    service,
)

S = LienWaiverStatus


@service
def lien_waiver_create(
    *,
    project: Project,
    vendor: Vendor,
    type: str,
    amount: int,
    through_date: datetime.date,
    commitment: Commitment | None = None,
    invoice: Invoice | None = None,
    document_url: str = "",
) -> LienWaiver:
    """Request a waiver from a vendor for the period holding `through_date` (amount in cents).
    A commitment or invoice given must be of that project and vendor (400).

    Emits: audit lien_waiver.requested; events lien_waiver.requested.
    """
    project = lock_open_project(project.pk)
    ensure_same_account(vendor, project.account_id, param="vendor", noun="vendor")
    for param, obj in (("commitment", commitment), ("invoice", invoice)):
        if obj is not None and (obj.project_id != project.pk or obj.vendor_id != vendor.pk):
            raise InvalidRequest(f"The {param} is not this project's and vendor's.", param=param)
    return save_audited(
        LienWaiver(
            account_id=project.account_id,
            project=project,
            vendor=vendor,
            commitment=commitment,
            invoice=invoice,
            type=type,
            amount=amount,
            through_date=through_date,
            document_url=document_url,
        ),
        action="requested",
    )


def lien_waiver_request_for_invoice(invoice: Invoice) -> LienWaiver:
    """On invoice approval: a conditional progress waiver from the vendor for the invoice's
    amount, through its date (so it belongs to the period that holds the invoice date).

    Emits: audit lien_waiver.requested; events lien_waiver.requested.
    """
    return save_audited(
        LienWaiver(
            account_id=invoice.account_id,
            project_id=invoice.project_id,
            vendor_id=invoice.vendor_id,
            commitment_id=invoice.commitment_id,
            invoice=invoice,
            type=LienWaiverType.CONDITIONAL_PROGRESS,
            amount=invoice.amount,
            through_date=invoice.invoice_date,
        ),
        action="requested",
    )


def _check_received_on(day: datetime.date) -> datetime.date:
    """A waiver is received on a day that has come: 400 `parameter_invalid` (param
    `received_on`) for a date after today (the account's business day, `localdate`)."""
    today = timezone.localdate()
    if day > today:
        raise InvalidRequest(
            f"The date received, {day:%B} {day.day}, {day.year}, is in the future; enter the "
            f"day the waiver arrived (today, {today:%B} {today.day}, {today.year}, or earlier).",
            param="received_on",
        )
    return day


@service
def lien_waiver_update(*, lien_waiver_id: str, changes: dict) -> LienWaiver:
    """Record receipt: `status` `received` (with `received_on`, default today) or
    `rejected`, and `document_url`. A received waiver is final (409 on any status change).
    `received_on` is today or earlier (400, param `received_on`, for a future date).

    Emits: audit lien_waiver.received, lien_waiver.rejected, lien_waiver.updated; events
    lien_waiver.received.
    """
    check_writable(changes, frozenset({"status", "received_on", "document_url"}))
    waiver = lock(LienWaiver, lien_waiver_id)
    lock_open_project(waiver.project_id)
    new_status = changes.get("status", waiver.status)
    if new_status != waiver.status:
        if waiver.status == S.RECEIVED or new_status == S.REQUESTED:
            raise not_allowed(
                waiver,
                message=f"A {waiver.status} waiver cannot become {new_status}.",
                param="status",
            )
        waiver.status = new_status
        if new_status == S.RECEIVED:
            waiver.received_on = _check_received_on(
                changes.get("received_on") or timezone.localdate()
            )
        elif changes.get("received_on"):
            raise InvalidRequest("received_on goes with status 'received'.", param="received_on")
        action = new_status
    else:
        action = None
        if "received_on" in changes:
            if waiver.status != S.RECEIVED:
                raise InvalidRequest(
                    "received_on is recorded with the receipt: send status 'received' too.",
                    param="received_on",
                )
            if changes["received_on"] is not None:
                _check_received_on(changes["received_on"])
            waiver.received_on = changes["received_on"]
    if "document_url" in changes:
        waiver.document_url = changes["document_url"]
    return save_audited(waiver, action=action)
