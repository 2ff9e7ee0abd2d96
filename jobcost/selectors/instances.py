"""Result rows built into model instances without `Model.__init__` (docs/architecture.md).

Django builds each row through `Model.__init__` (a loop over every field with `setattr`, two
signals) and each `select_related` object the same way; on a page of 100 invoices with their
projects and 300 lines that was most of the ORM's time. A `Plan`, made from a compiled
query, builds an instance as `Model.__new__` with its column values put straight into
`__dict__` and a `ModelState` marked as loaded from the database: exactly the state `from_db`
leaves, since every loaded field's attribute is a plain `DeferredAttribute` that reads
`__dict__`; annotations and `select_related` objects are set as Django sets them. A model it
cannot build exactly — `pre_init`/`post_init` receivers, its own `__init__`, `__new__` or
`from_db`, a field with its own descriptor, multi-table inheritance — raises `Unsupported`
before any query runs, and the caller reads the queryset through Django.
"""

from __future__ import annotations

from collections.abc import Sequence
from inspect import getattr_static

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query import ModelIterable
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init

_PLAIN_DESCRIPTORS = (DeferredAttribute, ForeignKeyDeferredAttribute)


class Unsupported(Exception):
    """The queryset (or a model it loads) is not one `fetch` builds exactly: use Django."""


def _check_model(model: type[Model]) -> None:
    if (
        model.__init__ is not Model.__init__
        or model.from_db.__func__ is not Model.from_db.__func__
        or model.__new__ is not Model.__new__
        or pre_init.has_listeners(model)
        or post_init.has_listeners(model)
    ):
        raise Unsupported(model.__name__)


class _Builder:
    """Builds instances of one model from its slice of a result row, and recursively the
    `select_related` objects hung on it (`klass_info` and `select` as the SQL compiler
    leaves them)."""

    def __init__(self, klass_info: dict, select: Sequence, db: str):
        model = klass_info["model"]
        _check_model(model)
        if klass_info.get("from_parent"):
            raise Unsupported(f"{model.__name__}: multi-table inheritance")
        fields = klass_info["select_fields"]
        self.start, self.end = fields[0], fields[-1] + 1
        self.attnames = tuple(column[0].target.attname for column in select[self.start : self.end])
        for name in self.attnames:
            if type(getattr_static(model, name, None)) not in _PLAIN_DESCRIPTORS:
                raise Unsupported(f"{model.__name__}.{name}: own descriptor")
        self.pk_position = self.start + self.attnames.index(model._meta.pk.attname)
        self.model = model
        self.db = db
        self.related = [
            (_Builder(info, select, db), info["local_setter"], info["remote_setter"])
            for info in klass_info.get("related_klass_infos", ())
        ]

    def build(self, row: Sequence) -> Model:
        obj = self.model.__new__(self.model)
        values = obj.__dict__
        values.update(zip(self.attnames, row[self.start : self.end], strict=True))
        state = ModelState()
        state.adding = False
        state.db = self.db
        values["_state"] = state
        for builder, local_setter, remote_setter in self.related:
            related = None if row[builder.pk_position] is None else builder.build(row)
            local_setter(obj, related)
            if related is not None:
                remote_setter(related, obj)
        return obj


class Plan:
    """How the rows of one compiled query become instances: the builders, the annotations'
    positions and the columns' converters. Built from a compiler after `as_sql()`; holds
    nothing of a request, so a prepared query (`jobcost.selectors.prepared`) keeps it."""

    def __init__(self, compiler, db: str):
        if compiler.klass_info is None:
            raise Unsupported("no model rows")
        self.builder = _Builder(compiler.klass_info, compiler.select, db)
        model = self.builder.model
        self.annotations = [
            (name, position, getattr_static(model, name, None) is None)
            for name, position in (compiler.annotation_col_map or {}).items()
        ]
        columns = [column[0] for column in compiler.select[0 : compiler.col_count]]
        if compiler.has_composite_fields(columns):
            raise Unsupported("composite fields")
        self.converters = list(compiler.get_converters(columns).items())
        self.db = db

    def instances(self, rows: list, connection=None) -> list[Model]:
        """Instances of raw database rows (converters applied here, as Django applies them,
        with `connection`, `self.db`'s connection of this thread, looked up when None)."""
        if self.converters:
            connection = connections[self.db] if connection is None else connection
            rows = [list(row) for row in rows]
            for row in rows:
                for position, (converters, expression) in self.converters:
                    value = row[position]
                    for converter in converters:
                        value = converter(value, expression, connection)
                    row[position] = value
        build = self.builder.build
        objects = []
        for row in rows:
            obj = build(row)
            for name, position, plain in self.annotations:
                if plain:
                    obj.__dict__[name] = row[position]
                else:
                    setattr(obj, name, row[position])
            objects.append(obj)
        return objects


def check_queryset(queryset: QuerySet) -> None:
    """Raises `Unsupported` unless the queryset yields plain model instances."""
    if (
        queryset._iterable_class is not ModelIterable
        or queryset._known_related_objects
        or queryset._fields is not None
    ):
        raise Unsupported("not plain model rows")


def run(sql: str, params: Sequence, db: str, conn=None) -> list:
    """The rows of one SQL statement on `db`'s connection.

    Where Django logs queries (`DEBUG`, or a test counting them) or an `execute_wrapper` is
    installed, and on SQLite, the statement goes through Django's cursor, so it is counted,
    logged and wrapped as any query. Otherwise, on PostgreSQL, it runs on a psycopg cursor kept
    with the connection (`kept_cursor`): the same connection, transaction, adapters and
    prepared statements, with Django's checks (a transaction needing its rollback, a connection
    shared across threads) and its `DatabaseError`s, but without the cursor and wrapper Django
    builds for every statement: a retrieve's read took 72 µs of CPU in process with them, 51
    without (docs/benchmarks.md, "Reads under gunicorn"). Raises Django's
    `DatabaseError`s. `conn` is `db`'s connection of this thread (looked up when None)."""
    conn = connections[db] if conn is None else conn
    if conn.vendor != "postgresql" or conn.queries_logged or conn.execute_wrappers:
        with conn.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    cursor = kept_cursor(conn)
    with conn.wrap_database_errors:
        cursor.execute(sql, params)
        return cursor.fetchall()


def kept_cursor(conn):
    """The psycopg cursor kept with Django's PostgreSQL connection `conn` (one per connection,
    so per thread), after the checks Django's `cursor()` and `execute` make (health check,
    connect, thread sharing, a transaction marked for rollback: raising as Django does);
    opened again when Django has replaced its psycopg connection (closed at a request's end,
    reconnected). Statements on it are not seen by Django's query log or `execute_wrapper`s;
    run them inside `conn.wrap_database_errors` to get Django's `DatabaseError`s. `run` and the
    webhook drain's re-read of its endpoint (`webhooks.drain`) use it."""
    conn.close_if_health_check_failed()
    conn.ensure_connection()
    conn.validate_thread_sharing()
    conn.validate_no_broken_transaction()
    raw = conn.connection
    kept = getattr(conn, "_jobcost_kept_cursor", None)
    if kept is None or kept.connection is not raw or kept.closed:
        with conn.wrap_database_errors:
            kept = conn._jobcost_kept_cursor = raw.cursor()
    return kept
