"""/v1/cost-codes and /v1/budgets (rules in `services.cost_codes`)."""

from jobcost.api.viewsets import JobcostViewSet
from jobcost.error_codes import ProjectErrorCode, ResourceErrorCode
from jobcost.filters import BudgetLineFilter, CostCodeFilter
from jobcost.serializers.budgets import (
    BudgetLineSerializer,
    BudgetLineUpdateSerializer,
    CostCodeCreateSerializer,
    CostCodeSerializer,
    CostCodeUpdateSerializer,
)
from jobcost.services import cost_codes
from jobcost.views.audit import AuditTrailMixin
from jobcost.views.docs import create_doc, list_doc, retrieve_doc, update_doc


class CostCodeViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = CostCodeSerializer
    filterset_class = CostCodeFilter

    @list_doc(CostCodeSerializer, "List cost codes")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(CostCodeSerializer, "Retrieve a cost code")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(
        CostCodeCreateSerializer,
        CostCodeSerializer,
        "Create a cost code and its budget line",
        description="`budget_amount` (cents) becomes the budget line's `original_amount`.",
        errors={
            409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.RESOURCE_ALREADY_EXISTS),
            422: (ProjectErrorCode.AMOUNT_OUT_OF_RANGE,),
        },
    )
    def create(self, request, *args, **kwargs):
        data = self.parse(CostCodeCreateSerializer)
        return self.render(cost_codes.cost_code_create(**data), status=201)

    @update_doc(
        CostCodeUpdateSerializer,
        CostCodeSerializer,
        "Update a cost code",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.RESOURCE_ALREADY_EXISTS)},
    )
    def partial_update(self, request, *args, **kwargs):
        cost_code_id = self.visible_id()
        data = self.parse(CostCodeUpdateSerializer)
        return self.render(cost_codes.cost_code_update(cost_code_id=cost_code_id, changes=data))


class BudgetLineViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = BudgetLineSerializer
    filterset_class = BudgetLineFilter

    @list_doc(BudgetLineSerializer, "List budget lines")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(BudgetLineSerializer, "Retrieve a budget line")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @update_doc(
        BudgetLineUpdateSerializer,
        BudgetLineSerializer,
        "Update cost-to-complete (or the original budget while bidding)",
        description="`cost_to_complete` sets the estimate (null returns to the computed "
        "value); `original_amount` changes only while the project is `bid`.",
        errors={
            409: (ProjectErrorCode.PROJECT_CLOSED, ProjectErrorCode.BUDGET_LOCKED),
            422: (ProjectErrorCode.AMOUNT_OUT_OF_RANGE,),
        },
    )
    def partial_update(self, request, *args, **kwargs):
        line_id = self.visible_id()
        data = self.parse(BudgetLineUpdateSerializer)
        return self.render(cost_codes.budget_line_update(budget_line_id=line_id, changes=data))
