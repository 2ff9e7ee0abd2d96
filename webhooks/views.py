"""/v1/webhooks (admin-role keys only) and /v1/events (rules in `webhooks.services`)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from audit.ids import has_prefix
from jobcost.api.expand import parse_expand
from jobcost.api.filters import reject_unknown_params
from jobcost.api.schema import ERROR_CODES_KEY
from jobcost.api.viewsets import JobcostViewSet
from jobcost.error_codes import RequestErrorCode, ResourceErrorCode
from jobcost.errors import NotFound
from jobcost.serializers.commitments import EmptySerializer
from jobcost.views.audit import AuditTrailMixin
from jobcost.views.docs import (
    action_doc,
    create_doc,
    expand_parameter,
    list_doc,
    retrieve_doc,
    update_doc,
)
from webhooks import selectors, services, withheld
from webhooks.errors import WebhookErrorCode
from webhooks.filters import EventFilter, WebhookEndpointFilter
from webhooks.serializers import (
    EventSerializer,
    WebhookDeliverySerializer,
    WebhookEndpointCreateSerializer,
    WebhookEndpointDeletedSerializer,
    WebhookEndpointSerializer,
    WebhookEndpointUpdateSerializer,
)

DELIVERY_ID = OpenApiParameter(
    "delivery_id",
    {"type": "string", "example": "wd_…"},
    OpenApiParameter.PATH,
    description="The delivery's ID (`wd_…`), one of this endpoint's; otherwise 404.",
)


class WebhookEndpointViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = WebhookEndpointSerializer
    filterset_class = WebhookEndpointFilter
    # The 2xx descriptions in the schema (jobcost.api.schema.JobcostAutoSchema).
    success_texts = {
        "create": "The new webhook endpoint, with its full signing secret (shown this once).",
        "rotate_secret": "The webhook endpoint, with its new signing secret (shown this once).",
        "destroy": "The deletion confirmation.",
        "deliveries": "A page of the endpoint's deliveries, newest first.",
        "retry_delivery": "The delivery, pending again.",
    }

    def body_to_store(self, body: str) -> str:
        return withheld.withhold(body)

    def body_to_replay(self, stored: str) -> str:
        return withheld.restore(stored)

    def revealing(self, endpoint, status: int = 200) -> Response:
        """Render with the full secret (create and rotate-secret only)."""
        self.reveal_secret = True
        return self.render(endpoint, status=status)

    def get_serializer_context(self):
        context = super().get_serializer_context()
        context["reveal_secret"] = getattr(self, "reveal_secret", False)
        return context

    @list_doc(WebhookEndpointSerializer, "List webhook endpoints (secrets masked)")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(WebhookEndpointSerializer, "Retrieve a webhook endpoint (secret masked)")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(
        WebhookEndpointCreateSerializer,
        WebhookEndpointSerializer,
        "Create a webhook endpoint",
        description="The response holds the full signing `secret`, shown this once.",
        errors={400: (WebhookErrorCode.URL_INVALID, RequestErrorCode.API_VERSION_UNKNOWN)},
    )
    def create(self, request, *args, **kwargs):
        data = self.parse(WebhookEndpointCreateSerializer)
        data.setdefault("api_version", request.auth.api_version)
        endpoint = services.endpoint_create(account_id=self.scope.account_id, **data)
        return self.revealing(endpoint, status=201)

    @update_doc(
        WebhookEndpointUpdateSerializer,
        WebhookEndpointSerializer,
        "Update a webhook endpoint",
        errors={400: (WebhookErrorCode.URL_INVALID,)},
    )
    def partial_update(self, request, *args, **kwargs):
        endpoint = self.get_object()
        data = self.parse(WebhookEndpointUpdateSerializer)
        return self.render(services.endpoint_update(endpoint_id=endpoint.pk, changes=dict(data)))

    @extend_schema(
        summary="Delete a webhook endpoint",
        description="Its pending deliveries are cancelled at once; it disappears from the API.",
        responses={200: WebhookEndpointDeletedSerializer},
        parameters=expand_parameter(WebhookEndpointSerializer, is_list=False),
    )
    def destroy(self, request, *args, **kwargs):
        endpoint = self.get_object()
        reject_unknown_params(request.query_params)
        self.expand_paths(is_list=False)
        services.endpoint_delete(endpoint_id=endpoint.pk)
        return Response({"id": endpoint.pk, "object": "webhook_endpoint", "deleted": True})

    @action_doc(
        WebhookEndpointSerializer,
        "Rotate the signing secret",
        EmptySerializer,
        description="The new secret is shown this once; the old one keeps signing for 24 h.",
    )
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    def rotate_secret(self, request, *args, **kwargs):
        endpoint = self.get_object()
        self.parse(EmptySerializer)
        return self.revealing(services.endpoint_rotate_secret(endpoint_id=endpoint.pk))

    @extend_schema(
        summary="List the endpoint's deliveries, newest first, with every attempt",
        description="Takes `limit` and `cursor`; no filters.",
        responses={200: WebhookDeliverySerializer(many=True)},
        parameters=expand_parameter(WebhookDeliverySerializer, is_list=True),
        filters=False,
        extensions={
            ERROR_CODES_KEY: {
                "400": (
                    RequestErrorCode.PARAMETER_INVALID,
                    RequestErrorCode.PARAMETER_UNKNOWN,
                    RequestErrorCode.CURSOR_INVALID,
                )
            }
        },
    )
    @action(detail=True, methods=["get"])
    def deliveries(self, request, *args, **kwargs):
        endpoint = self.get_object()
        return self.render_list(
            selectors.delivery_list(endpoint), serializer_class=WebhookDeliverySerializer
        )

    @extend_schema(
        summary="Re-send a failed or cancelled delivery",
        description="A new series of attempts starts now (the attempt log keeps the old ones).",
        request=EmptySerializer,
        responses={200: WebhookDeliverySerializer},
        parameters=[DELIVERY_ID, *expand_parameter(WebhookDeliverySerializer, is_list=False)],
        filters=False,
        extensions={ERROR_CODES_KEY: {"409": (ResourceErrorCode.INVALID_STATE_TRANSITION,)}},
    )
    @action(
        detail=True,
        methods=["post"],
        url_path=r"deliveries/(?P<delivery_id>[^/]+)/retry",
        url_name="delivery-retry",
    )
    def retry_delivery(self, request, *args, delivery_id=None, **kwargs):
        endpoint = self.get_object()
        self.parse(EmptySerializer)
        reject_unknown_params(request.query_params)
        parse_expand(request.query_params, WebhookDeliverySerializer, is_list=False)
        delivery = None
        if has_prefix(delivery_id, "wd"):
            delivery = selectors.delivery_list(endpoint).filter(pk=delivery_id).first()
        if delivery is None:
            raise NotFound(f"No such webhook delivery: '{delivery_id}'.", param="delivery_id")
        services.delivery_resend(delivery_id=delivery.pk)
        fresh = selectors.delivery_list(endpoint).get(pk=delivery.pk)
        return Response(WebhookDeliverySerializer(fresh).data)


class EventViewSet(JobcostViewSet):
    serializer_class = EventSerializer
    filterset_class = EventFilter

    @list_doc(EventSerializer, "List events (kept 30 days)")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(EventSerializer, "Retrieve an event")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)
