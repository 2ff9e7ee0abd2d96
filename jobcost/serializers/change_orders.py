"""Change order shape (docs/resources.md, change_order)."""

from rest_framework import serializers

from jobcost.api.fields import CentsField, IndexedListField
from jobcost.api.serializers import InputSerializer, ResourceSerializer
from jobcost.limits import CHANGE_ORDER_LINES_MAX
from jobcost.models import ChangeOrderKind, ChangeOrderStatus
from jobcost.serializers.refs import ref


class ChangeOrderLineSerializer(serializers.Serializer):
    cost_code = serializers.CharField(source="cost_code_id")
    description = serializers.CharField(allow_blank=True)
    amount = CentsField(allow_negative=True)
    budget_amount = CentsField(allow_negative=True)


class ChangeOrderSerializer(ResourceSerializer):
    resource = "change_order"
    project = serializers.CharField(source="project_id")
    number = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    kind = serializers.ChoiceField(choices=ChangeOrderKind.choices)
    commitment = serializers.CharField(source="commitment_id", allow_null=True)
    rfi = serializers.CharField(source="rfi_id", allow_null=True)
    currency = serializers.CharField(read_only=True)
    amount = CentsField(allow_negative=True)
    lines = ChangeOrderLineSerializer(many=True)
    status = serializers.ChoiceField(choices=ChangeOrderStatus.choices, read_only=True)
    pay_app = serializers.CharField(source="pay_app_id", allow_null=True, read_only=True)
    submitted_at = serializers.DateTimeField(read_only=True, allow_null=True)
    approved_at = serializers.DateTimeField(read_only=True, allow_null=True)
    approved_by = serializers.CharField(read_only=True, allow_blank=True)
    rejected_at = serializers.DateTimeField(read_only=True, allow_null=True)
    rejection_reason = serializers.CharField(read_only=True, allow_blank=True)
    voided_at = serializers.DateTimeField(read_only=True, allow_null=True)


class ChangeOrderLineInputSerializer(InputSerializer):
    output = ChangeOrderLineSerializer
    cost_code = ref("cost_code")
    description = serializers.CharField(max_length=500, required=False, allow_blank=True)
    amount = CentsField(allow_negative=True)
    budget_amount = CentsField(allow_negative=True, required=False)


class ChangeOrderCreateSerializer(InputSerializer):
    output = ChangeOrderSerializer
    project = ref("project")
    kind = serializers.ChoiceField(choices=ChangeOrderKind.choices)
    commitment = ref("commitment", required=False, allow_null=True)
    rfi = ref("rfi", required=False, allow_null=True)
    title = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True)
    number = serializers.CharField(max_length=60, required=False)
    amount = CentsField(allow_negative=True)
    lines = IndexedListField(
        child=ChangeOrderLineInputSerializer(), min_length=1, max_length=CHANGE_ORDER_LINES_MAX
    )


class ChangeOrderUpdateSerializer(InputSerializer):
    output = ChangeOrderSerializer
    title = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(required=False, allow_blank=True)
    number = serializers.CharField(max_length=60, required=False)
    rfi = ref("rfi", required=False, allow_null=True)
    amount = CentsField(allow_negative=True, required=False)
    lines = IndexedListField(
        child=ChangeOrderLineInputSerializer(),
        min_length=1,
        max_length=CHANGE_ORDER_LINES_MAX,
        required=False,
    )


class ReasonSerializer(InputSerializer):
    """Body of a reject: an optional reason."""

    reason = serializers.CharField(required=False, allow_blank=True, default="")
