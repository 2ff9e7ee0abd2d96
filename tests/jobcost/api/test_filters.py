"""A list's filters are applied from its FilterSet class's declared filters (jobcost/api/filters.py,
`clean_filters`), not from a FilterSet made per request: for every list's FilterSet and a
spread of good and bad query strings, the same SQL, or the same 400 naming the same parameter,
as django-filter's own FilterSet gives."""

from __future__ import annotations

import inspect
from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from django_filters import ChoiceFilter, DateFilter, IsoDateTimeFilter

from jobcost import filters as jobcost_filters
from jobcost.api.filters import JobcostFilterSet, filter_by, read_filters
from jobcost.errors import InvalidRequest
from webhooks import filters as webhook_filters

FILTERSETS = [
    cls
    for module in (jobcost_filters, webhook_filters)
    for _, cls in inspect.getmembers(module, inspect.isclass)
    if issubclass(cls, JobcostFilterSet) and getattr(cls._meta, "model", None) is not None
]


def _values(filter_) -> list[str]:
    """Good and bad values for one filter, by its kind."""
    if isinstance(filter_, ChoiceFilter):
        first = next(value for value, _ in filter_.extra["choices"])
        return [first, f" {first} ", "no-such-choice", first.upper()]
    if isinstance(filter_, IsoDateTimeFilter):
        return ["2026-01-01", "2026-01-01T09:30:00-05:00", "2026-01-01T09:30:00", "01/02/2026"]
    if isinstance(filter_, DateFilter):
        return ["2026-01-01", "2026-1-1", "2026-02-30"]
    return ["prj_abc", "  padded  ", "ünïcode"]


def _query_strings(filterset_class) -> list[str]:
    """Each filter alone with each of its values, every filter at once with its first value,
    every filter at once with a bad value (the first bad one in declared order is named), and
    a parameter given twice (the last value is the one used)."""
    filters = filterset_class.base_filters
    queries = [urlencode({name: value}) for name, f in filters.items() for value in _values(f)]
    queries.append(urlencode({name: _values(f)[0] for name, f in reversed(filters.items())}))
    queries.append(urlencode({name: _values(f)[-1] for name, f in reversed(filters.items())}))
    name, filter_ = next(iter(filters.items()))
    queries.append(urlencode([(name, _values(filter_)[0]), (name, _values(filter_)[1])]))
    return queries


def _reference(filterset_class, params, queryset):
    filterset = filterset_class(params, queryset=queryset)
    if not filterset.is_valid():
        param, messages = next(iter(filterset.errors.items()))
        return ("400", param, f"{param}: {' '.join(messages)}")
    return ("sql", str(filterset.qs.query))


def _ours(filterset_class, params, queryset):
    try:
        filtered = filter_by(queryset, read_filters(filterset_class, params))
        return ("sql", str(filtered.query))
    except InvalidRequest as exc:
        return ("400", exc.param, exc.message)


@pytest.mark.parametrize("filterset_class", FILTERSETS, ids=lambda cls: cls.__name__)
def test_every_query_string_filters_as_a_filterset_would(filterset_class):
    queryset = filterset_class._meta.model.objects.all()
    outcomes = set()
    for query in _query_strings(filterset_class):
        params = QueryDict(query)
        expected = _reference(filterset_class, params, queryset)
        assert _ours(filterset_class, params, queryset) == expected, query
        outcomes.add(expected[0])
    assert outcomes == {"sql", "400"}  # both kinds were exercised


def test_every_list_filterset_is_compared():
    assert len(FILTERSETS) >= 16
