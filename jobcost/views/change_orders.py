"""/v1/change-orders (rules in `services.change_orders`)."""

from rest_framework.decorators import action

from jobcost.api.viewsets import JobcostViewSet
from jobcost.error_codes import CommitmentErrorCode, ProjectErrorCode, ResourceErrorCode
from jobcost.filters import ChangeOrderFilter
from jobcost.serializers.change_orders import (
    ChangeOrderCreateSerializer,
    ChangeOrderSerializer,
    ChangeOrderUpdateSerializer,
    ReasonSerializer,
)
from jobcost.serializers.commitments import EmptySerializer
from jobcost.services import change_orders
from jobcost.views.audit import AuditTrailMixin
from jobcost.views.docs import action_doc, create_doc, list_doc, retrieve_doc, update_doc


class ChangeOrderViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = ChangeOrderSerializer
    filterset_class = ChangeOrderFilter

    @list_doc(ChangeOrderSerializer, "List change orders")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(ChangeOrderSerializer, "Retrieve a change order")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(
        ChangeOrderCreateSerializer,
        ChangeOrderSerializer,
        "Create a draft change order",
        description="Lines must sum to `amount` (negative for a deductive change); each line's "
        "`budget_amount` defaults to its `amount`.",
        errors={
            409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.RESOURCE_ALREADY_EXISTS),
            422: (CommitmentErrorCode.LINES_SUM_MISMATCH, ProjectErrorCode.AMOUNT_OUT_OF_RANGE),
        },
    )
    def create(self, request, *args, **kwargs):
        data = self.parse(ChangeOrderCreateSerializer)
        return self.render(change_orders.change_order_create(**data), status=201)

    @update_doc(
        ChangeOrderUpdateSerializer,
        ChangeOrderSerializer,
        "Update a draft change order",
        errors={
            409: (
                ProjectErrorCode.PROJECT_CLOSED,
                ResourceErrorCode.INVALID_STATE_TRANSITION,
                ResourceErrorCode.RESOURCE_ALREADY_EXISTS,
            ),
            422: (CommitmentErrorCode.LINES_SUM_MISMATCH, ProjectErrorCode.AMOUNT_OUT_OF_RANGE),
        },
    )
    def partial_update(self, request, *args, **kwargs):
        change_order_id = self.visible_id()
        data = self.parse(ChangeOrderUpdateSerializer)
        return self.render(
            change_orders.change_order_update(change_order_id=change_order_id, changes=data)
        )

    def _transition(self, service, body=EmptySerializer):
        change_order_id = self.visible_id()
        data = self.parse(body)
        return self.render(service(change_order_id=change_order_id, **data))

    @action_doc(
        ChangeOrderSerializer,
        "Submit a change order for approval",
        EmptySerializer,
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"])
    def submit(self, request, *args, **kwargs):
        return self._transition(change_orders.change_order_submit)

    @action_doc(
        ChangeOrderSerializer,
        "Approve a change order",
        EmptySerializer,
        description="An owner change order moves the contract and budgets and lands on the "
        "draft pay app (or the next one); a commitment change order moves the commitment.",
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
        return self._transition(change_orders.change_order_approve)

    @action_doc(
        ChangeOrderSerializer,
        "Reject a pending change order",
        ReasonSerializer,
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"])
    def reject(self, request, *args, **kwargs):
        return self._transition(change_orders.change_order_reject, ReasonSerializer)

    @action_doc(
        ChangeOrderSerializer,
        "Void a change order",
        EmptySerializer,
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"])
    def void(self, request, *args, **kwargs):
        return self._transition(change_orders.change_order_void)
