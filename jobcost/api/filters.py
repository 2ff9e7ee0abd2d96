"""Filter plumbing: bracketed names (`created[gte]`), strict unknown-filter checks, and
timestamps and dates parsed in Python so that nothing PostgreSQL would refuse reaches it
(docs/decisions.md, "Filter values")."""

from __future__ import annotations

import datetime
import re
from typing import Any

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from django.utils.dateparse import parse_datetime
from django_filters.constants import EMPTY_VALUES

from jobcost.error_codes import RequestErrorCode
from jobcost.errors import InvalidRequest
from jobcost.limits import BUSINESS_DATE_MAX, BUSINESS_DATE_MIN

RESERVED_PARAMS = {"limit", "cursor", "expand[]"}
_BRACKETED = re.compile(r"^(?P<field>\w+?)__(?P<op>gte|lte|gt|lt)$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def check_query_values(params) -> None:
    """400 `parameter_invalid` naming the parameter for any query value that is empty
    (`?status=`, `?cursor=`: an empty filter is a mistake, not "no filter") or holds NUL
    (U+0000, which PostgreSQL text refuses). Runs for every /v1 request before its handler.
    An empty `expand[]` is left to the expansion parser (400 `expand_invalid`, docs/errors.md)."""
    for name, values in params.lists():
        if "\x00" in name:
            raise InvalidRequest("Query parameter names may not contain NUL.", param=name)
        for value in values:
            if value == "" and name != "expand[]":
                raise InvalidRequest(
                    f"{name} is empty: give it a value or leave it out.", param=name
                )
            if "\x00" in value:
                raise InvalidRequest(f"{name} may not contain NUL (U+0000).", param=name)


class UtcDateTimeField(forms.Field):
    """An ISO 8601 timestamp (`2026-01-01T09:30:00Z`, `2026-01-01T09:30:00-05:00`) or date
    (`2026-01-01`, midnight UTC), returned as an aware UTC `datetime`. A timestamp without an
    offset is UTC. Anything else, an offset of a day or more, or a UTC value outside the years
    1–9999 is invalid: PostgreSQL accepts offsets up to ±15:59 only, so the value is converted
    to UTC here and never sent with the caller's offset."""

    default_error_messages = {
        "invalid": (
            "Enter an ISO 8601 timestamp such as 2026-01-01T00:00:00Z (UTC offset under "
            "24 hours, UTC value within the years 1 to 9999) or a date such as 2026-01-01."
        )
    }

    def to_python(self, value):
        if value in self.empty_values:
            return None
        text = str(value).strip()
        try:
            if _ISO_DATE.match(text):
                parsed = datetime.datetime.combine(
                    datetime.date.fromisoformat(text), datetime.time.min
                )
            else:
                parsed = parse_datetime(text)
            if parsed is None:
                raise ValueError(text)
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=datetime.UTC)
            return parsed.astimezone(datetime.UTC)
        except (ValueError, OverflowError) as exc:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from exc


class IsoDateField(forms.Field):
    """A business date as ISO 8601 `YYYY-MM-DD` only, from `BUSINESS_DATE_MIN` to
    `BUSINESS_DATE_MAX` (jobcost/limits.py, docs/operations/limits.md): a date filter and a report's
    `as_of`. Errors: code `invalid` (not such a date) or `range` (outside the range)."""

    default_error_messages = {
        "invalid": "Enter a date as YYYY-MM-DD, e.g. 2026-01-01.",
        "range": f"Enter a date from {BUSINESS_DATE_MIN} to {BUSINESS_DATE_MAX}.",
    }

    def to_python(self, value):
        if value in self.empty_values:
            return None
        text = str(value).strip()
        try:
            if not _ISO_DATE.match(text):
                raise ValueError(text)
            day = datetime.date.fromisoformat(text)
        except ValueError as exc:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from exc
        if not BUSINESS_DATE_MIN <= day <= BUSINESS_DATE_MAX:
            raise forms.ValidationError(self.error_messages["range"], code="range")
        return day


class UtcDateTimeFilter(django_filters.IsoDateTimeFilter):
    """`created[gte]` and friends: the value normalized to UTC by `UtcDateTimeField`."""

    field_class = UtcDateTimeField


class IsoDateFilter(django_filters.DateFilter):
    """`date[gte]` and friends: `YYYY-MM-DD` only."""

    field_class = IsoDateField


class JobcostFilterSet(django_filters.FilterSet):
    """Declare `created__gte`; callers send `created[gte]`. Every list gets created[gte] and
    created[lt] (docs/conventions.md)."""

    created__gte = UtcDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created__lt = UtcDateTimeFilter(field_name="created_at", lookup_expr="lt")

    @classmethod
    def get_filters(cls):
        filters = super().get_filters()
        renamed = {}
        for name, value in filters.items():
            match = _BRACKETED.match(name)
            renamed[f"{match['field']}[{match['op']}]" if match else name] = value
        return renamed


class ProjectChildFilterSet(JobcostFilterSet):
    """A list of a project's child records: adds the `project` filter (a `prj_` ID)."""

    project = django_filters.CharFilter(field_name="project_id")


def reject_unknown_params(params, known: set[str] | frozenset[str] = frozenset()) -> None:
    """400 `parameter_unknown` for a query parameter that is neither reserved nor known."""
    for name in params:
        if name not in known and name not in RESERVED_PARAMS:
            raise InvalidRequest(
                f"Unknown parameter: {name}.", code=RequestErrorCode.PARAMETER_UNKNOWN, param=name
            )


def clean_filters(filterset_class, params) -> list[tuple[str, Any, Any]]:
    """The filters the query string sets, as `(name, filter, value)`, in the FilterSet's
    declared order, each value cleaned by its filter's form field exactly as django-filter's
    form cleans it; the first invalid one (in that order) is 400 `parameter_invalid` naming
    it. Filters left out (or cleaned to an empty value, which filters nothing) are not listed.

    django-filter makes a FilterSet per request, which deep-copies every declared filter and
    its form's fields: a twentieth of a 100-invoice list. The declared filters and their
    form fields are read here, never changed: a field's `clean` and the filters' `filter`
    read only their own configuration (no declared filter takes a `method`), so the class's
    instances serve every request. tests/jobcost/api/test_filters.py compares this with a
    FilterSet for every list's filters.
    """
    found = []
    for name, filter_ in filterset_class.base_filters.items():
        field = filter_.field
        raw = field.widget.value_from_datadict(params, {}, name)
        try:
            value = field.clean(raw)
        except ValidationError as exc:
            raise InvalidRequest(f"{name}: {' '.join(exc.messages)}", param=name) from exc
        if value not in EMPTY_VALUES:
            found.append((name, filter_, value))
    return found


def read_filters(filterset_class, params) -> list[tuple[str, Any, Any]]:
    """The request's filters (`clean_filters`) for a list whose filters are `filterset_class`
    (None: none): a parameter that is neither a filter nor reserved is 400
    `parameter_unknown`, a bad value 400 `parameter_invalid`, each naming its param."""
    reject_unknown_params(params, set(filterset_class.base_filters) if filterset_class else set())
    return clean_filters(filterset_class, params) if filterset_class is not None else []


def filter_by(queryset, filters: list[tuple[str, Any, Any]]):
    """`queryset` with each `(name, filter, value)` applied, as django-filter applies them."""
    for _name, filter_, value in filters:
        queryset = filter_.filter(queryset, value)
    return queryset
