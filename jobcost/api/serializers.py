"""Base serializers: the shape every object shares, and strict request bodies."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from jobcost.error_codes import RequestErrorCode
from jobcost.errors import field_code
from jobcost.resources import RESOURCES


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


class FigureField(serializers.Field):
    """A read-only figure computed from the whole row, such as a project's rollups:
    `figure(row, context)` rendered as it returns it (integer cents, a `Decimal` percent),
    with `schema` its OpenAPI schema; `context` is the rendering's (one dict for a whole
    list, where a figure may keep what its row's other figures share). `jobcost.api.output`
    calls `figure` straight, without the per-request serializer instance a
    `SerializerMethodField` needs (as method fields, a project's eight rollups
    were about half of rendering it, docs/benchmarks.md, "Reads under gunicorn")."""

    def __init__(self, figure: Callable[[Any, dict], Any], schema: dict, **kwargs):
        self.figure = figure
        kwargs["read_only"] = True
        kwargs["source"] = "*"
        super().__init__(**kwargs)
        self._spectacular_annotation = {"field": schema}

    def to_representation(self, row):
        return self.figure(row, self.context)


@extend_schema_field({"type": "string", "example": "/v1/projects/prj_…/audit"})
class AuditTrailField(serializers.Field):
    """`/v1/<collection>/<id>/audit` (docs/conventions.md)."""

    def __init__(self, collection: str, **kwargs):
        self.collection = collection
        kwargs["read_only"] = True
        kwargs["source"] = "*"
        super().__init__(**kwargs)

    def to_representation(self, instance):
        return f"/v1/{self.collection}/{instance.pk}/audit"


class ResourceSerializer(serializers.Serializer):
    """Output shape of an API object; a subclass names its resource (`resource = "invoice"`).
    The resource's entry in the table (`jobcost.resources`) gives
    `object_name`, `collection`, `selector` (scope → visible queryset) and `expandable`
    ({field: output serializer path}); the common fields (`id`, `object`, timestamps,
    `audit_trail`) are added around the declared ones."""

    object_name = ""
    collection = ""
    expandable: dict[str, str] = {}

    resource: str | None = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "resource" in cls.__dict__:
            entry = RESOURCES[cls.resource]
            cls.object_name, cls.collection = entry.object, entry.collection
            cls.selector = staticmethod(entry.selector)
            cls.expandable = {
                name: RESOURCES[target].serializer for name, target in entry.expandable.items()
            }
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


# Fields whose JSON value is a string: text, enums, dates and timestamps. DRF would turn a JSON
# number or boolean into text (`12345` → "12345") or fail on it with a 500 (dates).
STRING_FIELDS = (
    serializers.CharField,
    serializers.ChoiceField,
    serializers.DateField,
    serializers.DateTimeField,
    serializers.TimeField,
)


def _is_string_field(field) -> bool:
    return isinstance(field, STRING_FIELDS) and not isinstance(
        field, serializers.MultipleChoiceField
    )


def reject_non_strings(fields, data: Mapping) -> None:
    """400 `parameter_invalid` for a number, boolean, object or array sent where a string is
    expected, directly or as an item of a list of strings (`events[1]`), and for anything but
    a JSON integer where a whole number is expected (DRF would read `"6"` or `6.0` as 6);
    `null` is left to the field's own `allow_null` (docs/decisions.md, "Strings")."""
    for name, field in fields.items():
        if field.read_only or name not in data or data[name] is None:
            continue
        value = data[name]
        if _is_string_field(field) and not isinstance(value, str):
            raise serializers.ValidationError(
                {name: _error("invalid", f"{name} must be a string.")}
            )
        if isinstance(field, serializers.IntegerField) and (
            isinstance(value, bool) or not isinstance(value, int)
        ):
            raise serializers.ValidationError(
                {name: _error("invalid", f"{name} must be a whole number.")}
            )
        if isinstance(field, serializers.ListField) and _is_string_field(field.child):
            for index, item in enumerate(value if isinstance(value, list) else ()):
                if not isinstance(item, str):
                    raise serializers.ValidationError(
                        {name: {index: _error("invalid", f"{name}[{index}] must be a string.")}}
                    )


class InputSerializer(serializers.Serializer):
    """A request body: unknown fields are 400 `parameter_unknown`, fields of the object that
    are computed or fixed are 400 `parameter_read_only` (docs/conventions.md), a non-string value
    for a string field is 400 `parameter_invalid` (`reject_non_strings`). `output` names the
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
                    {
                        name: _error(
                            field_code(RequestErrorCode.PARAMETER_READ_ONLY),
                            f"{name} is read-only.",
                        )
                    }
                )
            raise serializers.ValidationError(
                {
                    name: _error(
                        field_code(RequestErrorCode.PARAMETER_UNKNOWN),
                        f"Unknown parameter: {name}.",
                    )
                }
            )
        reject_non_strings(self.fields, data)
        return super().to_internal_value(data)
