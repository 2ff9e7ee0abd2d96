"""/v1/invoices and /v1/lien-waivers (rules in `services.invoices`, `services.lien_waivers`)."""

from rest_framework.decorators import action

from jobcost.api.viewsets import JobcostViewSet
from jobcost.error_codes import (
    CommitmentErrorCode,
    InvoiceErrorCode,
    PayAppErrorCode,
    ProjectErrorCode,
    ResourceErrorCode,
)
from jobcost.filters import InvoiceFilter, LienWaiverFilter
from jobcost.serializers.commitments import EmptySerializer
from jobcost.serializers.invoices import (
    InvoiceCreateSerializer,
    InvoiceMarkPaidSerializer,
    InvoiceSerializer,
    InvoiceUpdateSerializer,
    LienWaiverCreateSerializer,
    LienWaiverSerializer,
    LienWaiverUpdateSerializer,
)
from jobcost.services import invoices, lien_waivers
from jobcost.views.audit import AuditTrailMixin
from jobcost.views.docs import action_doc, create_doc, list_doc, retrieve_doc, update_doc


class InvoiceViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = InvoiceSerializer
    filterset_class = InvoiceFilter

    @list_doc(InvoiceSerializer, "List invoices")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(InvoiceSerializer, "Retrieve an invoice")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(
        InvoiceCreateSerializer,
        InvoiceSerializer,
        "Receive a vendor invoice",
        errors={
            409: (
                ProjectErrorCode.PROJECT_CLOSED,
                CommitmentErrorCode.COMMITMENT_NOT_EXECUTED,
                InvoiceErrorCode.DUPLICATE_INVOICE,
            ),
            422: (CommitmentErrorCode.EXCEEDS_COMMITMENT, PayAppErrorCode.PERIOD_LOCKED),
        },
    )
    def create(self, request, *args, **kwargs):
        data = self.parse(InvoiceCreateSerializer)
        return self.render(invoices.invoice_create(**data), status=201)

    @update_doc(
        InvoiceUpdateSerializer,
        InvoiceSerializer,
        "Edit or code an invoice",
        description="`lines` code the invoice (they must sum to the amount) and make it `coded`.",
        errors={
            409: (
                ProjectErrorCode.PROJECT_CLOSED,
                ResourceErrorCode.INVALID_STATE_TRANSITION,
                InvoiceErrorCode.DUPLICATE_INVOICE,
            ),
            422: (
                CommitmentErrorCode.EXCEEDS_COMMITMENT,
                PayAppErrorCode.PERIOD_LOCKED,
                CommitmentErrorCode.LINES_SUM_MISMATCH,
            ),
        },
    )
    def partial_update(self, request, *args, **kwargs):
        invoice_id = self.visible_id()
        data = self.parse(InvoiceUpdateSerializer)
        return self.render(invoices.invoice_update(invoice_id=invoice_id, changes=dict(data)))

    def _transition(self, service):
        invoice_id = self.visible_id()
        self.parse(EmptySerializer)
        return self.render(service(invoice_id=invoice_id))

    @action_doc(
        InvoiceSerializer,
        "Approve a coded invoice",
        EmptySerializer,
        description="Re-checks the commitment's remaining balance under a row lock, posts cost "
        "to the budget lines and requests a conditional progress lien waiver.",
        errors={
            409: (
                ProjectErrorCode.PROJECT_CLOSED,
                ResourceErrorCode.INVALID_STATE_TRANSITION,
                CommitmentErrorCode.COMMITMENT_NOT_EXECUTED,
            ),
            422: (CommitmentErrorCode.EXCEEDS_COMMITMENT, ProjectErrorCode.AMOUNT_OUT_OF_RANGE),
        },
    )
    @action(detail=True, methods=["post"])
    def approve(self, request, *args, **kwargs):
        return self._transition(invoices.invoice_approve)

    @action_doc(
        InvoiceSerializer,
        "Mark an approved invoice paid",
        InvoiceMarkPaidSerializer,
        description="`paid_on` (default today; not after today, not before the invoice date) "
        "and the check or wire `reference` are kept as `paid_on` and `payment_reference`.",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"], url_path="mark-paid")
    def mark_paid(self, request, *args, **kwargs):
        invoice_id = self.visible_id()
        data = self.parse(InvoiceMarkPaidSerializer)
        return self.render(invoices.invoice_mark_paid(invoice_id=invoice_id, **data))

    @action_doc(
        InvoiceSerializer,
        "Void an invoice",
        EmptySerializer,
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"])
    def void(self, request, *args, **kwargs):
        return self._transition(invoices.invoice_void)


class LienWaiverViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = LienWaiverSerializer
    filterset_class = LienWaiverFilter

    @list_doc(LienWaiverSerializer, "List lien waivers")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(LienWaiverSerializer, "Retrieve a lien waiver")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(
        LienWaiverCreateSerializer,
        LienWaiverSerializer,
        "Request a lien waiver",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED,)},
    )
    def create(self, request, *args, **kwargs):
        data = self.parse(LienWaiverCreateSerializer)
        return self.render(lien_waivers.lien_waiver_create(**data), status=201)

    @update_doc(
        LienWaiverUpdateSerializer,
        LienWaiverSerializer,
        "Record a lien waiver",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    def partial_update(self, request, *args, **kwargs):
        waiver_id = self.visible_id()
        data = self.parse(LienWaiverUpdateSerializer)
        return self.render(lien_waivers.lien_waiver_update(lien_waiver_id=waiver_id, changes=data))
