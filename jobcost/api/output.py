"""Output serializers compiled once into plain functions (docs/architecture.md).

A DRF serializer renders a row by deep-copying its declared fields into a new instance, then
calling `get_attribute` and `to_representation` on each through several layers; on a list of
100 invoices with their lines that is most of the request. The serializer stays the one
definition of a resource's shape (and of the OpenAPI schema): `compile_serializer` reads its
declared fields once, per class, and builds a function that turns a row into the same dict
`serializer(row, context=...).data` gives — same keys, same order, same values — with one
attribute read and at most one conversion per field.

Field kinds are compiled by their exact class (a subclass may change the conversion, so it is
not assumed to keep it): `CharField`, `ChoiceField`, `DateField`, `DateTimeField`,
`IntegerField`, `BooleanField`, the API's `CentsField`, `PercentField`, `HoursField`,
`ConstField`, `AuditTrailField` and `FigureField` (its figure of the row, called straight),
nested serializers (one or `many=True`, compiled the same way) and `SerializerMethodField`
(the method of a serializer made once per call with the caller's context, so a method's
per-request cache keeps working). Any other field runs DRF's own `get_attribute` and
`to_representation` on the field bound to that per-call serializer (it may read its parent or
the context, as a pay app's G702 figures do), never on the shared template's. A serializer
class that overrides `to_representation` (or nests a `ListSerializer` subclass or such a
class) is not compiled: `render_one` and `render_many` fall back to DRF for it.
tests/jobcost/api/test_output.py renders every resource both ways, `expand[]` included, and
compares them field by field, also after a write.
"""

from __future__ import annotations

import datetime
import functools
import types
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from typing import Any

from django.conf import settings
from django.db.models import Manager
from django.utils import timezone
from rest_framework import serializers
from rest_framework.relations import PKOnlyObject
from rest_framework.settings import api_settings

from jobcost.api.fields import CentsField, HoursField, PercentField
from jobcost.api.row_code import FieldPlan, row_function
from jobcost.api.serializers import AuditTrailField, ConstField, FigureField

# row, per-call state (context and method-field serializer) → the row's dict.
RowFunction = Callable[[Any, "_Call"], dict]

_MISSING = object()
# What DRF's `get_attribute` calls (or refuses) when a source names it: left to DRF.
_SIMPLE_CALLABLE = (
    types.FunctionType,
    types.MethodType,
    types.BuiltinFunctionType,
    types.BuiltinMethodType,
    functools.partial,
)


class _Call:
    """What one rendering call shares among its rows: the context and, made on first use,
    one serializer instance per class for `SerializerMethodField`s."""

    __slots__ = ("context", "instances", "tz")

    def __init__(self, context: dict):
        self.context = context
        self.instances: dict[type, serializers.Serializer] = {}
        self.tz = timezone.get_current_timezone()

    def serializer(self, serializer_class) -> serializers.Serializer:
        instance = self.instances.get(serializer_class)
        if instance is None:
            instance = serializer_class(context=self.context)
            self.instances[serializer_class] = instance
        return instance


class NotCompilable(TypeError):
    """The serializer (or one nested in it) renders rows its own way: DRF renders it."""


def _is_compilable(serializer_class) -> bool:
    return (
        isinstance(serializer_class, type)
        and issubclass(serializer_class, serializers.Serializer)
        and serializer_class.to_representation is serializers.Serializer.to_representation
    )


# Row types seen, and whether each is a Mapping (DRF reads a mapping's keys, not attributes);
# `isinstance(row, Mapping)` on every field was a tenth of a list's rendering.
_MAPPING_TYPES: dict[type, bool] = {}


def _getter(field) -> Callable[[Any], Any]:
    """The field's attribute of a row, as `field.get_attribute` reads it; raises SkipField as
    DRF does. A one-step source on an object is a plain `getattr`; anything unusual (a
    missing attribute, a callable, a dotted source, a mapping row) goes through DRF."""
    drf = field.get_attribute
    if field.source == "*":
        return lambda row: row
    if len(field.source_attrs) != 1:
        return drf
    name = field.source_attrs[0]

    def get(row):
        kind = type(row)
        is_mapping = _MAPPING_TYPES.get(kind)
        if is_mapping is None:
            is_mapping = _MAPPING_TYPES[kind] = isinstance(row, Mapping)
        if is_mapping:
            return drf(row)
        value = getattr(row, name, _MISSING)
        if value is _MISSING or isinstance(value, _SIMPLE_CALLABLE):
            return drf(row)
        return value

    return get


def _datetime_converter(field) -> Callable[[Any, _Call], Any]:
    """DRF's `DateTimeField.to_representation` for the settings' strftime format in the
    current time zone (read once per call; the only format the API uses); anything else goes
    through DRF."""
    output_format = getattr(field, "format", api_settings.DATETIME_FORMAT)
    if (
        not isinstance(output_format, str)
        or output_format.lower() == "iso-8601"
        or hasattr(field, "timezone")
        or not settings.USE_TZ
    ):
        return lambda value, call: field.to_representation(value)

    def convert(value, call):
        if isinstance(value, datetime.datetime) and value.utcoffset() is not None:
            return value.astimezone(call.tz).strftime(output_format)
        return field.to_representation(value)

    return convert


def _date_converter(field) -> Callable[[Any], Any]:
    output_format = getattr(field, "format", api_settings.DATE_FORMAT)
    if not isinstance(output_format, str) or output_format.lower() != "iso-8601":
        return field.to_representation

    def convert(value):
        if type(value) is datetime.date:
            return value.isoformat()
        return field.to_representation(value)

    return convert


def _choice_converter(field) -> Callable[[Any], Any]:
    choices = dict(field.choice_strings_to_values)

    def convert(value):
        if value in ("", None):
            return value
        if isinstance(value, Enum) and str(value) != str(value.value):
            value = value.value
        return choices.get(str(value), value)

    return convert


def _compile_field(field, owner_class) -> Callable[[Any, _Call], Any]:
    """One field: a function of (row, call) returning its value, or raising SkipField."""
    kind = type(field)
    if kind is ConstField:
        value = field.value
        return lambda row, call: value
    if kind is FigureField:
        figure = field.figure
        return lambda row, call: figure(row, call.context)
    if kind is AuditTrailField:
        prefix = f"/v1/{field.collection}/"
        return lambda row, call: f"{prefix}{row.pk}/audit"
    if kind is serializers.SerializerMethodField:
        method_name = field.method_name
        return lambda row, call: getattr(call.serializer(owner_class), method_name)(row)

    get = _getter(field)
    if isinstance(field, serializers.ListSerializer):
        if kind is not serializers.ListSerializer or not _is_compilable(type(field.child)):
            raise NotCompilable(f"{owner_class.__name__}.{field.field_name}")
        child_function = compile_serializer(type(field.child))

        def convert_many(value, call):
            rows = value.all() if isinstance(value, Manager) else value
            return [child_function(item, call) for item in rows]

        return _with_none(get, convert_many)
    if isinstance(field, serializers.BaseSerializer):
        if not _is_compilable(kind):
            raise NotCompilable(f"{owner_class.__name__}.{field.field_name}")
        return _with_none(get, compile_serializer(kind))

    if kind is serializers.DateTimeField:
        return _with_none(get, _datetime_converter(field))
    convert = _converter(field)
    if convert is not None:
        return _with_none(get, lambda value, call: convert(value))
    # Any other field may read its parent or the context (a pay app's G702 figures do): it
    # runs as DRF runs it, bound to this call's serializer, never to the shared template.
    name = field.field_name

    def generic(row, call):
        bound = call.serializer(owner_class).fields[name]
        attribute = bound.get_attribute(row)
        check = attribute.pk if isinstance(attribute, PKOnlyObject) else attribute
        return None if check is None else bound.to_representation(attribute)

    return generic


def _converter(field) -> Callable[[Any], Any] | None:
    """The conversion of a field kind whose `to_representation` reads nothing but the value
    (so the template's bound field may run it for every call); None for any other kind."""
    kind = type(field)
    if kind is serializers.CharField:
        return str
    if kind is CentsField or kind is serializers.IntegerField:
        return int
    if kind is serializers.BooleanField:
        return field.to_representation
    if kind is serializers.ChoiceField:
        return _choice_converter(field)
    if kind is serializers.DateField:
        return _date_converter(field)
    if kind is PercentField or kind is HoursField:
        return field.to_representation
    return None


def _with_none(get, convert) -> Callable[[Any, _Call], Any]:
    """DRF's rule around every field: an attribute that is None renders as None, unconverted."""

    def value(row, call):
        attribute = get(row)
        check = attribute.pk if isinstance(attribute, PKOnlyObject) else attribute
        return None if check is None else convert(attribute, call)

    return value


@functools.cache
def compile_serializer(serializer_class) -> RowFunction:
    """The row function of a serializer class: `function(row, call) -> dict`, the same dict
    `.data` gives. Built once per class; its fields are the readable ones of one template
    instance, in declared order. Raises `NotCompilable` for a class (or a nested one) that
    overrides `to_representation`; `is_compiled` says which.

    Rows of each type get their own function, generated on the first row of that type
    (`jobcost.api.row_code`): a field read from a model's column is read from the instance's
    `__dict__` and converted inline; every other field calls its compiled function."""
    if not _is_compilable(serializer_class):
        raise NotCompilable(serializer_class.__name__)
    template = serializer_class()
    plan = [
        FieldPlan(name, _compile_field(field, serializer_class), *_inline(field))
        for name, field in template.fields.items()
        if not field.write_only
    ]
    by_type: dict[type, RowFunction] = {}

    def render(row, call: _Call) -> dict:
        function = by_type.get(row.__class__)
        if function is None:
            function = by_type[row.__class__] = row_function(plan, row.__class__)
        return function(row, call)

    return render


def _inline(field) -> tuple[str | None, str | None, Callable | None]:
    """(column name, conversion kind, conversion) of a field a generated row function may
    read straight from a model instance's `__dict__`, else (None, None, None). Kinds: `str`,
    `int`, `date` (ISO), `datetime` (the strftime format of `_datetime_converter`) and `call`
    (a value-only conversion, `_converter`)."""
    kind = type(field)
    if field.source == "*" or len(field.source_attrs) != 1:
        return None, None, None
    if kind in (ConstField, AuditTrailField, FigureField, serializers.SerializerMethodField):
        return None, None, None
    name = field.source_attrs[0]
    if kind is serializers.CharField:
        return name, "str", str
    if kind is CentsField or kind is serializers.IntegerField:
        return name, "int", int
    if kind is serializers.DateTimeField:
        convert = _datetime_converter(field)
        output_format = getattr(field, "format", api_settings.DATETIME_FORMAT)
        fast = isinstance(output_format, str) and output_format.lower() != "iso-8601"
        fast = fast and not hasattr(field, "timezone") and settings.USE_TZ
        return (name, "datetime", (output_format, convert)) if fast else (None, None, None)
    if kind is serializers.DateField:
        output_format = getattr(field, "format", api_settings.DATE_FORMAT)
        if isinstance(output_format, str) and output_format.lower() == "iso-8601":
            return name, "date", field.to_representation
    convert = _converter(field)
    if convert is not None:
        return name, "call", convert
    return None, None, None


@functools.cache
def is_compiled(serializer_class) -> bool:
    """Whether `render_one`/`render_many` compile this class (else they use DRF)."""
    try:
        compile_serializer(serializer_class)
    except NotCompilable:
        return False
    return True


def render_many(serializer_class, rows: Iterable, context: dict | None = None) -> list[dict]:
    """`[dict(serializer_class(row, context=context).data) for row in rows]`, compiled."""
    context = {} if context is None else context
    if not is_compiled(serializer_class):
        return [dict(serializer_class(row, context=context).data) for row in rows]
    function = compile_serializer(serializer_class)
    call = _Call(context)
    return [function(row, call) for row in rows]


def render_one(serializer_class, row, context: dict | None = None) -> dict:
    """`dict(serializer_class(row, context=context).data)`, compiled."""
    return render_many(serializer_class, [row], context)[0]
