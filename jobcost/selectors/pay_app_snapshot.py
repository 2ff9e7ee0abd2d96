"""What a printed pay app says, read once into plain data (docs/documents.md, "The snapshot"):
every name, date and figure the G702/G703 prints, so the document is rendered from this dict
alone and a later rename or status move cannot reach it.

Shape (version 1; JSON: strings, integers, None, lists and dicts only; money in cents, days
ISO `YYYY-MM-DD`, percentages as two-decimal strings):

    {"version": 1, "stage": "draft" | "submitted" | "certified",
     "application": {"number", "date", "period_start", "period_end", "retainage_pct",
                     "currency"},
     "project": {"number", "name", "contract_date" (or None), "architect"},
     "owner": {"name"}, "contractor": {"name"},
     "rows": [{"item", "description", "change_order" (bool), "scheduled_value", "previous",
               "this_period", "materials_stored", "total_completed_and_stored",
               "percent_complete", "balance_to_finish", "retainage"}],
     "totals": {the G703 grand totals, the same keys as a row's figures},
     "g702": {every field of `selectors.g702.G702`},
     "change_orders": {"previous_additions", "previous_deductions", "this_month_additions",
                       "this_month_deductions"},
     "certificate": None | {"amount_certified", "certified_on", "note"}}

The service that stores documents (`services.pay_app_documents`) adds the certificate.
"""

from __future__ import annotations

import dataclasses
import datetime
from decimal import Decimal

from django.utils import timezone

from jobcost.models import ChangeOrder, PayApp, PayAppStatus
from jobcost.money import ratio_pct
from jobcost.selectors.g702 import g702, g703_row
from jobcost.selectors.pay_apps import earlier_certificate

SNAPSHOT_VERSION = 1


def two_places(value: Decimal) -> str:
    """`Decimal("13.3400")` → `"13.34"`; a zero of any sign → `"0.00"` (never `-0.00`)."""
    text = f"{Decimal(value):.2f}"
    return "0.00" if text == "-0.00" else text


def change_order_description(number: str, title: str) -> str:
    """A change-order row's G703 description: `CO-001 — Added storm drainage`."""
    return f"{number} — {title}"


def pay_app_snapshot(pay_app_id: str, *, stage: str | None = None) -> dict:
    """The snapshot of one pay app as it stands now (shape in the module docstring).

    `stage` defaults to `draft` for a draft and `submitted` otherwise; the application date
    is the day it was submitted (today, for a draft), in the site's time zone. Five queries:
    the pay app with its project, owner and account; its lines with their change orders; the
    change orders that landed on it; line 7. Raises `PayApp.DoesNotExist`.

    Emits: none.
    """
    pay_app = PayApp.objects.select_related("project__owner", "project__account").get(pk=pay_app_id)
    project = pay_app.project
    lines = list(pay_app.lines.select_related("change_order").order_by("position"))
    this_month = set(ChangeOrder.objects.filter(pay_app_id=pay_app.pk).values_list("pk", flat=True))
    earlier = earlier_certificate(project.pk, pay_app.number).first()
    previous = (earlier or {}).get("certified_earned_less_retainage") or 0
    rows = [g703_row(line, pay_app.retainage_pct) for line in lines]
    figures = g702(rows, pay_app.retainage_pct, previous)
    draft = pay_app.status == PayAppStatus.DRAFT
    if stage is None:
        stage = "draft" if draft else "submitted"
    day = (
        timezone.localdate()
        if draft or pay_app.submitted_at is None
        else timezone.localdate(pay_app.submitted_at)
    )
    summary = {
        "previous_additions": 0,
        "previous_deductions": 0,
        "this_month_additions": 0,
        "this_month_deductions": 0,
    }
    printed_rows = []
    for line, row in zip(lines, rows, strict=True):
        description = line.description
        if line.change_order is not None:
            description = change_order_description(
                line.change_order.number, line.change_order.title
            )
            when = "this_month" if line.change_order_id in this_month else "previous"
            side = "additions" if row.scheduled_value >= 0 else "deductions"
            summary[f"{when}_{side}"] += row.scheduled_value
        printed_rows.append(
            {
                "item": row.item,
                "description": description,
                "change_order": line.change_order is not None,
                **_figures(row),
            }
        )
    scheduled = sum(r.scheduled_value for r in rows)
    total = sum(r.total_completed_and_stored for r in rows)
    return {
        "version": SNAPSHOT_VERSION,
        "stage": stage,
        "application": {
            "number": pay_app.number,
            "date": day.isoformat(),
            "period_start": pay_app.period_start.isoformat(),
            "period_end": pay_app.period_end.isoformat(),
            "retainage_pct": format(pay_app.retainage_pct.normalize(), "f"),
            "currency": project.currency,
        },
        "project": {
            "number": project.number,
            "name": project.name,
            "contract_date": _iso(project.contract_date),
            "architect": project.architect_name,
        },
        "owner": {"name": project.owner.name},
        "contractor": {"name": project.account.name},
        "rows": printed_rows,
        "totals": {
            "scheduled_value": scheduled,
            "previous": sum(r.previous for r in rows),
            "this_period": sum(r.this_period for r in rows),
            "materials_stored": sum(r.materials_stored for r in rows),
            "total_completed_and_stored": total,
            "percent_complete": two_places(ratio_pct(total, scheduled)),
            "balance_to_finish": sum(r.balance_to_finish for r in rows),
            "retainage": sum(r.retainage for r in rows),
        },
        "g702": dataclasses.asdict(figures),
        "change_orders": summary,
        "certificate": None,
    }


def _figures(row) -> dict:
    return {
        "scheduled_value": row.scheduled_value,
        "previous": row.previous,
        "this_period": row.this_period,
        "materials_stored": row.materials_stored,
        "total_completed_and_stored": row.total_completed_and_stored,
        "percent_complete": two_places(row.percent_complete),
        "balance_to_finish": row.balance_to_finish,
        "retainage": row.retainage,
    }


def _iso(day: datetime.date | None) -> str | None:
    return None if day is None else day.isoformat()
