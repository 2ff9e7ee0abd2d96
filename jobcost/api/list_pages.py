"""Reading one page of a resource's list with its SQL compiled once per shape (fast reads;
docs/architecture.md).

A list's page is its resource's selector in the key's scope, filtered by the request's
cleaned filters (`jobcost.api.filters.clean_filters`), ordered, after the cursor's key values
and cut at `limit` + 1 (`jobcost.api.pagination.page_query`). Compiling that queryset to SQL
was an eighth of a 100-invoice list's CPU. `selector_page` reads it through
`jobcost.selectors.prepared`: the queryset is built once per shape — the selector, the
FilterSet, which filters are set and the type of each value, whether a cursor is given, the
order, the limit and how many projects restrict the key — with placeholders for the account,
the key's projects, the filter values and the cursor's values, and later requests of the same
shape run its SQL with their own. A value that is neither a string nor a datetime (a date
filter), a cursor value the model's field does not read, or a shape the prepared queries
refuse is read through the ORM, as any other list is. tests/jobcost/api/test_prepared_lists.py
compares both ways.
"""

from __future__ import annotations

import datetime

from django.core.exceptions import ValidationError

from jobcost.api.filters import filter_by
from jobcost.api.pagination import page_query
from jobcost.resources import RESOURCES
from jobcost.scope import Scope
from jobcost.selectors import fetch, prepared


def _preparable(value) -> bool:
    """A string, or an aware datetime: the ORM would make a naive one aware (with a warning)
    on its way to the SQL, which a kept statement would not do."""
    if isinstance(value, datetime.datetime):
        return value.tzinfo is not None
    return isinstance(value, str)


def selector_page(
    serializer_class,
    filterset_class,
    filters: list[tuple],
    scope: Scope,
    *,
    limit: int,
    keys: tuple[str, ...],
    ascending: bool,
    after_values: list[str] | None,
) -> list | None:
    """The page's `limit` + 1 rows of `serializer_class`'s resource (its selector in `scope`)
    with `filters` (`clean_filters`' triples) applied, or None when this request's shape is
    not prepared (the caller then reads the queryset itself)."""
    values: dict[str, prepared.Value] = {}
    for index, (_name, _filter, value) in enumerate(filters):
        if not _preparable(value):
            return None
        values[f"f{index}"] = value
    if after_values is not None:
        model = RESOURCES[serializer_class.object_name].model
        try:
            parsed = [
                model._meta.get_field(k).to_python(v)
                for k, v in zip(keys, after_values, strict=True)
            ]
        except ValidationError:
            return None  # the ORM's own reading raises what it raises
        if not all(_preparable(v) for v in parsed):
            return None
        values.update({f"a{index}": value for index, value in enumerate(parsed)})
    selector = serializer_class.selector
    names = tuple(name for name, _, _ in filters)
    declared = filterset_class.base_filters if filterset_class is not None else {}
    ids = scope.project_ids
    key = (
        "list_page",
        selector,
        filterset_class,
        tuple((name, type(values[f"f{i}"])) for i, name in enumerate(names)),
        None if ids is None else len(ids),
        after_values is not None,
        ascending,
        keys,
        limit,
    )
    cursor = after_values is not None

    def build(account_id, project_ids, **given):
        queryset = selector(
            Scope(account_id, None if project_ids is None else frozenset(project_ids))
        )
        queryset = filter_by(
            queryset,
            [(name, declared[name], given[f"f{index}"]) for index, name in enumerate(names)],
        )
        after = [given[f"a{index}"] for index in range(len(keys))] if cursor else None
        return page_query(queryset, limit=limit, keys=keys, ascending=ascending, after_values=after)

    found = prepared.instances(key, build, account_id=scope.account_id, project_ids=ids, **values)
    if found is None:
        return None
    objects, lookups = found
    fetch.prefetch(objects, lookups)
    return objects
