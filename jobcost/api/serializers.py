"""Base serializers: the shape every object shares, and strict request bodies."""

from __future__ import annotations

from collections.abc import Mapping

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail


class ConstField(serializers.Field):
    """A constant string such as `object: "project"`."""

    def __init__(self, value: str, **kwargs):
        self.value = value
        kwargs["read_only"] = True
        kwargs["source"] = "*"
        super().__init__(**kwargs)
        self._spectacular_annotation = {"field": {"type": "string", "enum": [value]}}

    def to_representation(self, _instance):
        return self.value


@extend_schema_field({"type": "string", "example": "/v1/projects/prj_…/audit"})
class AuditTrailField(serializers.Field):
    """`/v1/<collection>/<id>/audit` (SPEC §1)."""

    def __init__(self, collection: str, **kwargs):
        self.collection = collection
        kwargs["read_only"] = True
        kwargs["source"] = "*"
        super().__init__(**kwargs)

    def to_representation(self, instance):
        return f"/v1/{self.collection}/{instance.pk}/audit"


class ResourceSerializer(serializers.Serializer):
    """Output shape of an API object. Subclasses set `object_name`, `collection`,
    `selector` (scope → visible queryset) and `expandable` ({field: serializer path})."""

    object_name = ""
    collection = ""
    expandable: dict[str, str] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.object_name:
            cls._declared_fields = {
                "id": serializers.CharField(read_only=True),
                "object": ConstField(cls.object_name),
                **cls._declared_fields,
                "created_at": serializers.DateTimeField(read_only=True),
                "updated_at": serializers.DateTimeField(read_only=True),
                "audit_trail": AuditTrailField(cls.collection),
            }


def _error(code: str, message: str) -> list[ErrorDetail]:
    return [ErrorDetail(message, code=code)]


class InputSerializer(serializers.Serializer):
    """A request body: unknown fields are 400 `parameter_unknown`, fields of the object that
    are computed or fixed are 400 `parameter_read_only` (SPEC §1). `output` names the
    resource's output serializer, whose other fields count as read-only."""

    output: type[ResourceSerializer] | None = None

    def to_internal_value(self, data):
        if not isinstance(data, Mapping):
            raise serializers.ValidationError(
                {"non_field_errors": _error("invalid", "Expected a JSON object.")}
            )
        fields = self.fields
        for name in data:
            field = fields.get(name)
            if field is not None and not field.read_only:
                continue
            # Built only on this error path: a body of many nested elements pays nothing.
            readable = set(self.output().fields) if self.output else set()
            if name in readable or field is not None:
                raise serializers.ValidationError(
                    {name: _error("jc:parameter_read_only", f"{name} is read-only.")}
                )
            raise serializers.ValidationError(
                {name: _error("jc:parameter_unknown", f"Unknown parameter: {name}.")}
            )
        return super().to_internal_value(data)
