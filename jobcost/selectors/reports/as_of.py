"""The books as they stood at the end of a past day (docs/reports.md, "As of a date").

A report `as_of` a date counts only what had happened by the end of that day, UTC:

- objects created after it do not exist yet;
- a stored field that can be edited (a project's `status` and `contract_amount`, a budget
  line's `original_amount` and `cost_to_complete` estimate) reads the value it held then,
  taken from the append-only audit trail: the `before` of the first change recorded after
  the day, or the stored value when nothing changed since;
- flows are counted from their own dated rows: change orders by `approved_at`, commitments by
  `executed_at` (and `voided_at`), invoices by `invoice_date` and `approved_at` (and `paid_at`
  for what is still unpaid), pay apps by period end or submission (`billing_pay_apps`).

So a month-end read in March gives the figures it gave in December. Every helper here costs
one query for any number of rows.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.db.models import Q, QuerySet
from django.utils import timezone

from audit.models import AuditEntry
from jobcost.errors import InvalidRequest
from jobcost.models import CERTIFIED_STATUSES, PayApp


def report_day(day: datetime.date | None) -> datetime.date:
    """The day a report reads: `day`, or today (UTC) when None. A day after today is refused
    with 400 `parameter_invalid` (param `as_of`), for the API and the back office alike: a
    report reads the books of a day that has ended or is ending."""
    today = timezone.now().date()
    if day is None:
        return today
    if day > today:
        raise InvalidRequest(
            f"Pick today or an earlier day (today is {today:%b %-d, %Y}, UTC): a report reads "
            "the books as they stood at the end of a day.",
            param="as_of",
        )
    return day


def end_of(as_of: datetime.date) -> datetime.datetime:
    """The first instant after `as_of` (midnight UTC of the next day): a timestamp counts at
    `as_of` when it is strictly before this."""
    return datetime.datetime.combine(
        as_of + datetime.timedelta(days=1), datetime.time.min, tzinfo=datetime.UTC
    )


def values_then(
    target_type: str, ids: Iterable[str], fields: tuple[str, ...], moment: datetime.datetime
) -> dict[str, dict[str, object]]:
    """{object ID: {field: value at `moment`}} for the objects among `ids` whose `fields`
    (API names, as the audit trail records them) changed at or after `moment`; an object or
    field absent from the answer still holds its stored value. One query."""
    wanted = set(ids)
    if not wanted:
        return {}
    entries = (
        AuditEntry.objects.filter(
            target_type=target_type,
            target_id__in=wanted,
            created_at__gte=moment,
            changes__has_any_keys=list(fields),
        )
        .order_by("created_at", "id")
        .values_list("target_id", "changes")
    )
    then: dict[str, dict[str, object]] = {}
    for target_id, changes in entries:
        known = then.setdefault(target_id, {})
        for field in fields:
            change = changes.get(field)
            if isinstance(change, dict) and field not in known:
                known[field] = change.get("before")
    return then


def billing_pay_apps(project_ids: Iterable[str], as_of: datetime.date) -> dict[str, dict]:
    """{project ID: the pay app that states the project's billing at the end of `as_of`}:
    the highest-numbered submitted, approved or paid pay app whose period ended by `as_of` or
    that was submitted by then. A December pay app submitted on January 5 bills December; one
    submitted before its period ends bills from its submission. Each value holds `id`,
    `number`, `period_end`, `total_completed` (G702 line 4, cents) and
    `earned_less_retainage` (line 6, cents). One query."""
    moment = end_of(as_of)
    rows = (
        PayApp.objects.filter(project_id__in=list(project_ids), status__in=CERTIFIED_STATUSES)
        .filter(Q(period_end__lte=as_of) | Q(submitted_at__lt=moment))
        .order_by("project_id", "-number")
        .values(
            "id",
            "project_id",
            "number",
            "period_end",
            "certified_total_completed",
            "certified_earned_less_retainage",
        )
    )
    latest: dict[str, dict] = {}
    for row in rows:
        if row["project_id"] in latest:
            continue
        latest[row["project_id"]] = {
            "id": row["id"],
            "number": row["number"],
            "period_end": row["period_end"],
            "total_completed": row["certified_total_completed"] or 0,
            "earned_less_retainage": row["certified_earned_less_retainage"] or 0,
        }
    return latest


def existing(queryset: QuerySet, moment: datetime.datetime) -> QuerySet:
    """The rows of `queryset` created before `moment`."""
    return queryset.filter(created_at__lt=moment)
