"""Webhook endpoint, event and delivery shapes (SPEC §8)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from jobcost.api.serializers import ConstField, InputSerializer, ResourceSerializer
from webhooks import selectors
from webhooks.models import DeliveryStatus, EndpointStatus
from webhooks.versions import render_payload


class WebhookEndpointSerializer(ResourceSerializer):
    """`secret` is shown in full only in the create and rotate-secret responses (the view
    sets `reveal_secret`), masked as `whsec_…abcd` everywhere else."""

    object_name, collection = "webhook_endpoint", "webhooks"
    selector = staticmethod(selectors.endpoint_list)

    url = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    events = serializers.ListField(child=serializers.CharField())
    status = serializers.ChoiceField(choices=EndpointStatus.choices)
    disabled_reason = serializers.CharField(read_only=True, allow_blank=True)
    api_version = serializers.CharField()
    secret = serializers.SerializerMethodField()

    def get_secret(self, endpoint) -> str:
        return endpoint.secret if self.context.get("reveal_secret") else endpoint.secret_masked


class WebhookEndpointCreateSerializer(InputSerializer):
    output = WebhookEndpointSerializer
    url = serializers.CharField(max_length=2000)
    events = serializers.ListField(child=serializers.CharField(max_length=60), allow_empty=False)
    description = serializers.CharField(max_length=500, required=False, allow_blank=True)
    api_version = serializers.CharField(required=False)


class WebhookEndpointUpdateSerializer(InputSerializer):
    output = WebhookEndpointSerializer
    url = serializers.CharField(max_length=2000, required=False)
    events = serializers.ListField(
        child=serializers.CharField(max_length=60), allow_empty=False, required=False
    )
    description = serializers.CharField(max_length=500, required=False, allow_blank=True)
    status = serializers.ChoiceField(choices=EndpointStatus.choices, required=False)


class DeletedSerializer(serializers.Serializer):
    """The deletion confirmation."""

    id = serializers.CharField()
    object = serializers.CharField()
    deleted = serializers.BooleanField()


class EventSerializer(serializers.Serializer):
    """The event object, also the webhook payload (SPEC §8 event)."""

    object_name, collection = "event", "events"
    selector = staticmethod(selectors.event_list)
    expandable: dict = {}

    def to_representation(self, event):
        return render_payload(event, event.api_version)

    id = serializers.CharField()
    object = ConstField("event")
    type = serializers.CharField()
    api_version = serializers.CharField()
    created_at = serializers.DateTimeField()
    project = serializers.CharField(allow_null=True)
    data = serializers.JSONField()
    request = serializers.JSONField(allow_null=True)


class AttemptSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    duration_ms = serializers.IntegerField()
    response_status = serializers.IntegerField(allow_null=True)
    error = serializers.CharField(allow_blank=True)
    succeeded = serializers.BooleanField()


class DeliverySerializer(serializers.Serializer):
    """SPEC §8 webhook delivery, with every attempt."""

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
    attempt_log = AttemptSerializer(many=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    @extend_schema_field({"type": "string"})
    def get_event_type(self, delivery) -> str:
        return delivery.event.type
