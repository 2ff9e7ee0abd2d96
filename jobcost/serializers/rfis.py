"""RFI shape (docs/resources.md, rfi)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from jobcost.api.fields import BusinessDateField, StrictBooleanField
from jobcost.api.serializers import InputSerializer, ResourceSerializer
from jobcost.models import RfiStatus
from jobcost.serializers.refs import ref


@extend_schema_field({"type": "array", "items": {"type": "string", "example": "co_…"}})
class ChangeOrderIdsField(serializers.Field):
    """The IDs of the change orders that name this RFI, oldest first."""

    def __init__(self, **kwargs):
        kwargs.update(read_only=True, source="*")
        super().__init__(**kwargs)

    def to_representation(self, rfi):
        return [change_order.pk for change_order in rfi.change_orders.all()]


class RfiSerializer(ResourceSerializer):
    resource = "rfi"
    project = serializers.CharField(source="project_id")
    number = serializers.CharField()
    subject = serializers.CharField()
    question = serializers.CharField()
    answer = serializers.CharField(allow_blank=True)
    status = serializers.ChoiceField(choices=RfiStatus.choices, read_only=True)
    due_date = serializers.DateField(allow_null=True)
    cost_impact = serializers.BooleanField()
    change_orders = ChangeOrderIdsField()
    answered_at = serializers.DateTimeField(read_only=True, allow_null=True)
    closed_at = serializers.DateTimeField(read_only=True, allow_null=True)


class RfiCreateSerializer(InputSerializer):
    output = RfiSerializer
    project = ref("project")
    subject = serializers.CharField(max_length=200)
    question = serializers.CharField()
    number = serializers.CharField(max_length=60, required=False)
    due_date = BusinessDateField(required=False, allow_null=True)
    cost_impact = StrictBooleanField(required=False)


class RfiUpdateSerializer(InputSerializer):
    """Edit an open or answered RFI; a non-blank `answer` on an open one answers it."""

    output = RfiSerializer
    subject = serializers.CharField(max_length=200, required=False)
    question = serializers.CharField(required=False)
    answer = serializers.CharField(required=False, allow_blank=True)
    number = serializers.CharField(max_length=60, required=False)
    due_date = BusinessDateField(required=False, allow_null=True)
    cost_impact = StrictBooleanField(required=False)
