"""/v1/rfis: create, list, retrieve, PATCH (answering), close (rules in `services.rfis`)."""

from rest_framework.decorators import action

from jobcost.api.viewsets import JobcostViewSet
from jobcost.error_codes import ProjectErrorCode, ResourceErrorCode
from jobcost.filters import RfiFilter
from jobcost.serializers.commitments import EmptySerializer
from jobcost.serializers.rfis import RfiCreateSerializer, RfiSerializer, RfiUpdateSerializer
from jobcost.services import rfis
from jobcost.views.audit import AuditTrailMixin
from jobcost.views.docs import action_doc, create_doc, list_doc, retrieve_doc, update_doc


class RfiViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = RfiSerializer
    filterset_class = RfiFilter

    @list_doc(RfiSerializer, "List RFIs")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(RfiSerializer, "Retrieve an RFI")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(
        RfiCreateSerializer,
        RfiSerializer,
        "Create an RFI",
        description="Opens the RFI; `number` defaults to the project's next `RFI-nnn`.",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.RESOURCE_ALREADY_EXISTS)},
    )
    def create(self, request, *args, **kwargs):
        data = self.parse(RfiCreateSerializer)
        return self.render(rfis.rfi_create(**data), status=201)

    @update_doc(
        RfiUpdateSerializer,
        RfiSerializer,
        "Update or answer an RFI",
        description="A non-blank `answer` on an open RFI moves it to `answered` "
        "(event `rfi.answered`). A closed RFI cannot change.",
        errors={
            409: (
                ProjectErrorCode.PROJECT_CLOSED,
                ResourceErrorCode.INVALID_STATE_TRANSITION,
                ResourceErrorCode.RESOURCE_ALREADY_EXISTS,
            )
        },
    )
    def partial_update(self, request, *args, **kwargs):
        rfi_id = self.visible_id()
        data = self.parse(RfiUpdateSerializer)
        return self.render(rfis.rfi_update(rfi_id=rfi_id, changes=dict(data)))

    @action_doc(
        RfiSerializer,
        "Close an RFI",
        EmptySerializer,
        description="Open or answered → closed (an unanswered RFI closes as withdrawn).",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"])
    def close(self, request, *args, **kwargs):
        rfi_id = self.visible_id()
        self.parse(EmptySerializer)
        return self.render(rfis.rfi_close(rfi_id=rfi_id))
