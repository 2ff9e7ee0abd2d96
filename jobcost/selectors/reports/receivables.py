"""AR aging (docs/reports.md, "AR aging"): what owners owe, per project and currency, at the end
of `as_of`.

Each pay app certified by then (approved by the end of the day: `approved_at`) owes its
`amount_certified` less the receipts recorded by then (`created_at`), nothing once it was
paid by then (`paid_at`: receipts reaching the certificate, or marked paid); what it owes lands
in the bucket of its days since certification (`as_of − certified_on`): `current` (certified
that day), `days_1_30`, `days_31_60`, `days_61_90`, `days_over_90`. `total` is their sum and
`pay_apps` how many certificates they hold. `retainage_held` is the retainage the owner holds
on the billing (G702 line 5 of the pay app billing the day, `billing_pay_apps`): not yet
certified for payment, so outside the buckets. Counting what was recorded by the end of the
day, not what is dated by it, keeps a past month-end from moving when a late receipt or
certificate is entered.
"""

from __future__ import annotations

import datetime

from django.db.models import F

from jobcost.models import OWNER_CERTIFIED, PayApp, Project
from jobcost.scope import Scope
from jobcost.selectors.pay_apps import receipts_sum
from jobcost.selectors.reports.as_of import billing_pay_apps, end_of, existing
from jobcost.selectors.reports.payables import BUCKETS, bucket
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

AR_AGING = ReportSpec(
    name="ar-aging",
    title="AR aging",
    columns=(
        *project_columns(),
        Column("owner", ID, "Owner ID", "The owner's ID (`own_…`)."),
        Column("owner_name", TEXT, "Owner"),
        Column("currency", TEXT, "Currency"),
        money("current", "Current", "Certified on the day."),
        money("days_1_30", "1–30 days", "Certified 1 to 30 days before the day."),
        money("days_31_60", "31–60 days", "Certified 31 to 60 days before the day."),
        money("days_61_90", "61–90 days", "Certified 61 to 90 days before the day."),
        money("days_over_90", "Over 90 days", "Certified more than 90 days before the day."),
        money("total", "Total owed", "Σ of the five buckets: certified and not yet received."),
        money(
            "retainage_held",
            "Retainage held",
            "G702 line 5 of the pay app billing the day: held by the owner until released, "
            "not in the buckets.",
        ),
        Column("pay_apps", INTEGER, "Unpaid pay apps", "How many certificates the buckets hold."),
    ),
    summed=(*BUCKETS, "total", "retainage_held"),
    key=("project_number", "project", "currency"),
)


def ar_aging_report(
    scope: Scope, *, as_of: datetime.date, project: str | None = None, owner: str | None = None
) -> Report:
    """The AR aging at the end of `as_of`: a row per project (with its owner) that owes on a
    certificate or has retainage held. `project` and `owner` narrow it. Three queries."""
    moment = end_of(as_of)
    projects = existing(scope.filter(Project.objects.all(), "id"), moment)
    if project is not None:
        projects = projects.filter(pk=project)
    if owner is not None:
        projects = projects.filter(owner_id=owner)
    found = projects.values(
        "id", "number", "name", "currency", "owner_id", owner_name=F("owner__name")
    )
    by_id = {p["id"]: p for p in found}
    certificates = (
        PayApp.objects.filter(
            project_id__in=list(by_id),
            status__in=OWNER_CERTIFIED,
            approved_at__lt=moment,
        )
        .annotate(received=receipts_sum(created_at__lt=moment))
        .values("project_id", "amount_certified", "certified_on", "paid_at", "received")
    )
    rows: dict[str, dict] = {}

    def row_of(project_id: str) -> dict:
        row = rows.get(project_id)
        if row is None:
            found = by_id[project_id]
            row = rows[project_id] = {
                "project": project_id,
                "project_number": found["number"],
                "project_name": found["name"],
                "owner": found["owner_id"],
                "owner_name": found["owner_name"],
                "currency": found["currency"],
                **dict.fromkeys((*BUCKETS, "total", "retainage_held", "pay_apps"), 0),
            }
        return row

    for certificate in certificates:
        if certificate["paid_at"] is not None and certificate["paid_at"] < moment:
            continue
        owed = max((certificate["amount_certified"] or 0) - certificate["received"], 0)
        if not owed:
            continue
        row = row_of(certificate["project_id"])
        certified_on = certificate["certified_on"] or as_of
        row[bucket((as_of - certified_on).days)] += owed
        row["total"] += owed
        row["pay_apps"] += 1
    for project_id, pay_app in billing_pay_apps(by_id, as_of).items():
        held = pay_app["total_completed"] - pay_app["earned_less_retainage"]
        if held:
            row_of(project_id)["retainage_held"] += held
    return Report(
        AR_AGING, as_of, list(rows.values()), filters={"project": project, "owner": owner}
    )
