"""Filter plumbing: bracketed names (`created[gte]`), strict unknown-filter checks."""

from __future__ import annotations

import re

import django_filters

from jobcost.api.errors import InvalidRequest

RESERVED_PARAMS = {"limit", "cursor", "expand[]"}
_BRACKETED = re.compile(r"^(?P<field>\w+?)__(?P<op>gte|lte|gt|lt)$")


class JobcostFilterSet(django_filters.FilterSet):
    """Declare `created__gte`; callers send `created[gte]`. Every list gets created[gte] and
    created[lt] (SPEC §4)."""

    created__gte = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created__lt = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lt")

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
                f"Unknown parameter: {name}.", code="parameter_unknown", param=name
            )


def apply_filters(filterset_class, params, queryset, request=None):
    """Filter `queryset` by the query string: unknown params are 400 `parameter_unknown`,
    bad values 400 `parameter_invalid`, each naming its param."""
    reject_unknown_params(params, set(filterset_class.base_filters) if filterset_class else set())
    if filterset_class is None:
        return queryset
    filterset = filterset_class(params, queryset=queryset, request=request)
    if not filterset.is_valid():
        param, messages = next(iter(filterset.errors.items()))
        raise InvalidRequest(f"{param}: {' '.join(messages)}", param=param)
    return filterset.qs
