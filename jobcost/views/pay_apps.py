"""/v1/pay-apps, /v1/pay-apps/{id}/lines, the owner's receipts at /v1/pay-apps/{id}/payments
and the printed /v1/pay-apps/{id}/pdf (rules in `services.pay_apps` and
`services.pay_app_payments`, the document in `documents.pay_app_download`)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from jobcost.api.expand import parse_expand
from jobcost.api.filters import reject_unknown_params
from jobcost.api.output import render_one
from jobcost.api.renderers import JobcostJSONRenderer, PDFRenderer
from jobcost.api.schema import ERROR_CODES_KEY
from jobcost.api.viewsets import JobcostViewSet
from jobcost.documents.pay_app_download import pay_app_pdf_response, stored_pay_app_response
from jobcost.error_codes import (
    DocumentErrorCode,
    PayAppErrorCode,
    ProjectErrorCode,
    RateLimitErrorCode,
    RequestErrorCode,
    ResourceErrorCode,
)
from jobcost.errors import InvalidRequest
from jobcost.filters import PayAppFilter
from jobcost.models import PayAppPayment
from jobcost.serializers.commitments import EmptySerializer
from jobcost.serializers.pay_apps import (
    PayAppApproveSerializer,
    PayAppCreateSerializer,
    PayAppLineSerializer,
    PayAppMarkPaidSerializer,
    PayAppPaymentCreateSerializer,
    PayAppPaymentSerializer,
    PayAppRejectSerializer,
    PayAppSerializer,
    PayAppSubmitSerializer,
    PayAppUpdateSerializer,
)
from jobcost.services import pay_app_payments, pay_apps
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
        description="The application and certificate for payment in the AIA G702 layout "
        "(with the contractor's signed statement, a notary block and the architect's "
        "certificate) and the continuation sheet in the G703 layout. A submitted, approved or "
        "paid pay app answers the document stored when it was certified, else when it was "
        "submitted, byte for byte: renames and payment change nothing (docs/documents.md); "
        "serving it renders nothing and costs one request's token. A draft is rendered at the "
        "request from its figures and names as they stand, marked DRAFT on every page; that "
        "rendering costs the account `JOBCOST_RENDER_WEIGHT` (20) rate-limit tokens, at most "
        "`JOBCOST_RENDERS_PER_ACCOUNT` (2) run for one account at once (else 429 "
        "`too_many_renders`), and one that takes over `JOBCOST_RENDER_TIME_LIMIT` (15) seconds "
        "is stopped (503 `render_timed_out`). Any role that can read the pay app can print "
        "it. Takes no parameters; errors are the JSON envelope.",
        responses={(200, "application/pdf"): OpenApiTypes.BINARY},
        filters=False,
        extensions={
            ERROR_CODES_KEY: {
                "429": [RateLimitErrorCode.TOO_MANY_RENDERS],
                "503": [DocumentErrorCode.RENDER_TIMED_OUT],
            }
        },
    )
    @action(detail=True, methods=["get"])
    def pdf(self, request, *args, **kwargs):
        for name in request.query_params:  # expand[], limit and cursor too: it takes none
            raise InvalidRequest(
                f"Unknown parameter: {name}.", code=RequestErrorCode.PARAMETER_UNKNOWN, param=name
            )
        # A certified or submitted pay app's stored document renders nothing: served as any
        # read is. A draft's rendering takes its slot, weight and time limit before the pay
        # app and its lines are read, so a refused request costs next to nothing
        # (docs/operations/limits.md, "Rendering PDFs").
        stored = stored_pay_app_response(self.visible_id())
        if stored is not None:
            return stored
        with self.rendering():
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
        PayAppApproveSerializer,
        description="Records the architect's certificate: `amount_certified` (cents, 0 to the "
        "current payment due, line 8; default line 8; less needs a `certification_note`) on "
        "`certified_on` (default today; not before the submission day, not after today).",
        errors={
            400: (RequestErrorCode.PARAMETER_MISSING,),
            409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION),
            422: (PayAppErrorCode.EXCEEDS_PAYMENT_DUE,),
        },
    )
    @action(detail=True, methods=["post"])
    def approve(self, request, *args, **kwargs):
        return self._transition(pay_apps.pay_app_approve, PayAppApproveSerializer)

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
        PayAppMarkPaidSerializer,
        description="Records what remains of the amount certified (`amount_remaining`) as one "
        "receipt dated `received_on` (default today) with the owner's `reference`, which makes "
        "the pay app `paid`; it is `POST /v1/pay-apps/{id}/payments` for the whole remainder. "
        "A pay app certified for $0.00 becomes paid with no receipt (then `received_on` and "
        "`reference` are refused).",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"], url_path="mark-paid")
    def mark_paid(self, request, *args, **kwargs):
        return self._transition(pay_app_payments.pay_app_mark_paid, PayAppMarkPaidSerializer)

    @extend_schema(
        summary="List the owner's receipts against the pay app, newest first",
        description="Takes `limit` and `cursor`; no filters.",
        responses={200: PayAppPaymentSerializer(many=True)},
        filters=False,
    )
    @action(detail=True, methods=["get"])
    def payments(self, request, *args, **kwargs):
        pay_app_id = self.visible_id()
        return self.render_list(
            PayAppPayment.objects.filter(pay_app_id=pay_app_id).select_related("project"),
            serializer_class=PayAppPaymentSerializer,
        )

    @extend_schema(
        summary="Record the owner's receipt against an approved pay app",
        description="Under the pay app's row lock: `amount` (cents) at most its "
        "`amount_remaining`; when the receipts reach `amount_certified` the pay app becomes "
        "`paid` (event `pay_app.paid`), else it stays approved (event `pay_app.updated`). "
        "Answers the `pay_app_payment`.",
        request=PayAppPaymentCreateSerializer,
        responses={201: PayAppPaymentSerializer},
        filters=False,
        extensions={
            ERROR_CODES_KEY: {
                "409": (
                    ProjectErrorCode.PROJECT_CLOSED,
                    ResourceErrorCode.INVALID_STATE_TRANSITION,
                ),
                "422": (PayAppErrorCode.EXCEEDS_AMOUNT_REMAINING,),
            }
        },
    )
    @payments.mapping.post
    def record_payment(self, request, *args, **kwargs):
        pay_app_id = self.visible_id()
        data = self.parse(PayAppPaymentCreateSerializer)
        reject_unknown_params(request.query_params)
        parse_expand(request.query_params, PayAppPaymentSerializer, is_list=False)
        payment = pay_app_payments.pay_app_payment_create(pay_app_id=pay_app_id, **data)
        payment = PayAppPayment.objects.select_related("project").get(pk=payment.pk)
        return Response(
            render_one(PayAppPaymentSerializer, payment, self.get_serializer_context()),
            status=201,
        )
