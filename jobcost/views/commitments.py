"""/v1/commitments: create, list, retrieve, PATCH in draft, execute, close, void
(rules in `services.commitments`)."""

from rest_framework.decorators import action

from jobcost.api.viewsets import JobcostViewSet
from jobcost.error_codes import CommitmentErrorCode, ProjectErrorCode, ResourceErrorCode
from jobcost.filters import CommitmentFilter
from jobcost.serializers.commitments import (
    CommitmentCreateSerializer,
    CommitmentSerializer,
    CommitmentUpdateSerializer,
    EmptySerializer,
)
from jobcost.services import commitments
from jobcost.views.audit import AuditTrailMixin
from jobcost.views.docs import action_doc, create_doc, list_doc, retrieve_doc, update_doc


class CommitmentViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = CommitmentSerializer
    filterset_class = CommitmentFilter

    @list_doc(CommitmentSerializer, "List commitments")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(CommitmentSerializer, "Retrieve a commitment with live balances")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(
        CommitmentCreateSerializer,
        CommitmentSerializer,
        "Create a draft commitment",
        description="`number` defaults to the next `SC-nnn` / `PO-nnn`, `retainage_pct` to "
        "the project's.",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.RESOURCE_ALREADY_EXISTS)},
    )
    def create(self, request, *args, **kwargs):
        data = self.parse(CommitmentCreateSerializer)
        return self.render(commitments.commitment_create(**data), status=201)

    @update_doc(
        CommitmentUpdateSerializer,
        CommitmentSerializer,
        "Update a draft commitment",
        errors={
            409: (
                ProjectErrorCode.PROJECT_CLOSED,
                ResourceErrorCode.INVALID_STATE_TRANSITION,
                ResourceErrorCode.RESOURCE_ALREADY_EXISTS,
            )
        },
    )
    def partial_update(self, request, *args, **kwargs):
        commitment_id = self.visible_id()
        data = self.parse(CommitmentUpdateSerializer)
        return self.render(commitments.commitment_update(commitment_id=commitment_id, changes=data))

    def _transition(self, service):
        commitment_id = self.visible_id()
        self.parse(EmptySerializer)
        return self.render(service(commitment_id=commitment_id))

    @action_doc(
        CommitmentSerializer,
        "Execute a draft commitment",
        request=EmptySerializer,
        description="draft → executed; its `revised_amount` joins the budget line's "
        "`committed`. Needs a cost code.",
        errors={
            409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION),
            422: (CommitmentErrorCode.COST_CODE_REQUIRED, ProjectErrorCode.AMOUNT_OUT_OF_RANGE),
        },
    )
    @action(detail=True, methods=["post"])
    def execute(self, request, *args, **kwargs):
        return self._transition(commitments.commitment_execute)

    @action_doc(
        CommitmentSerializer,
        "Close an executed commitment",
        request=EmptySerializer,
        description="executed → closed: no more invoices; it stays in `committed`.",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"])
    def close(self, request, *args, **kwargs):
        return self._transition(commitments.commitment_close)

    @action_doc(
        CommitmentSerializer,
        "Void a commitment",
        request=EmptySerializer,
        description="draft → void, or executed → void while nothing is billed.",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"])
    def void(self, request, *args, **kwargs):
        return self._transition(commitments.commitment_void)
