"""Cost code and budget line shapes (docs/resources.md, docs/computations.md)."""

from rest_framework import serializers

from jobcost.api.fields import CentsField
from jobcost.api.serializers import InputSerializer, ResourceSerializer
from jobcost.models import CostType
from jobcost.serializers.refs import ref


class CostCodeSerializer(ResourceSerializer):
    resource = "cost_code"
    project = serializers.CharField(source="project_id")
    code = serializers.CharField()
    name = serializers.CharField()
    cost_type = serializers.ChoiceField(choices=CostType.choices)
    scheduled_value = CentsField()
    currency = serializers.CharField(read_only=True)
    budget_line = serializers.CharField(source="budget_line.pk", read_only=True)


class CostCodeCreateSerializer(InputSerializer):
    output = CostCodeSerializer
    project = ref("project")
    code = serializers.CharField(max_length=40)
    name = serializers.CharField(max_length=200)
    cost_type = serializers.ChoiceField(choices=CostType.choices)
    scheduled_value = CentsField(required=False, default=0)
    budget_amount = CentsField(required=False, default=0)


class CostCodeUpdateSerializer(InputSerializer):
    output = CostCodeSerializer
    code = serializers.CharField(max_length=40, required=False)
    name = serializers.CharField(max_length=200, required=False)
    cost_type = serializers.ChoiceField(choices=CostType.choices, required=False)
    scheduled_value = CentsField(required=False)


class BudgetLineSerializer(ResourceSerializer):
    resource = "budget_line"
    project = serializers.CharField(source="project_id")
    cost_code = serializers.CharField(source="cost_code_id")
    currency = serializers.CharField(read_only=True)
    original_amount = CentsField()
    approved_changes = CentsField(allow_negative=True, read_only=True)
    revised_amount = CentsField(allow_negative=True, read_only=True)
    committed = CentsField(read_only=True)
    actual = CentsField(read_only=True)
    cost_to_complete = CentsField()
    cost_to_complete_is_estimate = serializers.SerializerMethodField()
    projected_cost = CentsField(allow_negative=True, read_only=True)
    variance = CentsField(allow_negative=True, read_only=True)

    def get_cost_to_complete_is_estimate(self, line) -> bool:
        """True when `cost_to_complete` is a PATCHed estimate rather than the default."""
        return line.cost_to_complete_estimate is not None


class BudgetLineUpdateSerializer(InputSerializer):
    output = BudgetLineSerializer
    cost_to_complete = CentsField(required=False, allow_null=True)
    original_amount = CentsField(required=False)
