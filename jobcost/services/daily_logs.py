"""Daily logs: one per project and day, with manpower rows (docs/resources.md, daily_log)."""

from __future__ import annotations

import datetime

from audit.services import record_created
from audit.values import json_value
from jobcost.models import DailyLog, DailyLogManpower, Project
from jobcost.services.common import (
    apply_changes,
    ensure_free,
    ensure_same_account,
    lock,
    lock_open_project,
    save_audited,
    service,
)

WRITABLE = frozenset({"date", "weather", "notes", "delays", "manpower"})


def _ensure_day_free(project_id: str, day: datetime.date, exclude_pk: str | None = None) -> None:
    """409 `resource_already_exists` (param `date`): one log per project and day."""
    ensure_free(
        DailyLog.objects.filter(project_id=project_id, date=day),
        param="date",
        message=f"This project already has a daily log for {day:%Y-%m-%d}; update that one.",
        exclude_pk=exclude_pk,
        name_clash=True,
    )


def _check_manpower(account_id: str, rows: list[dict]) -> None:
    for index, row in enumerate(rows):
        if row.get("vendor") is not None:
            ensure_same_account(
                row["vendor"], account_id, param=f"manpower[{index}].vendor", noun="vendor"
            )


def _manpower_audit(rows: list[dict]) -> list[dict]:
    return [
        {
            "trade": row["trade"],
            "vendor": row["vendor"].pk if row.get("vendor") is not None else None,
            "headcount": row["headcount"],
            "hours": json_value(row["hours"]),
        }
        for row in rows
    ]


def _write_manpower(log: DailyLog, rows: list[dict]) -> None:
    log.manpower.all().delete()
    DailyLogManpower.objects.bulk_create(
        DailyLogManpower(
            daily_log=log,
            position=i,
            trade=row["trade"],
            vendor=row.get("vendor"),
            headcount=row["headcount"],
            hours=row["hours"],
        )
        for i, row in enumerate(rows, start=1)
    )


@service
def daily_log_create(
    *,
    project: Project,
    date: datetime.date,
    weather: str = "",
    manpower: list[dict] | None = None,
    notes: str = "",
    delays: str = "",
) -> DailyLog:
    """Create the log of `date`. `manpower` rows: {`trade`, `vendor` (Vendor or None),
    `headcount` (int ≥ 0), `hours` (Decimal ≥ 0, worker-hours)}. Raises 409 `project_closed`
    and 409 `resource_already_exists` (param `date`) for a second log of the same day.

    Emits: audit daily_log.created; events daily_log.created.
    """
    project = lock_open_project(project.pk)
    _ensure_day_free(project.pk, date)
    rows = manpower or []
    _check_manpower(project.account_id, rows)
    log = DailyLog(
        account_id=project.account_id,
        project=project,
        date=date,
        weather=weather,
        notes=notes,
        delays=delays,
    )
    save_audited(log, defer_created=True)
    _write_manpower(log, rows)
    record_created(log, extra={"manpower": {"before": None, "after": _manpower_audit(rows)}})
    return log


@service
def daily_log_update(*, daily_log_id: str, changes: dict) -> DailyLog:
    """Edit a log: `date` (409 `resource_already_exists` if that day has a log), `weather`,
    `notes`, `delays`, and `manpower` (replaces every row).

    Emits: audit daily_log.updated; events none.
    """
    log = lock(DailyLog, daily_log_id)
    lock_open_project(log.project_id)
    changes = dict(changes)
    rows = changes.pop("manpower", None)
    apply_changes(log, changes, WRITABLE)
    extra = None
    if "date" in changes:
        _ensure_day_free(log.project_id, log.date, exclude_pk=log.pk)
    if rows is not None:
        _check_manpower(log.account_id, rows)
        before = [
            {
                "trade": row.trade,
                "vendor": row.vendor_id,
                "headcount": row.headcount,
                "hours": json_value(row.hours),
            }
            for row in log.manpower.all()
        ]
        extra = {"manpower": {"before": before, "after": _manpower_audit(rows)}}
        _write_manpower(log, rows)
    return save_audited(log, extra=extra)
