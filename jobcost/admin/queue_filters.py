"""List filters for the dashboard's work queues that are not a plain field value: RFIs past
their due date, webhook endpoints failing or disabled. Each exposes its rule as `matching`
(a Q), so the dashboard's count and the filtered list are the same rows."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Q
from django.utils import timezone

from jobcost.models import PayApp, PayAppStatus
from jobcost.selectors.lien_waivers import missing_in_period

YES = "yes"


class OverdueRfiFilter(admin.SimpleListFilter):
    """Open RFIs whose due date has passed (`?overdue=yes`)."""

    title = "overdue"
    parameter_name = "overdue"

    @staticmethod
    def matching() -> Q:
        return Q(status="open", due_date__lt=timezone.localdate())

    def lookups(self, request, model_admin):
        return [(YES, "Open and past due")]

    def queryset(self, request, queryset):
        return queryset.filter(self.matching()) if self.value() == YES else queryset


class MissingForPayAppFilter(admin.SimpleListFilter):
    """The lien waivers a draft pay app still misses (`?missing_for=<pay app ID>`): dated in
    its period and not received — `selectors.lien_waivers.missing_in_period`. The
    choices are the draft pay apps of the rows the user may see."""

    title = "missing for a draft pay app"
    parameter_name = "missing_for"

    @staticmethod
    def matching(pay_app: PayApp) -> Q:
        return missing_in_period(pay_app.project_id, pay_app.period_start, pay_app.period_end)

    def lookups(self, request, model_admin):
        projects = model_admin.get_queryset(request).values("project_id")
        drafts = PayApp.objects.filter(status=PayAppStatus.DRAFT, project_id__in=projects)
        return [
            (pay_app.pk, str(pay_app))
            for pay_app in drafts.select_related("project").order_by("project__number")
        ]

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        pay_app = PayApp.objects.filter(pk=self.value(), status=PayAppStatus.DRAFT).first()
        if pay_app is None:
            return queryset.none()
        # `queryset` is already the user's own rows: another account's pay app matches none.
        return queryset.filter(self.matching(pay_app))


class EndpointAttentionFilter(admin.SimpleListFilter):
    """Webhook endpoints that need someone: disabled, or failing since some time
    (`?attention=yes`); deleted endpoints are not counted."""

    title = "needs attention"
    parameter_name = "attention"

    @staticmethod
    def matching() -> Q:
        return Q(deleted_at__isnull=True) & (Q(status="disabled") | Q(failing_since__isnull=False))

    def lookups(self, request, model_admin):
        return [(YES, "Failing or disabled")]

    def queryset(self, request, queryset):
        return queryset.filter(self.matching()) if self.value() == YES else queryset
