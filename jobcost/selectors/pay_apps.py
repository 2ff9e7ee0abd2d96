"""A loaded pay app's G703 rows and G702 figures, and the one rule of G702 line 7."""

from django.db.models import QuerySet

from jobcost.models import CERTIFIED_STATUSES, PayApp
from jobcost.selectors.g702 import G702, G703Row, g702, g703_row
from jobcost.selectors.lien_waivers import missing_vendor_ids


def pay_app_rows(pay_app: PayApp) -> list[G703Row]:
    """Rows from the prefetched lines, in item order."""
    return [g703_row(line, pay_app.retainage_pct) for line in pay_app.lines.all()]


def pay_app_figures(pay_app: PayApp) -> G702:
    """G702 lines of a pay app read through `visible.pay_app_list`."""
    return g702(pay_app_rows(pay_app), pay_app.retainage_pct, pay_app.previous_certificates)


def pay_app_missing_waivers(pay_app: PayApp) -> list[str]:
    """`lien_waivers_missing`: vendor IDs with an unreceived waiver in the period."""
    return missing_vendor_ids(pay_app.project.open_waivers, pay_app)


def earlier_certificate(project_id, number) -> QuerySet:
    """G702 line 7's source, the one rule for every read and write: line 6
    (`certified_earned_less_retainage`, cents) of the latest earlier application of the
    project that is submitted, approved or paid, as a one-row `values` queryset. `project_id`
    and `number` are values, or `OuterRef`s when used as a subquery."""
    return (
        PayApp.objects.filter(
            project_id=project_id, number__lt=number, status__in=CERTIFIED_STATUSES
        )
        .order_by("-number")
        .values("certified_earned_less_retainage")[:1]
    )
