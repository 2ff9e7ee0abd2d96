"""Serializer fields for the API's value types: cents, percentages, prefixed references.

Money is integer cents, at most `MONEY_MAX` ($100,000,000,000.00) in magnitude
(docs/operations/limits.md); a float, a string, a bool or a larger amount is refused with 400
`parameter_invalid` (docs/conventions.md). Percentages are JSON numbers from 0 to 100 with at most
two decimals, kept as `Decimal`.
"""

import datetime
from decimal import Decimal

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from audit.ids import has_prefix
from jobcost.errors import ApiError, NotFound
from jobcost.limits import BUSINESS_DATE_MAX, BUSINESS_DATE_MIN
from jobcost.money import cents_problem

TWO_PLACES = Decimal("0.01")


@extend_schema_field({"type": "integer", "format": "int64", "description": "Amount in cents."})
class CentsField(serializers.Field):
    """Integer cents. `allow_negative` only where deductive amounts are allowed (change orders,
    docs/resources.md)."""

    def __init__(self, *, allow_negative: bool = False, positive: bool = False, **kwargs):
        self.allow_negative = allow_negative
        self.positive = positive
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        problem = cents_problem(data, allow_negative=self.allow_negative, positive=self.positive)
        if problem:
            self.fail_invalid(problem)
        return data

    def fail_invalid(self, why: str):
        raise serializers.ValidationError(f"{self.field_name} {why}.", code="invalid")

    def to_representation(self, value):
        return int(value)


@extend_schema_field(
    {
        "type": "string",
        "format": "date",
        "description": f"A day from {BUSINESS_DATE_MIN} to {BUSINESS_DATE_MAX}.",
    }
)
class BusinessDateField(serializers.DateField):
    """A business date (`YYYY-MM-DD`) within `BUSINESS_DATE_MIN` … `BUSINESS_DATE_MAX`
    (jobcost/limits.py); outside it 400 `parameter_invalid` naming the range. Every date a
    request body carries is one (docs/operations/limits.md). The schema cannot bound a `date` string
    (`minimum`/`maximum` are for numbers), so the range is in the field's description,
    after its `help_text` when it has one."""

    def __init__(self, **kwargs):
        range_text = f"A day from {BUSINESS_DATE_MIN} to {BUSINESS_DATE_MAX}."
        help_text = kwargs.get("help_text")
        kwargs["help_text"] = f"{help_text} {range_text}" if help_text else range_text
        super().__init__(**kwargs)

    def to_internal_value(self, value) -> datetime.date:
        day = super().to_internal_value(value)
        if not BUSINESS_DATE_MIN <= day <= BUSINESS_DATE_MAX:
            raise serializers.ValidationError(
                f"{self.field_name} must be a date from {BUSINESS_DATE_MIN} to "
                f"{BUSINESS_DATE_MAX}.",
                code="invalid",
            )
        return day


class ExactNumberField(serializers.Field):
    """A JSON number from `minimum` to `maximum` with at most two decimals, returned as an
    exact `Decimal` (never a binary float). `unit` names the range in messages."""

    minimum, maximum, unit = Decimal(0), Decimal(100), "0 to 100"

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, Decimal)):
            raise serializers.ValidationError(
                f"{self.field_name} must be a number from {self.unit}.", code="invalid"
            )
        value = Decimal(data)
        if not value.is_finite() or value < self.minimum or value > self.maximum:
            raise serializers.ValidationError(
                f"{self.field_name} must be from {self.unit}.", code="invalid"
            )
        if value != value.quantize(TWO_PLACES):
            raise serializers.ValidationError(
                f"{self.field_name} takes at most two decimals.", code="invalid"
            )
        return value.quantize(TWO_PLACES)

    def to_representation(self, value):
        return Decimal(value).quantize(TWO_PLACES)


@extend_schema_field(
    {
        "type": "number",
        "minimum": 0,
        "maximum": 100,
        "multipleOf": 0.01,
        "description": "Percent from 0 to 100, at most two decimals (10 means 10 %).",
    }
)
class PercentField(ExactNumberField):
    """A percentage 0–100 with at most two decimals (docs/conventions.md), as an exact `Decimal`."""


@extend_schema_field(
    {
        "type": "number",
        "minimum": 0,
        "maximum": 9999999.99,
        "multipleOf": 0.01,
        "description": "Worker-hours, at most two decimals.",
    }
)
class HoursField(ExactNumberField):
    """Worker-hours, 0 to 9,999,999.99 with at most two decimals, as an exact `Decimal`."""

    maximum, unit = Decimal("9999999.99"), "0 to 9999999.99"


@extend_schema_field(OpenApiTypes.STR)
class RefField(serializers.Field):
    """A reference to another object by prefixed ID, resolved in the key's visibility.

    `resolver(view, id) -> instance | None` returns the visible object; anything else is
    404 `resource_missing` with `param` (docs/keys.md, "Who may call what": other accounts' objects
    do not exist).
    """

    def __init__(self, *, prefix: str, resolver, resolve_many=None, **kwargs):
        self.prefix = prefix
        self.resolver = resolver
        # `resolve_many(view, ids) -> {id: instance}` for the visible ones, used by
        # `prefetch_refs` to resolve the references of many list elements in one query.
        self.resolve_many = resolve_many
        self.prefetched: dict | None = None
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError(
                f"{self.field_name} must be a `{self.prefix}_` ID.", code="invalid"
            )
        if not has_prefix(data, self.prefix):
            instance = None
        elif self.prefetched is not None:
            instance = self.prefetched.get(data)
        else:
            instance = self.resolver(self.context.get("view"), data)
        if instance is None:
            raise NotFound(f"No such {self.prefix}_ object: '{data}'.", param=self.field_name)
        return instance

    def to_representation(self, value):
        return value if isinstance(value, str) else value.pk


def check_length(field: serializers.ListField, data: list) -> None:
    """400 `parameter_invalid` (param: the field) for an array outside the field's
    `min_length`..`max_length`."""
    if field.max_length is not None and len(data) > field.max_length:
        raise serializers.ValidationError(
            f"{field.field_name} takes at most {field.max_length} entries; {len(data)} were sent.",
            code="max_length",
        )
    if field.min_length is not None and len(data) < field.min_length:
        raise serializers.ValidationError(
            f"{field.field_name} takes at least {field.min_length} "
            f"entr{'y' if field.min_length == 1 else 'ies'}.",
            code="min_length",
        )


def prefetch_refs(child, data: list, view) -> list:
    """Resolve every `RefField` of a nested serializer `child` for all elements of `data` in
    one query per field (`RefField.resolve_many`), so validating N elements costs no query per
    element. Returns the fields primed; the caller clears their `prefetched` afterwards."""
    primed = []
    fields = getattr(child, "fields", {})
    for name, field in fields.items():
        if not isinstance(field, RefField) or field.resolve_many is None:
            continue
        ids = {
            item[name]
            for item in data
            if isinstance(item, dict) and isinstance(item.get(name), str)
        }
        field.prefetched = field.resolve_many(view, ids) if ids else {}
        primed.append(field)
    return primed


class BoundedListField(serializers.ListField):
    """A list of plain values with a required `max_length` (docs/operations/limits.md), checked with
    `min_length` before any element is read; the schema shows `maxItems`/`minItems`."""

    def __init__(self, *, max_length: int, **kwargs):
        super().__init__(max_length=max_length, **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, list):
            check_length(self, data)
        return super().to_internal_value(data)


class IndexedListField(BoundedListField):
    """A list of nested bodies whose errors name the element: a missing reference in the
    third line is `param: lines[2].cost_code`, not `cost_code`.

    `max_length` (required: every array in a body has a documented bound, docs/operations/limits.md)
    and `min_length` are checked before any element is read, so an oversized array costs
    nothing; the schema shows them as `maxItems`/`minItems`. The child's reference fields
    are resolved for all elements at once (one query per field, see `RefField`)."""

    def run_child_validation(self, data):
        refs = prefetch_refs(self.child, data, self.context.get("view"))
        try:
            return self._validate_each(data)
        finally:
            for field in refs:
                field.prefetched = None

    def _validate_each(self, data):
        result = []
        for index, item in enumerate(data):
            try:
                result.append(self.child.run_validation(item))
            except ApiError as exc:
                exc.param = f"{self.field_name}[{index}].{exc.param}" if exc.param else None
                raise
            except serializers.ValidationError as exc:
                raise serializers.ValidationError({index: exc.detail}) from exc
        return result


@extend_schema_field({"type": "boolean"})
class StrictBooleanField(serializers.Field):
    """A JSON `true` or `false` only: strings such as "yes" or "1" are 400, so a typo can
    never switch an override on."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            raise serializers.ValidationError(
                f"{self.field_name} must be true or false.", code="invalid"
            )
        return data

    def to_representation(self, value):
        return bool(value)
