"""AP aging and retainage (docs/reports.md, "AP aging" and "Retainage").

AP aging, per vendor and currency at the end of `as_of`: the net amount (amount − retainage)
of every invoice approved by then, dated on or before the day and not paid by its end, in the
bucket of its days past due — `current` (not yet due), `days_1_30`, `days_31_60`,
`days_61_90`, `days_over_90` — counted from its due date, or from its invoice date + 30 days
when it has none; `total` is their sum; `retainage_held` is the retainage withheld on all
that vendor's invoices approved by then (paid or not: retainage is released separately).

Retainage: per project, the retainage the owner holds (receivable): G702 line 5 (line 4 −
line 6) of the pay app billing the day; per commitment, the retainage withheld from its
vendor (payable): Σ `retainage_amount` of its invoices approved by then.
"""

from __future__ import annotations

import datetime

from django.db.models import F

from jobcost.models import Invoice, Project
from jobcost.scope import Scope
from jobcost.selectors.commitments import RETAINAGE_HELD
from jobcost.selectors.reports.as_of import billing_pay_apps, end_of, existing
from jobcost.selectors.reports.budget_then import POSTED_STATUSES
from jobcost.selectors.reports.table import (
    ID,
    INTEGER,
    TEXT,
    Column,
    Report,
    ReportSpec,
    money,
    project_columns,
)

NET_30 = datetime.timedelta(days=30)
BUCKETS = ("current", "days_1_30", "days_31_60", "days_61_90", "days_over_90")

AP_AGING = ReportSpec(
    name="ap-aging",
    title="AP aging",
    columns=(
        Column("vendor", ID, "Vendor ID", "The vendor's ID (`vnd_…`)."),
        Column("vendor_name", TEXT, "Vendor"),
        Column("currency", TEXT, "Currency"),
        money("current", "Current", "Not yet past due."),
        money("days_1_30", "1–30 days", "1 to 30 days past due."),
        money("days_31_60", "31–60 days"),
        money("days_61_90", "61–90 days"),
        money("days_over_90", "Over 90 days"),
        money("total", "Total unpaid", "Σ of the five buckets (net of retainage)."),
        money("retainage_held", "Retainage held", "Withheld on the vendor's invoices."),
        Column("invoices", INTEGER, "Unpaid invoices", "How many invoices the buckets hold."),
    ),
    summed=(*BUCKETS, "total", "retainage_held"),
    key=("vendor_name", "vendor", "currency"),
)


def bucket(days_past_due: int) -> str:
    """The aging bucket of an invoice `days_past_due` days past its due date."""
    if days_past_due <= 0:
        return "current"
    if days_past_due <= 30:
        return "days_1_30"
    if days_past_due <= 60:
        return "days_31_60"
    if days_past_due <= 90:
        return "days_61_90"
    return "days_over_90"


def _approved_invoices(scope: Scope, as_of: datetime.date, project: str | None, vendor):
    invoices = scope.filter(Invoice.objects.all()).filter(
        status__in=POSTED_STATUSES, invoice_date__lte=as_of, approved_at__lt=end_of(as_of)
    )
    if project is not None:
        invoices = invoices.filter(project_id=project)
    if vendor is not None:
        invoices = invoices.filter(vendor_id=vendor)
    return invoices


def ap_aging_report(
    scope: Scope, *, as_of: datetime.date, project: str | None = None, vendor: str | None = None
) -> Report:
    """The AP aging at the end of `as_of`: a row per vendor and currency with money unpaid or
    retainage held. One query."""
    moment = end_of(as_of)
    invoices = _approved_invoices(scope, as_of, project, vendor).values(
        "vendor_id",
        "amount",
        "retainage_amount",
        "invoice_date",
        "due_date",
        "paid_at",
        vendor_name=F("vendor__name"),
        currency=F("project__currency"),
    )
    rows: dict[tuple[str, str], dict] = {}
    for invoice in invoices:
        key = (invoice["vendor_id"], invoice["currency"])
        row = rows.get(key)
        if row is None:
            row = rows[key] = {
                "vendor": invoice["vendor_id"],
                "vendor_name": invoice["vendor_name"],
                "currency": invoice["currency"],
                **dict.fromkeys((*BUCKETS, "total", "retainage_held", "invoices"), 0),
            }
        row["retainage_held"] += invoice["retainage_amount"]
        if invoice["paid_at"] is not None and invoice["paid_at"] < moment:
            continue
        net = invoice["amount"] - invoice["retainage_amount"]
        due = invoice["due_date"] or invoice["invoice_date"] + NET_30
        row[bucket((as_of - due).days)] += net
        row["total"] += net
        row["invoices"] += 1
    kept = [row for row in rows.values() if row["total"] or row["retainage_held"]]
    return Report(AP_AGING, as_of, kept, filters={"project": project, "vendor": vendor})


RETAINAGE = ReportSpec(
    name="retainage",
    title="Retainage",
    columns=(
        Column(
            "type",
            TEXT,
            "Type",
            "`receivable` (held by the owner, per project) or `payable` (withheld from a "
            "vendor, per commitment).",
        ),
        *project_columns(),
        Column("pay_app", ID, "Pay app ID", "Receivable: the pay app it is read from.", True),
        Column("pay_app_number", INTEGER, "Pay app", "Receivable: its number.", True),
        Column("commitment", ID, "Commitment ID", "Payable: the commitment (`cmt_…`).", True),
        Column("commitment_number", TEXT, "Commitment", "Payable: its number.", True),
        Column("vendor", ID, "Vendor ID", "Payable: the vendor (`vnd_…`).", True),
        Column("vendor_name", TEXT, "Vendor", "Payable: the vendor's name.", True),
        Column("currency", TEXT, "Currency"),
        money("retainage_receivable", "Retainage receivable", "Held by the owner."),
        money("retainage_payable", "Retainage payable", "Withheld from the vendor."),
    ),
    summed=("retainage_receivable", "retainage_payable"),
    key=("project_number", "project", "type", "commitment_number", "commitment"),
    derived=(money("net_retainage", "Net retainage", "Receivable − payable."),),
    derive=lambda totals: {
        "net_retainage": totals["retainage_receivable"] - totals["retainage_payable"]
    },
)


def _receivable_rows(projects: dict[str, Project], as_of: datetime.date) -> list[dict]:
    rows = []
    for project_id, pay_app in billing_pay_apps(projects, as_of).items():
        held = pay_app["total_completed"] - pay_app["earned_less_retainage"]
        if not held:
            continue
        project = projects[project_id]
        rows.append(
            {
                "type": "receivable",
                "project": project.pk,
                "project_number": project.number,
                "project_name": project.name,
                "pay_app": pay_app["id"],
                "pay_app_number": pay_app["number"],
                "commitment": None,
                "commitment_number": None,
                "vendor": None,
                "vendor_name": None,
                "currency": project.currency,
                "retainage_receivable": held,
                "retainage_payable": 0,
            }
        )
    return rows


def retainage_report(
    scope: Scope, *, as_of: datetime.date, project: str | None = None, vendor: str | None = None
) -> Report:
    """Retainage receivable per project and payable per commitment at the end of `as_of`
    (with `vendor`, only that vendor's payable rows). Three queries."""
    projects = existing(scope.filter(Project.objects.all(), "id"), end_of(as_of))
    if project is not None:
        projects = projects.filter(pk=project)
    by_id = {p.pk: p for p in projects}
    rows = [] if vendor is not None else _receivable_rows(by_id, as_of)
    payable = (
        _approved_invoices(scope, as_of, project, vendor)
        .filter(project_id__in=list(by_id))
        .values(
            "project_id",
            "commitment_id",
            "commitment__number",
            "vendor_id",
            "vendor__name",
        )
        .annotate(held=RETAINAGE_HELD)
        .filter(held__gt=0)
        .order_by()
    )
    for row in payable:
        owner = by_id[row["project_id"]]
        rows.append(
            {
                "type": "payable",
                "project": owner.pk,
                "project_number": owner.number,
                "project_name": owner.name,
                "pay_app": None,
                "pay_app_number": None,
                "commitment": row["commitment_id"],
                "commitment_number": row["commitment__number"],
                "vendor": row["vendor_id"],
                "vendor_name": row["vendor__name"],
                "currency": owner.currency,
                "retainage_receivable": 0,
                "retainage_payable": row["held"],
            }
        )
    return Report(RETAINAGE, as_of, rows, filters={"project": project, "vendor": vendor})
