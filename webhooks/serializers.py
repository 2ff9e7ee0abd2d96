"""Webhook endpoint, event and delivery shapes (docs/resources.md)."""

from django.core.validators import ProhibitNullCharactersValidator
from rest_framework import serializers

from jobcost.api.fields import BoundedListField
from jobcost.api.serializers import ConstField, InputSerializer, ResourceSerializer
from jobcost.limits import WEBHOOK_EVENTS_MAX
from webhooks.catalogue import CATALOGUE
from webhooks.models import DeliveryStatus, EndpointStatus
from webhooks.resources import ENDPOINT, EVENT
from webhooks.urlguard import MAX_URL_LENGTH
from webhooks.versions import render_payload

# The event types of the catalogue, for the schema's `EventTypeEnum` (ENUM_NAME_OVERRIDES).
EVENT_TYPES = sorted(CATALOGUE)


class WebhookEndpointSerializer(ResourceSerializer):
    """`secret` is shown in full only in the create and rotate-secret responses (the view
    sets `reveal_secret`), masked as `whsec_…abcd` everywhere else."""

    resource = ENDPOINT.object
    url = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    events = serializers.ListField(child=serializers.CharField())
    status = serializers.ChoiceField(choices=EndpointStatus.choices)
    disabled_reason = serializers.CharField(read_only=True, allow_blank=True)
    api_version = serializers.CharField()
    secret = serializers.SerializerMethodField()

    def get_secret(self, endpoint) -> str:
        return endpoint.secret if self.context.get("reveal_secret") else endpoint.secret_masked


class WebhookUrlField(serializers.CharField):
    """A webhook `url` (at most `MAX_URL_LENGTH` characters), passed to the SSRF guard as
    sent: not trimmed, and NUL left to the guard, so that every URL the guard refuses —
    whitespace and control characters included — is one error, 400 `url_invalid`
    (docs/errors.md), not sometimes `parameter_invalid` and sometimes stored trimmed."""

    def __init__(self, **kwargs):
        super().__init__(max_length=MAX_URL_LENGTH, trim_whitespace=False, **kwargs)
        self.validators = [
            v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)
        ]


class WebhookEndpointCreateSerializer(InputSerializer):
    output = WebhookEndpointSerializer
    url = WebhookUrlField()
    events = BoundedListField(
        child=serializers.CharField(max_length=60), min_length=1, max_length=WEBHOOK_EVENTS_MAX
    )
    description = serializers.CharField(max_length=500, required=False, allow_blank=True)
    api_version = serializers.CharField(required=False)


class WebhookEndpointUpdateSerializer(InputSerializer):
    output = WebhookEndpointSerializer
    url = WebhookUrlField(required=False)
    events = BoundedListField(
        child=serializers.CharField(max_length=60),
        min_length=1,
        max_length=WEBHOOK_EVENTS_MAX,
        required=False,
    )
    description = serializers.CharField(max_length=500, required=False, allow_blank=True)
    status = serializers.ChoiceField(choices=EndpointStatus.choices, required=False)


class WebhookEndpointDeletedSerializer(serializers.Serializer):
    """The deletion confirmation: `{"id", "object": "webhook_endpoint", "deleted": true}`."""

    id = serializers.CharField()
    object = ConstField("webhook_endpoint")
    deleted = serializers.BooleanField()


class EventDataSerializer(serializers.Serializer):
    """`data` of an event: the object after the change, and the previous values of the fields
    that changed (null on a creation)."""

    object = serializers.DictField(help_text="The object as a GET returned it after the change.")
    previous_attributes = serializers.DictField(
        allow_null=True,
        help_text="The changed fields' values before the change; null when it was created.",
    )


class EventRequestSerializer(serializers.Serializer):
    """The API request that made the change."""

    id = serializers.CharField(help_text="Its `req_` ID (the `Request-Id` header).")
    idempotency_key = serializers.CharField(allow_null=True)


class EventSerializer(serializers.Serializer):
    """The event object, also the webhook payload (docs/resources.md, event)."""

    # Not a `ResourceSerializer` (an event has no audit trail or `updated_at`): the same
    # attributes, from its table entry.
    object_name, collection = EVENT.object, EVENT.collection
    selector = staticmethod(EVENT.selector)
    expandable: dict = {}

    def to_representation(self, event):
        return render_payload(event, event.api_version)

    id = serializers.CharField()
    object = ConstField("event")
    type = serializers.ChoiceField(choices=EVENT_TYPES)
    api_version = serializers.CharField()
    created_at = serializers.DateTimeField()
    project = serializers.CharField(allow_null=True)
    data = EventDataSerializer()
    request = EventRequestSerializer(
        allow_null=True, help_text="Null for changes made by the system or in the admin."
    )


class WebhookAttemptSerializer(serializers.Serializer):
    """One POST of a delivery: when, how long (milliseconds), the response status (null when
    none came back) and the error (timeout, connection, `url_refused: …`)."""

    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    duration_ms = serializers.IntegerField()
    response_status = serializers.IntegerField(allow_null=True)
    error = serializers.CharField(allow_blank=True)
    succeeded = serializers.BooleanField()


class WebhookDeliverySerializer(serializers.Serializer):
    """docs/resources.md, webhook delivery, with every attempt."""

    id = serializers.CharField()
    object = ConstField("webhook_delivery")
    endpoint = serializers.CharField(source="endpoint_id")
    event = serializers.CharField(source="event_id")
    event_type = serializers.CharField(source="event.type")
    status = serializers.ChoiceField(choices=DeliveryStatus.choices)
    attempts = serializers.IntegerField()
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    last_response_status = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField(allow_blank=True)
    attempt_log = WebhookAttemptSerializer(many=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
