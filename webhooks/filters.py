"""Event and webhook endpoint filters (docs/conventions.md, §8 event)."""

import django_filters

from jobcost.api.filters import JobcostFilterSet, ProjectChildFilterSet
from webhooks.catalogue import CATALOGUE
from webhooks.models import EndpointStatus, Event, WebhookEndpoint


class EventFilter(ProjectChildFilterSet):
    """`type` must be a catalogue type (else 400 `parameter_invalid`)."""

    type = django_filters.ChoiceFilter(choices=[(t, t) for t in sorted(CATALOGUE)])

    class Meta:
        model = Event
        fields: list[str] = []


class WebhookEndpointFilter(JobcostFilterSet):
    status = django_filters.ChoiceFilter(choices=EndpointStatus.choices)

    class Meta:
        model = WebhookEndpoint
        fields: list[str] = []
