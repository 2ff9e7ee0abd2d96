"""/v1/pay-apps, /v1/pay-apps/{id}/lines and the printed /v1/pay-apps/{id}/pdf (rules in
`services.pay_apps`, the document in `documents.pay_app_pdf`)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action

from jobcost.api.renderers import JobcostJSONRenderer, PDFRenderer
from jobcost.api.viewsets import JobcostViewSet
from jobcost.documents.pay_app_pdf import pay_app_pdf_response
from jobcost.error_codes import (
    PayAppErrorCode,
    ProjectErrorCode,
    RequestErrorCode,
    ResourceErrorCode,
)
from jobcost.errors import InvalidRequest
from jobcost.filters import PayAppFilter
from jobcost.serializers.commitments import EmptySerializer
from jobcost.serializers.pay_apps import (
    PayAppCreateSerializer,
    PayAppLineSerializer,
    PayAppRejectSerializer,
    PayAppSerializer,
    PayAppSubmitSerializer,
    PayAppUpdateSerializer,
)
from jobcost.services import pay_apps
from jobcost.views.audit import AuditTrailMixin
from jobcost.views.docs import (
    action_doc,
    create_doc,
    expand_parameter,
    list_doc,
    retrieve_doc,
    update_doc,
)


class PayAppViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = PayAppSerializer
    filterset_class = PayAppFilter

    @list_doc(PayAppSerializer, "List pay apps")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(PayAppSerializer, "Retrieve a pay app with its G702 totals")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(
        PayAppCreateSerializer,
        PayAppSerializer,
        "Create the next draft pay app",
        errors={
            409: (ProjectErrorCode.PROJECT_CLOSED, PayAppErrorCode.DRAFT_PAY_APP_EXISTS),
            422: (PayAppErrorCode.PERIODS_OVERLAP, PayAppErrorCode.SCHEDULE_OF_VALUES_UNBALANCED),
        },
    )
    def create(self, request, *args, **kwargs):
        data = self.parse(PayAppCreateSerializer)
        return self.render(pay_apps.pay_app_create(**data), status=201)

    @update_doc(
        PayAppUpdateSerializer,
        PayAppSerializer,
        "Enter this period's work",
        errors={
            409: (ProjectErrorCode.PROJECT_CLOSED,),
            422: (
                PayAppErrorCode.PERIOD_LOCKED,
                PayAppErrorCode.EXCEEDS_SCHEDULED_VALUE,
                ProjectErrorCode.AMOUNT_OUT_OF_RANGE,
            ),
        },
    )
    def partial_update(self, request, *args, **kwargs):
        pay_app_id = self.visible_id()
        data = self.parse(PayAppUpdateSerializer)
        return self.render(pay_apps.pay_app_update(pay_app_id=pay_app_id, **data))

    @extend_schema(
        summary="List the pay app's G703 continuation-sheet rows",
        description="In item order: cost-code rows, then change-order rows. Takes `limit` and "
        "`cursor`; no filters.",
        responses={200: PayAppLineSerializer(many=True)},
        parameters=expand_parameter(PayAppLineSerializer, is_list=True),
        filters=False,
    )
    @action(detail=True, methods=["get"])
    def lines(self, request, *args, **kwargs):
        pay_app = self.get_object()
        return self.render_list(
            pay_app.lines.all(),
            serializer_class=PayAppLineSerializer,
            keys=("position", "id"),
            ascending=True,
            context={"retainage_pct": pay_app.retainage_pct},
        )

    @extend_schema(
        summary="Print the pay app as a PDF (G702 and G703)",
        description="The application and certificate page in the AIA G702 shape and the "
        "continuation sheet in the G703 shape, from the figures `GET /v1/pay-apps/{id}` "
        "returns (a submitted pay app prints the same figures whenever printed); a draft is "
        "marked DRAFT on every page. Any role that can read the pay app can print it. Takes no "
        "parameters; errors are the JSON envelope.",
        responses={(200, "application/pdf"): OpenApiTypes.BINARY},
        filters=False,
    )
    @action(detail=True, methods=["get"])
    def pdf(self, request, *args, **kwargs):
        for name in request.query_params:  # expand[], limit and cursor too: it takes none
            raise InvalidRequest(
                f"Unknown parameter: {name}.", code=RequestErrorCode.PARAMETER_UNKNOWN, param=name
            )
        return pay_app_pdf_response(self.get_object())

    def get_renderers(self):
        renderers = super().get_renderers()
        if self.action == "pdf":
            renderers.append(PDFRenderer())
        return renderers

    def perform_content_negotiation(self, request, force=False):
        """On the PDF route `Accept: application/pdf` is acceptable too; the PDF is a plain
        HttpResponse, so whatever was accepted, an error there is the JSON envelope."""
        renderer, media_type = super().perform_content_negotiation(request, force)
        if isinstance(renderer, PDFRenderer):
            return JobcostJSONRenderer(), JobcostJSONRenderer.media_type
        return renderer, media_type

    def _transition(self, service, body=EmptySerializer):
        pay_app_id = self.visible_id()
        data = self.parse(body)
        return self.render(service(pay_app_id=pay_app_id, **data))

    @action_doc(
        PayAppSerializer,
        "Submit a pay app (locks its period)",
        PayAppSubmitSerializer,
        errors={
            409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION),
            422: (PayAppErrorCode.LIEN_WAIVERS_MISSING,),
        },
    )
    @action(detail=True, methods=["post"])
    def submit(self, request, *args, **kwargs):
        return self._transition(pay_apps.pay_app_submit, PayAppSubmitSerializer)

    @action_doc(
        PayAppSerializer,
        "Approve (certify) a submitted pay app",
        EmptySerializer,
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"])
    def approve(self, request, *args, **kwargs):
        return self._transition(pay_apps.pay_app_approve)

    @action_doc(
        PayAppSerializer,
        "Reject a submitted pay app back to draft",
        PayAppRejectSerializer,
        description="Refused when a later pay app exists. Unlocks the period.",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"])
    def reject(self, request, *args, **kwargs):
        return self._transition(pay_apps.pay_app_reject, PayAppRejectSerializer)

    @action_doc(
        PayAppSerializer,
        "Mark an approved pay app paid",
        EmptySerializer,
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"], url_path="mark-paid")
    def mark_paid(self, request, *args, **kwargs):
        return self._transition(pay_apps.pay_app_mark_paid)
