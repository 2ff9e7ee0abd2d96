"""A queryset's SQL compiled once per shape and re-run with other values (docs/architecture.md).

Compiling a queryset to SQL costs Django more CPU than PostgreSQL spends running a project's
retrieve (its three rollup subqueries are compiled anew for every request). `instances(key,
build, **values)` reads `build(**values)` (`first=True`: what `.first()` reads), but `build`
runs once per `key`, with a unique placeholder string in place of every value (a collection
of n values gets n); its SQL and `instances.Plan` are kept, and later calls put their values
where the placeholders were.

`key` must name everything the queryset's shape depends on besides `values` — the builder and
the number of values in each collection — and `build` may use `values` only as filter
values (never read the database or branch on them). A build in which a placeholder is found
anywhere but as a whole SQL parameter (in the SQL's text, inside another parameter, in a
prefetch), a datetime value converted on its way, or a queryset `Plan` cannot build, is
never kept: for those keys `instances` returns None and the caller reads the queryset
itself. Values are strings, aware datetimes (their placeholder is an instant of the year 1,
which no query of ours holds; it must reach the SQL as a whole parameter, unconverted, which
PostgreSQL's backend does and SQLite's does not), collections of strings (order does not
matter: they fill an `IN`), or None, which is passed to `build` as it is (so `key` must say
which values are None). At most `MAX_SHAPES` shapes are kept; past it, a new shape is
compiled at every call. tests/jobcost/selectors/test_fetch.py and
tests/jobcost/api/test_prepared_lists.py compare the SQL and rows with the ORM's.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import Model, Prefetch, QuerySet

from jobcost.selectors.instances import Plan, Unsupported, check_queryset, run

Value = str | datetime.datetime | Collection[str] | None

# Shapes kept at most (each is its SQL and its row plan).
MAX_SHAPES = 4096
# Characters a lookup may escape in a value on its way to the SQL (SQLite's `iexact` is a LIKE
# with `%`, `_` and `\` escaped): in every string placeholder, so that a build which escapes
# its values changes the placeholder and is never kept (the kept SQL would take later values
# unescaped).
_ESCAPED = "%_\\"
# A datetime value's placeholder: this instant plus its number in microseconds.
_YEAR_ONE = datetime.datetime(1, 1, 1, tzinfo=datetime.UTC)


@dataclass(frozen=True)
class _Prepared:
    sql: str
    params: tuple
    # (index in params, value name, index in that value's sorted collection or None)
    slots: tuple[tuple[int, str, int | None], ...]
    plan: Plan | None  # None for `rows`
    lookups: tuple
    db: str


_UNPREPARABLE = object()
_cache: dict[Hashable, _Prepared | object] = {}


def _placeholders(values: dict[str, Value]) -> tuple[dict, dict[object, tuple[str, int | None]]]:
    arguments, names = {}, {}
    for number, (name, value) in enumerate(values.items(), start=1):
        if value is None:
            arguments[name] = None
        elif isinstance(value, str):
            mark = f"⟪prepared:{name}{_ESCAPED}⟫"
            arguments[name], names[mark] = mark, (name, None)
        elif isinstance(value, datetime.datetime):
            moment = _YEAR_ONE + datetime.timedelta(microseconds=number)
            arguments[name], names[moment] = moment, (name, None)
        else:
            marks = [f"⟪prepared:{name}:{i}{_ESCAPED}⟫" for i in range(len(value))]
            arguments[name] = marks
            names.update({mark: (name, i) for i, mark in enumerate(marks)})
    return arguments, names


def first_queryset(queryset: QuerySet) -> QuerySet:
    """What `QuerySet.first()` reads: the first row by the queryset's order, else by pk."""
    return (queryset if queryset.ordered else queryset.order_by("pk"))[:1]


def _marked(texts) -> bool:
    return any("⟪prepared:" in text for text in texts)


def _prepare(build: Callable[..., QuerySet], first: bool, values: dict[str, Value]):
    arguments, names = _placeholders(values)
    queryset = build(**arguments)
    if first:
        queryset = first_queryset(queryset)
    try:
        check_queryset(queryset)
        lookups = tuple(queryset._prefetch_related_lookups)
        for lookup in lookups:
            if isinstance(lookup, Prefetch) and lookup.queryset is not None:
                inner_sql, inner_params = lookup.queryset.query.sql_with_params()
                if _marked([inner_sql, *map(repr, inner_params)]):
                    raise Unsupported("a value in a prefetch")
        db = queryset.db
        compiler = queryset.query.get_compiler(using=db)
        sql, params = compiler.as_sql()
        plan = Plan(compiler, db)
    except (Unsupported, EmptyResultSet):
        return _UNPREPARABLE
    slots = _slots(sql, params, names)
    if slots is None:
        return _UNPREPARABLE
    return _Prepared(sql, tuple(params), slots, plan, lookups, db)


def _is_mark(param) -> bool:
    return isinstance(param, str | datetime.datetime)


def _slots(sql: str, params, names: dict) -> tuple | None:
    """Where each placeholder lies in `params`; None when one lies anywhere else, or when a
    datetime's placeholder reaches no parameter as itself (it was converted)."""
    slots = [(i, *names[p]) for i, p in enumerate(params) if _is_mark(p) and p in names]
    # A mark found anywhere but as a whole parameter was transformed (`%mark%`) or inlined; a
    # year-1 date or text left over is a datetime placeholder the query converted.
    taken = {slot[0] for slot in slots}
    rest = [p for i, p in enumerate(params) if i not in taken]
    if _marked([sql, *map(repr, rest)]) or any(_year_one(p) for p in rest):
        return None
    placed = {(slot[1], slot[2]) for slot in slots}
    if any(
        isinstance(mark, datetime.datetime) and name not in placed for mark, name in names.items()
    ):
        return None
    return tuple(slots)


def _year_one(param) -> bool:
    if isinstance(param, datetime.date):
        return param.year == 1
    return isinstance(param, str) and param.startswith("0001-01-01")


def _prepare_rows(build: Callable[..., QuerySet], values: dict[str, Value]):
    arguments, names = _placeholders(values)
    queryset = build(**arguments)
    try:
        sql, params = queryset.query.get_compiler(using=queryset.db).as_sql()
    except EmptyResultSet:
        return _UNPREPARABLE
    slots = _slots(sql, params, names)
    if slots is None:
        return _UNPREPARABLE
    return _Prepared(sql, tuple(params), slots, None, (), queryset.db)


def _keep(key: Hashable, prepared):
    """Keep a new shape, unless `MAX_SHAPES` are kept already: then it serves this call only
    (the next call of that shape compiles again), and no client can push out the shapes every
    request uses (a key's, a retrieve's) by asking for many others."""
    if len(_cache) < MAX_SHAPES:
        _cache[key] = prepared
    return prepared


def _params(prepared: _Prepared, values: dict[str, Value]) -> list:
    params = list(prepared.params)
    ordered = {
        n: sorted(v) for n, v in values.items() if not isinstance(v, str | datetime.datetime | None)
    }
    for index, name, position in prepared.slots:
        params[index] = values[name] if position is None else ordered[name][position]
    return params


def _run(prepared: _Prepared, values: dict[str, Value]) -> list:
    return run(prepared.sql, _params(prepared, values), prepared.db)


def instances(
    key: Hashable, build: Callable[..., QuerySet], *, first: bool = False, **values: Value
) -> tuple[list[Model], tuple] | None:
    """The instances `build(**values)` reads (with `first`, at most the one `.first()`
    reads) and the queryset's prefetch lookups, still to run on them; None when this `key`
    cannot be prepared (see the module's docstring)."""
    prepared = _cache.get(key)
    if prepared is None:
        prepared = _keep(key, _prepare(build, first, values))
    if prepared is _UNPREPARABLE:
        return None
    conn = connections[prepared.db]
    rows = run(prepared.sql, _params(prepared, values), prepared.db, conn)
    return prepared.plan.instances(rows, conn), prepared.lookups


def rows(key: Hashable, build: Callable[..., QuerySet], **values: Value) -> list[tuple] | None:
    """The rows of `build(**values)`, a `.values()` queryset (aggregates, say), as tuples of
    the database's values in the select's column order, with no field's `from_db_value`
    applied: for columns whose database value is the Python one (integers, strings). The SQL
    is compiled once per `key`, under the rules `instances` follows; None when this `key`
    cannot be prepared, and the caller reads the queryset itself."""
    key = ("rows", key)  # never the key of an `instances` plan
    prepared = _cache.get(key)
    if prepared is None:
        prepared = _keep(key, _prepare_rows(build, values))
    if prepared is _UNPREPARABLE:
        return None
    return _run(prepared, values)


def statement(key: Hashable, build: Callable[..., QuerySet], **values: Value) -> tuple | None:
    """(sql, params) of `build(**values)`, for a caller that runs it inside a statement of
    its own (a CTE's SELECT, say): compiled once per `key` under the rules `instances`
    follows, the values put in their places on each call; None when this `key` cannot be
    prepared, and the caller compiles the queryset itself."""
    key = ("statement", key)  # never the key of an `instances` or `rows` plan
    prepared = _cache.get(key)
    if prepared is None:
        prepared = _keep(key, _prepare_rows(build, values))
    if prepared is _UNPREPARABLE:
        return None
    return prepared.sql, _params(prepared, values)
