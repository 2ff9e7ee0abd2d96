"""Audit entry shape (docs/resources.md, audit_entry)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from jobcost.api.schema_components import ACTOR_REF
from jobcost.api.serializers import ConstField


class AuditEntrySerializer(serializers.Serializer):
    id = serializers.CharField(read_only=True)
    object = ConstField("audit_entry")
    target = serializers.CharField(source="target_id")
    target_type = serializers.CharField()
    action = serializers.CharField()
    actor = serializers.SerializerMethodField()
    request_id = serializers.CharField(allow_null=True)
    changes = extend_schema_field(
        {
            "type": "object",
            "description": "Each changed field (API name) with its value before and after.",
            "additionalProperties": {
                "type": "object",
                "required": ["before", "after"],
                "properties": {"before": {"nullable": True}, "after": {"nullable": True}},
            },
        }
    )(serializers.JSONField())
    note = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    @extend_schema_field(ACTOR_REF)
    def get_actor(self, entry) -> dict:
        return {"type": entry.actor_type, "id": entry.actor_id, "role": entry.actor_role}
