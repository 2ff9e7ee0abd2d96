"""Which vendors' lien waivers a pay app is missing (SPEC §8 lien_waiver, pay_app)."""

from __future__ import annotations

from jobcost.models import LienWaiver, LienWaiverStatus, PayApp, Vendor


def missing_vendor_ids(waivers, pay_app: PayApp) -> list[str]:
    """Vendor IDs (sorted, distinct) with a waiver dated in the pay app's period that is not
    `received`. `waivers` are the project's waivers already loaded (e.g. prefetched)."""
    return sorted(
        {
            w.vendor_id
            for w in waivers
            if w.status != LienWaiverStatus.RECEIVED
            and pay_app.period_start <= w.through_date <= pay_app.period_end
        }
    )


def waivers_missing(pay_app: PayApp):
    """The project's lien waivers dated in the pay app's period that are not `received`
    (a QuerySet; the rule of `missing_vendor_ids` as a query)."""
    return LienWaiver.objects.filter(
        project_id=pay_app.project_id,
        through_date__gte=pay_app.period_start,
        through_date__lte=pay_app.period_end,
    ).exclude(status=LienWaiverStatus.RECEIVED)


def vendors_missing_waivers(pay_app: PayApp) -> list[Vendor]:
    """The vendors themselves, by name, for messages and the audit note."""
    ids = waivers_missing(pay_app).values_list("vendor_id", flat=True)
    return list(Vendor.objects.filter(pk__in=set(ids)).order_by("name", "id"))
