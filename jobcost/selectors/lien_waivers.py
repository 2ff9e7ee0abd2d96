"""Which lien waivers a pay app is missing: the project's waivers whose through date falls in
the pay app's period and that are not received (docs/money-flow.md, "Lien waivers").
`missing_in_period` is the rule as a query, for every read that filters or counts in SQL (the submit
service, the dashboard, the back office's filter); `missing_vendor_ids` is its one Python twin, for
pay apps whose waivers are already loaded."""

from __future__ import annotations

from django.db.models import Q

from jobcost.models import LienWaiver, LienWaiverStatus, PayApp, Vendor


def missing_in_period(project_id, period_start, period_end) -> Q:
    """The rule as a Q on lien waivers: the project's, with `through_date` within the period
    (both ends included), not `received`. Each argument is a value or an `OuterRef`."""
    return Q(
        project_id=project_id,
        through_date__gte=period_start,
        through_date__lte=period_end,
    ) & ~Q(status=LienWaiverStatus.RECEIVED)


def missing_vendor_ids(waivers, pay_app: PayApp) -> list[str]:
    """Vendor IDs (sorted, distinct) with a waiver dated in the pay app's period that is not
    `received`: `missing_in_period` over `waivers`, the project's waivers already loaded
    (e.g. prefetched)."""
    return sorted(
        {
            w.vendor_id
            for w in waivers
            if w.status != LienWaiverStatus.RECEIVED
            and pay_app.period_start <= w.through_date <= pay_app.period_end
        }
    )


def waivers_missing(pay_app: PayApp):
    """The pay app's missing lien waivers (a QuerySet, `missing_in_period`)."""
    return LienWaiver.objects.filter(
        missing_in_period(pay_app.project_id, pay_app.period_start, pay_app.period_end)
    )


def vendors_missing_waivers(pay_app: PayApp) -> list[Vendor]:
    """The vendors themselves, by name, for messages and the audit note."""
    ids = waivers_missing(pay_app).values_list("vendor_id", flat=True)
    return list(Vendor.objects.filter(pk__in=set(ids)).order_by("name", "id"))
