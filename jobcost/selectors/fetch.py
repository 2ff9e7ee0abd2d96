"""Querysets read into model instances without `Model.__init__` (docs/architecture.md).

`fetch(queryset)` returns what `list(queryset)` returns — instances of the queryset's model
with the same field values, `select_related` objects, annotations and prefetched relations,
in the same order, with the same queries — for a fraction of the CPU: the rows are built by
a `jobcost.selectors.instances.Plan`. `first(key, build, **values)` is `build(**values).first()`
with the SQL compiled once per `key` (`jobcost.selectors.prepared`), and `many(key, build,
**values)` is `list(build(**values))` the same way.

A reverse foreign key prefetched into a list (`Prefetch("lines", to_attr="line_list")`) is read
with one query for all parents, built the same way and grouped in Python (each child's
foreign key cache set to its parent, as Django does); without a queryset of its own, that
query's SQL is compiled once per number of parents. Any other prefetch goes through
`prefetch_related_objects`. A queryset `Plan` cannot build (or `values()`, known related
objects) is read by `list(queryset)`. tests/jobcost/selectors/test_fetch.py compares both
ways; tests/jobcost/api/test_output.py renders every route both ways.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from inspect import getattr_static
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db.models import Model, Prefetch, QuerySet, prefetch_related_objects
from django.db.models.fields.related_descriptors import ReverseManyToOneDescriptor

from jobcost.selectors import prepared
from jobcost.selectors.instances import Plan, Unsupported, check_queryset, run


def fetch(queryset: QuerySet) -> list[Model]:
    """`list(queryset)`, built without `Model.__init__` (see the module's docstring); falls
    back to `list(queryset)` for what it cannot build exactly. Raises what running the query
    raises."""
    if queryset._result_cache is not None:
        return list(queryset)
    try:
        check_queryset(queryset)
        db = queryset.db
        compiler = queryset.query.get_compiler(using=db)
        sql, params = compiler.as_sql()
        plan = Plan(compiler, db)
    except Unsupported:
        return list(queryset)
    except EmptyResultSet:
        return []
    if not sql:
        return []
    objects = plan.instances(run(sql, params, db))
    prefetch(objects, queryset._prefetch_related_lookups)
    return objects


def prefetch(objects: list[Model], lookups: Sequence[str | Prefetch]) -> None:
    """Run a queryset's `prefetch_related` lookups on `objects` (fetched instances of one
    model): a reverse foreign key into a list attribute by `fetch`, the rest by Django."""
    if not objects or not lookups:
        return
    for obj in objects:  # as `prefetch_related_objects` leaves every instance it is given
        if "_prefetched_objects_cache" not in obj.__dict__:
            obj._prefetched_objects_cache = {}
    rest = [lookup for lookup in lookups if not _prefetch_list(objects, lookup)]
    if rest:
        prefetch_related_objects(objects, *rest)


def _children(own: QuerySet | None, queryset: QuerySet, field, keys: list) -> list[Model]:
    """The children of `keys` (`field` is their foreign key): a lookup without a queryset of
    its own reads the default manager's, prepared once per number of parents."""
    column = f"{field.attname}__in"
    if own is None and all(isinstance(key, str) for key in keys):
        found = prepared.instances(
            (_children, field, len(keys)),
            lambda parents: queryset.filter(**{column: parents}),
            parents=keys,
        )
        if found is not None:
            objects, lookups = found
            prefetch(objects, lookups)
            return objects
    return fetch(queryset.filter(**{column: keys}))


def first(key: Hashable, build: Callable[..., QuerySet], **values: prepared.Value) -> Model | None:
    """`build(**values).first()`, its SQL compiled once per `key`
    (`jobcost.selectors.prepared.instances`, whose rules `key`, `build` and `values` follow)."""
    found = prepared.instances(key, build, first=True, **values)
    if found is None:
        return build(**values).first()
    objects, lookups = found
    prefetch(objects, lookups)
    return objects[0] if objects else None


def many(key: Hashable, build: Callable[..., QuerySet], **values: prepared.Value) -> list[Model]:
    """`list(build(**values))` with its prefetches, the SQL compiled once per `key`
    (`jobcost.selectors.prepared.instances`, whose rules `key`, `build` and `values` follow)."""
    found = prepared.instances(key, build, **values)
    if found is None:
        return fetch(build(**values))
    objects, lookups = found
    prefetch(objects, lookups)
    return objects


def _prefetch_list(objects: list[Model], lookup: Any) -> bool:
    """`Prefetch(<reverse FK>, to_attr=…)` in one query, the children grouped in Python;
    False (nothing done) for any other lookup."""
    if not isinstance(lookup, Prefetch) or lookup.to_attr is None:
        return False
    if "__" in lookup.prefetch_through:
        return False
    model = type(objects[0])
    descriptor = getattr_static(model, lookup.prefetch_through, None)
    if type(descriptor) is not ReverseManyToOneDescriptor:
        return False
    field = descriptor.field
    if field.target_field is not model._meta.pk or len(field.foreign_related_fields) != 1:
        return False
    queryset = lookup.queryset
    if queryset is None:
        queryset = field.model._default_manager.get_queryset()
    if queryset.query.is_sliced:
        return False
    keys = [obj.pk for obj in objects]
    children = _children(lookup.queryset, queryset, field, keys)
    grouped: dict[Any, list] = {key: [] for key in keys}
    for child in children:
        grouped[child.__dict__[field.attname]].append(child)
    cache_name = field.cache_name
    for obj in objects:
        found = grouped[obj.pk]
        for child in found:
            cache = child._state.__dict__.get("fields_cache")
            if cache is None:
                child._state.fields_cache = {cache_name: obj}
            elif cache_name not in cache:  # unless select_related loaded it, as Django does
                cache[cache_name] = obj
        setattr(obj, lookup.to_attr, found)
    return True
