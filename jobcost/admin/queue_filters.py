"""List filters for the dashboard's work queues that are not a plain field value: RFIs past
their due date, webhook endpoints failing or disabled. Each exposes its rule as `matching`
(a Q), so the dashboard's count and the filtered list are the same rows."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Q
from django.utils import timezone

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
