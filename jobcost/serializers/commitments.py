"""Commitment shape (docs/resources.md, docs/computations.md: revised_amount, billed_to_date,
remaining)."""

from rest_framework import serializers

from jobcost.api.fields import CentsField, PercentField
from jobcost.api.serializers import InputSerializer, ResourceSerializer
from jobcost.models import CommitmentStatus, CommitmentType
from jobcost.serializers.refs import ref


class CommitmentSerializer(ResourceSerializer):
    resource = "commitment"
    project = serializers.CharField(source="project_id")
    number = serializers.CharField()
    type = serializers.ChoiceField(choices=CommitmentType.choices)
    status = serializers.ChoiceField(choices=CommitmentStatus.choices, read_only=True)
    vendor = serializers.CharField(source="vendor_id")
    vendor_name = serializers.CharField(source="vendor.name", read_only=True)
    cost_code = serializers.CharField(source="cost_code_id", allow_null=True)
    description = serializers.CharField(allow_blank=True)
    currency = serializers.CharField(read_only=True)
    original_amount = CentsField()
    approved_changes = CentsField(allow_negative=True, read_only=True)
    revised_amount = CentsField(allow_negative=True, read_only=True)
    billed_to_date = CentsField(read_only=True)
    remaining = CentsField(allow_negative=True, read_only=True)
    retainage_pct = PercentField()
    executed_at = serializers.DateTimeField(read_only=True, allow_null=True)
    closed_at = serializers.DateTimeField(read_only=True, allow_null=True)
    voided_at = serializers.DateTimeField(read_only=True, allow_null=True)


class CommitmentCreateSerializer(InputSerializer):
    output = CommitmentSerializer
    project = ref("project")
    vendor = ref("vendor")
    type = serializers.ChoiceField(choices=CommitmentType.choices)
    original_amount = CentsField()
    number = serializers.CharField(max_length=60, required=False)
    cost_code = ref("cost_code", required=False, allow_null=True)
    retainage_pct = PercentField(required=False)
    description = serializers.CharField(max_length=500, required=False, allow_blank=True)


class CommitmentUpdateSerializer(InputSerializer):
    """docs/resources.md: in draft, PATCH writes the amount, number, cost code, retainage (and the
    description); vendor and type are fixed once created."""

    output = CommitmentSerializer
    number = serializers.CharField(max_length=60, required=False)
    cost_code = ref("cost_code", required=False, allow_null=True)
    original_amount = CentsField(required=False)
    retainage_pct = PercentField(required=False)
    description = serializers.CharField(max_length=500, required=False, allow_blank=True)


class EmptySerializer(InputSerializer):
    """Transition endpoints take no body fields."""
