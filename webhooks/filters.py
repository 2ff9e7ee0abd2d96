"""Event and webhook endpoint filters (SPEC §4, §8 event)."""

import django_filters

from jobcost.api.filters import JobcostFilterSet
from webhooks.catalogue import CATALOGUE
from webhooks.models import EndpointStatus, Event, WebhookEndpoint


class EventFilter(JobcostFilterSet):
    """`type` must be a catalogue type (else 400 `parameter_invalid`)."""

    type = django_filters.ChoiceFilter(choices=[(t, t) for t in sorted(CATALOGUE)])
    project = django_filters.CharFilter(field_name="project_id")

    class Meta:
        model = Event
        fields = []


class WebhookEndpointFilter(JobcostFilterSet):
    status = django_filters.ChoiceFilter(choices=EndpointStatus.choices)

    class Meta:
        model = WebhookEndpoint
        fields = []
