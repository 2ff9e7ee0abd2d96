"""/v1/projects: create, list (status filter), retrieve with rollups, PATCH with the status
machine (rules in `services.projects`)."""

from jobcost.api.viewsets import JobcostViewSet
from jobcost.error_codes import ProjectErrorCode, ResourceErrorCode
from jobcost.filters import ProjectFilter
from jobcost.serializers.projects import (
    ProjectCreateSerializer,
    ProjectSerializer,
    ProjectUpdateSerializer,
)
from jobcost.services import projects
from jobcost.views.audit import AuditTrailMixin
from jobcost.views.budget_imports import BudgetImportUploadMixin
from jobcost.views.docs import create_doc, list_doc, retrieve_doc, update_doc


class ProjectViewSet(BudgetImportUploadMixin, AuditTrailMixin, JobcostViewSet):
    serializer_class = ProjectSerializer
    filterset_class = ProjectFilter

    @list_doc(ProjectSerializer, "List projects")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(ProjectSerializer, "Retrieve a project with live rollups")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(
        ProjectCreateSerializer,
        ProjectSerializer,
        "Create a project",
        description="Starts in `bid` (or `active`). Money in cents of `currency`.",
        errors={409: (ResourceErrorCode.RESOURCE_ALREADY_EXISTS,)},
    )
    def create(self, request, *args, **kwargs):
        data = self.parse(ProjectCreateSerializer)
        project = projects.project_create(account_id=self.scope.account_id, **data)
        return self.render(project, status=201)

    @update_doc(
        ProjectUpdateSerializer,
        ProjectSerializer,
        "Update a project",
        description="Status moves: bid→active, active→closeout, closeout→active, "
        "closeout→closed. `contract_amount` changes only while `bid`; a closed project "
        "refuses every write.",
        errors={
            409: (
                ProjectErrorCode.PROJECT_CLOSED,
                ResourceErrorCode.INVALID_STATE_TRANSITION,
                ProjectErrorCode.CONTRACT_LOCKED,
                ResourceErrorCode.RESOURCE_ALREADY_EXISTS,
            ),
            422: (ProjectErrorCode.AMOUNT_OUT_OF_RANGE,),
        },
    )
    def partial_update(self, request, *args, **kwargs):
        project_id = self.visible_id()
        data = self.parse(ProjectUpdateSerializer)
        return self.render(projects.project_update(project_id=project_id, changes=data))
