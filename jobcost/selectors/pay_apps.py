"""A loaded pay app's G703 rows and G702 figures, the one rule of G702 line 7, and the owner's
side: what the receipts paid and what remains of the amount certified (docs/computations.md,
"Owner payments")."""

from django.db.models import BigIntegerField, OuterRef, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from jobcost.models import CERTIFIED_STATUSES, PayApp, PayAppPayment
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


def receipts_sum(pay_app=None, **filters) -> Coalesce:
    """Σ `amount` (cents) of a pay app's receipts, 0 when it has none, as an expression:
    of the row's own pay app (`OuterRef("pk")`) when `pay_app` is None, so a list annotates it
    in its one query; `filters` narrow the receipts (`created_at__lt=…` for a past day)."""
    receipts = (
        PayAppPayment.objects.filter(pay_app=OuterRef("pk") if pay_app is None else pay_app)
        .filter(**filters)
        .order_by()
        .values("pay_app")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    big = BigIntegerField()
    return Coalesce(Subquery(receipts, output_field=big), Value(0, output_field=big))


def paid_to_date(pay_app_id: str) -> int:
    """`amount_paid` of one pay app: Σ its receipts (cents). One query."""
    total = PayAppPayment.objects.filter(pay_app_id=pay_app_id).aggregate(total=Sum("amount"))
    return total["total"] or 0


def amount_remaining(amount_certified: int | None, amount_paid: int) -> int | None:
    """`amount_remaining` (cents): the amount certified less the receipts, never below 0;
    None while nothing is certified (a draft or submitted pay app)."""
    if amount_certified is None:
        return None
    return max(amount_certified - amount_paid, 0)
