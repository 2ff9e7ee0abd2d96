"""Agent action shape (docs/resources.md, agent_action)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from jobcost.api.schema_components import ACTOR_REF, ERROR_OBJECT_REF
from jobcost.api.serializers import InputSerializer, ResourceSerializer
from jobcost.models import AgentActionKind, AgentActionStatus
from jobcost.serializers.refs import ref


@extend_schema_field(ACTOR_REF)
class ActorField(serializers.JSONField):
    """Who proposed or decided: {type, id, role}, as on the audit trail."""


@extend_schema_field(
    {**ERROR_OBJECT_REF, "description": "The error approval hit; null unless `failed`."}
)
class FailureField(serializers.JSONField):
    """The error object of a failed approval."""


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": True,
        "description": "The body the real endpoint takes (see `action`).",
    }
)
class PayloadField(serializers.JSONField):
    """A JSON object: the body of the endpoint the action stands for."""

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError("payload must be a JSON object.", code="invalid")
        # As parsed (decimals as exact Decimals): the service validates it as the real
        # endpoint would before anything converts it for storage.
        return data


class AgentActionSerializer(ResourceSerializer):
    resource = "agent_action"
    project = serializers.CharField(source="project_id")
    action = serializers.ChoiceField(choices=AgentActionKind.choices)
    target = serializers.CharField(allow_null=True)
    payload = PayloadField()
    rationale = serializers.CharField(allow_blank=True)
    status = serializers.ChoiceField(choices=AgentActionStatus.choices, read_only=True)
    result = serializers.CharField(read_only=True, allow_null=True)
    failure = FailureField(read_only=True, allow_null=True)
    proposed_by = ActorField(read_only=True)
    decided_by = ActorField(read_only=True, allow_null=True)
    decided_at = serializers.DateTimeField(read_only=True, allow_null=True)
    rejection_reason = serializers.CharField(read_only=True, allow_blank=True)

    def to_representation(self, instance):
        data = super().to_representation(instance)
        data["target"] = instance.target or None
        data["result"] = instance.result or None
        return data


class AgentActionCreateSerializer(InputSerializer):
    """A proposal: `target` for `invoice.code` and `budget.update`, none for creates;
    `project` is optional (taken from the target or the payload, and must match)."""

    output = AgentActionSerializer
    action = serializers.ChoiceField(choices=AgentActionKind.choices)
    target = serializers.CharField(max_length=40, required=False, allow_null=True)
    payload = PayloadField()
    rationale = serializers.CharField(required=False, allow_blank=True)
    project = ref("project", required=False)
