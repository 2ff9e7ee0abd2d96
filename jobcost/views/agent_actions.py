"""/v1/agents/actions: propose, list, retrieve, approve, reject (rules in
`services.agent_actions`; who may call what in `jobcost.api.policy`)."""

from rest_framework.decorators import action

from jobcost.api.viewsets import JobcostViewSet
from jobcost.error_codes import ProjectErrorCode, ResourceErrorCode
from jobcost.filters import AgentActionFilter
from jobcost.serializers.agent_actions import AgentActionCreateSerializer, AgentActionSerializer
from jobcost.serializers.change_orders import ReasonSerializer
from jobcost.serializers.commitments import EmptySerializer
from jobcost.services import agent_actions
from jobcost.views.audit import AuditTrailMixin
from jobcost.views.docs import action_doc, create_doc, list_doc, retrieve_doc

PAYLOAD_ERRORS = (
    "Rule failures of the payload (the real endpoint's 400/404/409/422 errors, `param` under "
    "`payload.`) do not fail the call: the action becomes `failed` with the error in `failure`."
)


class AgentActionViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = AgentActionSerializer
    filterset_class = AgentActionFilter

    @list_doc(AgentActionSerializer, "List agent actions")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(AgentActionSerializer, "Retrieve an agent action")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(
        AgentActionCreateSerializer,
        AgentActionSerializer,
        "Propose an agent action",
        description="Records the proposal; nothing else changes until a person approves it. "
        "`payload` is validated now as the real endpoint would validate its body (errors name "
        "`payload.<field>`), and again at approval.",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED,)},
    )
    def create(self, request, *args, **kwargs):
        data = self.parse(AgentActionCreateSerializer)
        return self.render(agent_actions.agent_action_propose(scope=self.scope, **data), status=201)

    @action_doc(
        AgentActionSerializer,
        "Approve an agent action",
        EmptySerializer,
        description="Runs the payload through the real endpoint's code and rules in one "
        "transaction and records `result`. " + PAYLOAD_ERRORS,
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"])
    def approve(self, request, *args, **kwargs):
        agent_action_id = self.visible_id()
        self.parse(EmptySerializer)
        return self.render(
            agent_actions.agent_action_approve(agent_action_id=agent_action_id, scope=self.scope)
        )

    @action_doc(
        AgentActionSerializer,
        "Reject an agent action",
        ReasonSerializer,
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.INVALID_STATE_TRANSITION)},
    )
    @action(detail=True, methods=["post"])
    def reject(self, request, *args, **kwargs):
        agent_action_id = self.visible_id()
        data = self.parse(ReasonSerializer)
        return self.render(
            agent_actions.agent_action_reject(agent_action_id=agent_action_id, **data)
        )
