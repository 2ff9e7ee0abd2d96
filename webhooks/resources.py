"""The webhooks' entries in the resource table (`jobcost.resources`, docs/resources.md):
webhook endpoints and events. Neither is an event's `data.object`."""

from jobcost.resources import Resource, register
from webhooks import selectors
from webhooks.models import Event, WebhookEndpoint

ENDPOINT = Resource(
    WebhookEndpoint,
    selectors.endpoint_list,
    "webhooks.serializers.WebhookEndpointSerializer",
    project_field=None,
)
EVENT = Resource(Event, selectors.event_list, "webhooks.serializers.EventSerializer")

register(ENDPOINT, EVENT)
