"""Webhook endpoints, events and deliveries in the back office (docs/resources.md, §10).

Everything here is state the services and the workers own, so every page is view-only; the
two things an accountant may do go through the same services as the API: enable / disable an
endpoint (`endpoint_update(changes={"status": …})`, as `PATCH /v1/webhooks/{id}`) and re-send a
failed or cancelled delivery (`delivery_resend`). Signing secrets are never shown: only the
masked `whsec_…abcd`. Admin writes are audited with the signed-in user as actor
(`audit.middleware.AdminActorMiddleware`).
"""

from __future__ import annotations

import json

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode

from jobcost.admin.base import (
    ReadOnlyAdmin,
    ReadOnlyInline,
    TransitionActions,
    change_link,
    confirm_each,
    role_allows,
)
from jobcost.admin.display import EMPTY
from jobcost.admin.queue_filters import EndpointAttentionFilter
from webhooks import services
from webhooks.catalogue import CATALOGUE
from webhooks.models import EndpointStatus, Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint


def _pretty_json(value) -> str:
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    return format_html("<pre>{}</pre>", text)


class Labelled:
    """An object named for the action messages (`run_each` prints `<label>: <outcome>`)."""

    def __init__(self, obj, label: str) -> None:
        self.pk = obj.pk
        self.label = label

    def __str__(self) -> str:
        return self.label


def endpoints_labelled(queryset) -> list[Labelled]:
    """`Endpoint <url>` for each selected endpoint."""
    return [Labelled(e, f"Endpoint {e.url}") for e in queryset]


def deliveries_labelled(queryset) -> list[Labelled]:
    """`Delivery wd_… (<event type> → <url>)` for each selected delivery."""
    return [Labelled(d, f"Delivery {d.pk} ({d.event.type} → {d.endpoint.url})") for d in queryset]


class EventTypeFilter(admin.SimpleListFilter):
    """Filter by catalogue type; the choices come from the catalogue, not a scan of the table."""

    title = "event type"
    parameter_name = "type"
    field = "type"

    def lookups(self, request, model_admin):
        return [(name, name) for name in sorted(CATALOGUE)]

    def queryset(self, request, queryset):
        return queryset.filter(**{self.field: self.value()}) if self.value() else queryset


class DeliveryEventTypeFilter(EventTypeFilter):
    """The type of a delivery's event."""

    parameter_name = "event_type"
    field = "event__type"


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(TransitionActions, ReadOnlyAdmin):
    """Endpoints of every account, deleted ones included (their history stays); secrets are
    masked. Enable and disable are actions calling `endpoint_update`."""

    policy_basename = "webhooks"
    scope_project_field = None

    fieldsets = (
        (None, {"fields": ["id", "account", "url", "description", "events_display"]}),
        (
            "State",
            {
                "fields": [
                    "status",
                    "disabled_reason",
                    "failing_since",
                    "slow_since",
                    "deleted_at",
                    "api_version",
                ]
            },
        ),
        (
            "Signing",
            {"fields": ["secret_masked", "previous_secret_display", "previous_secret_expires_at"]},
        ),
        ("Deliveries", {"fields": ["deliveries_link"]}),
        ("Timestamps", {"fields": ["created_at", "updated_at"]}),
    )
    readonly_fields = tuple(name for _title, box in fieldsets for name in box["fields"])
    list_display = (
        "url",
        "account",
        "status",
        "disabled_reason",
        "events_display",
        "api_version",
        "secret_masked",
        "failing_since",
        "deleted_at",
        "created_at",
    )
    list_select_related = ("account",)
    list_filter = (
        "status",
        EndpointAttentionFilter,
        "disabled_reason",
        ("deleted_at", admin.EmptyFieldListFilter),
        "account",
    )
    search_fields = ("url", "description", "=id")
    ordering = ("-created_at", "-id")
    actions = ("enable", "disable")

    @admin.display(description="Events")
    def events_display(self, endpoint: WebhookEndpoint) -> str:
        return ", ".join(endpoint.events)

    @admin.display(description="Secret")
    def secret_masked(self, endpoint: WebhookEndpoint) -> str:
        return endpoint.secret_masked

    @admin.display(description="Previous secret (signs alongside until it expires)")
    def previous_secret_display(self, endpoint: WebhookEndpoint) -> str:
        return f"whsec_…{endpoint.previous_secret[-4:]}" if endpoint.previous_secret else EMPTY

    @admin.display(description="Deliveries")
    def deliveries_link(self, endpoint: WebhookEndpoint) -> str:
        url = reverse("admin:webhooks_webhookdelivery_changelist")
        query = urlencode({"endpoint__id__exact": endpoint.pk})
        return format_html('<a href="{}?{}">Deliveries to this endpoint</a>', url, query)

    @admin.action(description="Enable (and clear the failure clock)…", permissions=["transition"])
    def enable(self, request, queryset):
        return confirm_each(
            self,
            request,
            endpoints_labelled(queryset),
            lambda e: services.endpoint_update(
                endpoint_id=e.pk, changes={"status": EndpointStatus.ENABLED}
            ),
            "enabled",
            title="Enable webhook endpoints",
            explain="Each endpoint receives new events again, and its failure clock starts over.",
        )

    @admin.action(
        description="Disable (cancels pending deliveries at once)…", permissions=["transition"]
    )
    def disable(self, request, queryset):
        return confirm_each(
            self,
            request,
            endpoints_labelled(queryset),
            lambda e: services.endpoint_update(
                endpoint_id=e.pk, changes={"status": EndpointStatus.DISABLED}
            ),
            "disabled; its pending deliveries are cancelled",
            title="Disable webhook endpoints",
            explain="Each endpoint stops receiving events, and its pending deliveries are "
            "cancelled at once.",
        )


class EventDeliveryInline(ReadOnlyInline):
    show_change_link = True
    """Where the event went: one delivery per subscribed endpoint."""

    model = WebhookDelivery
    fields = readonly_fields = (
        "endpoint",
        "status",
        "attempts",
        "next_attempt_at",
        "last_response_status",
    )

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("endpoint")


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    """The outbox: one row per state change, its payload data and its deliveries."""

    policy_basename = "events"

    fields = (
        "id",
        "type",
        "account",
        "project_id",
        "object_id",
        "api_version",
        "request_id",
        "idempotency_key",
        "created_at",
        "data_display",
    )
    readonly_fields = fields
    list_display = ("created_at", "type", "object_id", "project_id", "account", "request_id")
    list_select_related = ("account",)
    list_filter = (EventTypeFilter, "account")
    search_fields = ("=id", "=object_id", "type", "=request_id")
    ordering = ("-created_at", "-id")
    show_full_result_count = False
    inlines = (EventDeliveryInline,)

    def get_inlines(self, request, obj):
        # Deliveries are the webhook endpoints' (the admin role's, as in the API).
        return self.inlines if role_allows(request, "webhooks", "retrieve") else ()

    @admin.display(description="Data (object and previous attributes)")
    def data_display(self, event: Event) -> str:
        return _pretty_json(event.data)


class AttemptInline(ReadOnlyInline):
    show_change_link = True
    """Every POST of the delivery: when, how long, what came back."""

    model = WebhookAttempt
    show_change_link = False
    fields = readonly_fields = (
        "number",
        "started_at",
        "duration_ms",
        "response_status",
        "succeeded",
        "error",
    )


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(TransitionActions, ReadOnlyAdmin):
    """Deliveries with their attempts; failed or cancelled ones can be re-sent."""

    # `GET /v1/webhooks/{id}/deliveries`, `POST …/deliveries/{id}/retry`: the admin role's.
    policy_basename = "webhooks"
    scope_project_field = None

    fields = (
        "id",
        "account",
        "event_link",
        "event_type",
        "event_object",
        "endpoint_link",
        "status",
        "attempts",
        "next_attempt_at",
        "last_response_status",
        "last_error",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields
    list_display = (
        "id",
        "event_type",
        "event_object",
        "endpoint_url",
        "account",
        "status",
        "attempts",
        "last_response_status",
        "next_attempt_at",
        "created_at",
    )
    list_select_related = ("event", "endpoint", "account")
    list_filter = ("status", DeliveryEventTypeFilter, "account")
    search_fields = ("endpoint__url", "event__type", "=event__object_id", "=event__id", "=id")
    ordering = ("-created_at", "-id")
    show_full_result_count = False
    inlines = (AttemptInline,)
    actions = ("resend",)

    def get_queryset(self, request):
        # The list never shows the event's data or the endpoint's secrets: leave them behind.
        return (
            super()
            .get_queryset(request)
            .select_related(*self.list_select_related)
            .defer("event__data", "endpoint__secret", "endpoint__previous_secret")
        )

    @admin.display(description="Event type", ordering="event__type")
    def event_type(self, delivery: WebhookDelivery) -> str:
        return delivery.event.type

    @admin.display(description="Object")
    def event_object(self, delivery: WebhookDelivery) -> str:
        return delivery.event.object_id

    @admin.display(description="Endpoint", ordering="endpoint__url")
    def endpoint_url(self, delivery: WebhookDelivery) -> str:
        return delivery.endpoint.url

    @admin.display(description="Event")
    def event_link(self, delivery: WebhookDelivery) -> str:
        return change_link(Event, delivery.event_id)

    @admin.display(description="Endpoint")
    def endpoint_link(self, delivery: WebhookDelivery) -> str:
        return change_link(WebhookEndpoint, delivery.endpoint_id, delivery.endpoint.url)

    @admin.action(
        description="Re-send (failed or cancelled → pending, now)…", permissions=["transition"]
    )
    def resend(self, request, queryset):
        return confirm_each(
            self,
            request,
            deliveries_labelled(queryset),
            lambda d: services.delivery_resend(delivery_id=d.pk),
            "queued again (pending)",
            title="Re-send webhook deliveries",
            explain="Each failed or cancelled delivery is queued again and sent now, with a "
            "new attempt count.",
        )
