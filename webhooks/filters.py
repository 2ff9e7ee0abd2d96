"""Event and delivery filters (SPEC §4, §8 event)."""

import django_filters

from jobcost.api.filters import JobcostFilterSet
from webhooks.models import DeliveryStatus, Event, WebhookDelivery, WebhookEndpoint


class EventFilter(JobcostFilterSet):
    type = django_filters.CharFilter(field_name="type")
    project = django_filters.CharFilter(field_name="project_id")

    class Meta:
        model = Event
        fields = []


class WebhookEndpointFilter(JobcostFilterSet):
    class Meta:
        model = WebhookEndpoint
        fields = []


class DeliveryFilter(JobcostFilterSet):
    status = django_filters.ChoiceFilter(choices=DeliveryStatus.choices)

    class Meta:
        model = WebhookDelivery
        fields = []
