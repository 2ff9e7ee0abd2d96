"""Helpers shared by the services: their transaction, locking, the closed-project rule,
audited saves."""

from __future__ import annotations

import datetime
import functools
import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from django.db import IntegrityError, connection, models, transaction
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from audit import services as audit
from audit.audited import Audited
from jobcost.error_codes import ProjectErrorCode, RequestErrorCode, ResourceErrorCode
from jobcost.errors import Conflict, InvalidRequest
from jobcost.models import Project, ProjectStatus
from jobcost.selectors import fresh
from jobcost.selectors.instances import Plan, run

M = TypeVar("M", bound=models.Model)
F = TypeVar("F", bound=Callable)

# The connection attribute holding the depth (`len(atomic_blocks)`) of a block in which any
# error rolls everything back (`all_or_nothing`), or of a service run directly inside one.
_FLAT = "jobcost_all_or_nothing_depth"


@contextmanager
def all_or_nothing() -> Iterator[None]:
    """A transaction (or, nested, a savepoint) whose caller rolls it back whole on any error
    and never catches a service's error to carry on inside it — the API's request
    transaction (`jobcost.api.viewsets`). The services called directly inside it, and the
    services they call in turn, take no savepoint of their own (`service`): there is nothing
    a savepoint could keep."""
    with transaction.atomic():
        connection = transaction.get_connection()
        previous = getattr(connection, _FLAT, None)
        setattr(connection, _FLAT, len(connection.atomic_blocks))
        try:
            yield
        finally:
            setattr(connection, _FLAT, previous)


def service(func: F) -> F:
    """The transaction of a public service (every write): `transaction.atomic`, and the
    audit entries the call records are written together at its end
    (`audit.services.batch`: one INSERT of entries, then their events and deliveries in a
    constant number of queries), inside the transaction, so they commit or roll back with the
    change. Run directly inside an `all_or_nothing` block (or inside a service so run), no
    savepoint is taken: an error there rolls the whole block back anyway. Elsewhere — the
    back office, commands, tasks, a service that catches a nested call's error inside its own
    `transaction.atomic()` — the call keeps its savepoint."""

    @functools.wraps(func)
    def run_service(*args, **kwargs):
        fresh.forget()
        connection = transaction.get_connection()
        depth = len(connection.atomic_blocks)
        flat = getattr(connection, _FLAT, None) == depth
        with transaction.atomic(savepoint=not flat):
            if flat:
                setattr(connection, _FLAT, depth + 1)
            try:
                with audit.batch():
                    return func(*args, **kwargs)
            finally:
                if flat:
                    setattr(connection, _FLAT, depth)

    return run_service  # type: ignore[return-value]


def ensure_project_open(project: Project) -> None:
    """409 `project_closed`: a closed project refuses every write to it or its children."""
    if project.status == ProjectStatus.CLOSED:
        raise Conflict(
            f"Project {project.number} is closed; it and its records can no longer change.",
            code=ProjectErrorCode.PROJECT_CLOSED,
            object_id=project.pk,
        )


# The services' row locks are `FOR NO KEY UPDATE`, the lock PostgreSQL itself takes for an
# UPDATE that leaves the row's key alone (its primary key and unique columns): two of them
# still exclude each other, but neither blocks the `FOR KEY SHARE` a foreign-key check takes
# on the row an INSERT refers to. Django's foreign keys are checked at commit (deferred), while
# the writer still holds its locks: with `FOR UPDATE`, a write holding a cost code or a change
# order and waiting for its project deadlocked with a pay app's creation, which holds the
# project and, at commit, checks the lines it inserted against them. An UPDATE of a unique
# column (a project's, cost code's or document's `number` or `code`, a daily log's `date`)
# takes the stronger lock when it runs.


def lock_open_project(project_id: str, *, exclusive: bool = False) -> Project:
    """Lock the project row (so it cannot close under a child write) and check it is open;
    `exclusive` locks it `FOR UPDATE`, which also waits for the writes that hold it `FOR KEY
    SHARE` (a pay app's submission, which locks a billing period: `hold_project_open`)."""
    project = Project.objects.select_for_update(no_key=not exclusive).get(pk=project_id).track()
    ensure_project_open(project)
    return project


def hold(model: type[M], pk: str) -> M:
    """Read one row under `SELECT … FOR KEY SHARE`: the lock a foreign-key check takes, which
    keeps the row from a key change, a deletion and a `FOR UPDATE` (a status move that locks
    `exclusive`) until this transaction ends, but which neither waits for nor blocks the `FOR
    NO KEY UPDATE` of the row's other writes (docs/architecture.md, "Row locks"). Django's
    `select_for_update` has no such strength, so the query is written here. Raises the
    model's `DoesNotExist`. SQLite, which runs one writer at a time, reads the row."""
    if connection.vendor != "postgresql":
        return model.objects.get(pk=pk)
    meta = model._meta
    table, key = connection.ops.quote_name(meta.db_table), meta.pk.column
    # Only model metadata (the quoted table, the key's column) is interpolated.
    sql = f"SELECT * FROM {table} WHERE {key} = %s FOR KEY SHARE"  # noqa: S608
    found = list(model.objects.raw(sql, [pk]))
    if not found:
        raise model.DoesNotExist(f"No {meta.model_name} {pk}.")
    return found[0]


def hold_with(model: type[M], pk: str, *related: str, locked: tuple[str, ...] = ()) -> M:
    """`hold` a row together with the rows its `related` foreign keys point to (non-null,
    forward, each to a table of its own), in one query, except the `locked` ones among them,
    which it locks `FOR NO KEY UPDATE` as `lock_with` does. Django cannot write mixed
    strengths, so its SQL gets one locking clause per table, in the order given —
    `… FOR KEY SHARE OF <model> FOR KEY SHARE OF <related> … FOR NO KEY UPDATE OF <locked>` —
    since PostgreSQL locks a row's tables in the order of the clauses naming them (the row
    first, then `related` in order: the documented lock order), and the rows are built by
    `jobcost.selectors.instances.Plan`. Raises the model's `DoesNotExist`, Django's
    `TransactionManagementError` outside a transaction (the share locks would end at once),
    `ValueError` for a table named twice, and `Plan`'s `Unsupported` for a model it cannot
    build (init signals, its own `__init__` or a field with its own descriptor).
    SQLite, which runs one writer at a time, reads the rows."""
    queryset = model.objects.select_related(*related).filter(pk=pk)
    if connection.vendor != "postgresql":
        return queryset.get()
    if connection.get_autocommit():
        raise TransactionManagementError("hold_with needs a transaction.")
    tables = [model._meta.db_table]
    tables += [model._meta.get_field(name).related_model._meta.db_table for name in related]
    if len(set(tables)) != len(tables):
        raise ValueError(f"hold_with locks each table once: {tables}")
    clauses = " ".join(
        f"FOR {'NO KEY UPDATE' if name in locked else 'KEY SHARE'} OF "
        f"{connection.ops.quote_name(table)}"
        for name, table in zip(("self", *related), tables, strict=True)
    )
    compiler = queryset.query.get_compiler(using=queryset.db)
    sql, params = compiler.as_sql()
    found = Plan(compiler, queryset.db).instances(run(f"{sql} {clauses}", params, queryset.db))
    if not found:
        raise model.DoesNotExist(f"No {model._meta.model_name} {pk}.")
    return found[0]


def hold_project_open(project_id: str) -> Project:
    """`hold` the project and check it is open (409 `project_closed`), for a write to a child
    that moves none of the project's totals (an invoice's receipt or coding). The share lock
    keeps the project from closing, and its billing periods from locking, until the write
    commits — a status move and a pay app's submission lock the project `FOR UPDATE`, which
    waits for it, and a write that waited for them reads the project and periods they left —
    yet it never queues behind the `FOR NO KEY UPDATE` that the project's other writes hold,
    so it runs beside them (docs/architecture.md, "Row locks")."""
    project = hold(Project, project_id)
    ensure_project_open(project)
    return project


def lock(model: type[M], pk: str, *, exclusive: bool = False) -> M:
    """Re-read one row under `SELECT … FOR NO KEY UPDATE` for a state change — or, with
    `exclusive`, `FOR UPDATE`, which also waits for the writes that hold the row with `FOR KEY
    SHARE` (`hold`: a project's status move); an audited row is tracked (`Audited.track`), so
    its entry's `before` values need no second read. A child row that such writes hold is
    locked plainly, then raised with `lock_exclusively` once its project is locked."""
    obj = model.objects.select_for_update(no_key=not exclusive).get(pk=pk)
    return obj.track() if isinstance(obj, Audited) else obj


def lock_exclusively(model: type[M], pk: str) -> None:
    """Raise this transaction's `FOR NO KEY UPDATE` on a row to `FOR UPDATE`, which waits for
    the writes holding it `FOR KEY SHARE` (`hold`) and keeps new ones out until the commit.
    Called once the row's project is locked as well, never before: the writes that lock the
    project and then insert a row referring to this one (a commitment change order's or lien
    waiver's creation, whose foreign-key check at commit takes `FOR KEY SHARE` on it) are then
    either done or still waiting for the project, so neither waits for the other."""
    model.objects.select_for_update().filter(pk=pk).values_list("pk", flat=True).get()


def lock_with(model: type[M], pk: str, *related: str) -> M:
    """`lock` a row together with the rows its `related` foreign keys (non-null, forward)
    point to, in one `SELECT … FOR NO KEY UPDATE` of the joined rows; each audited row is tracked.
    PostgreSQL's executor locks a result row's tuples in FROM order — the row, then the
    related rows in the model's field order. That is how its row-locking step walks the
    query's tables, not an order its documentation promises, so use it only where that is
    the documented lock order, and keep a test that would deadlock otherwise
    (tests/jobcost/api/test_lock_order.py holds the invoice approval's)."""
    obj = model.objects.select_for_update(no_key=True).select_related(*related).get(pk=pk)
    for row in (obj, *(getattr(obj, name) for name in related)):
        if isinstance(row, Audited):
            row.track()
    return obj


def save_audited(
    instance: M,
    *,
    action: str | None = None,
    note: str = "",
    extra: dict | None = None,
    defer_created: bool = False,
) -> M:
    """Check the model's field rules (`clean_fields`), then save through the audit trail
    (`audit.services.save`): `action` names the transition (`executed`, …), `note` says why,
    `extra` adds changes held by child rows. `defer_created`: a new object whose child rows
    come next; call `audit.services.record_created(instance)` once they are written."""
    clean_fields(instance)
    return audit.save(instance, action=action, note=note, extra=extra, defer=defer_created)


def clean_fields(instance: models.Model) -> None:
    """The model's own field rules (choices, lengths, blank), as every audited save checks
    them; raises Django's `ValidationError` keyed by field. Bulk writes call it per row before
    `bulk_create`, so the rows they insert pass the same checks as a `save_audited` one."""
    relations = [f.name for f in instance._meta.concrete_fields if f.is_relation]
    instance.full_clean(exclude=relations, validate_unique=False, validate_constraints=False)


def bulk_set(model: type[M], instances: list[M], fields: list[str]) -> None:
    """Write `fields` of many loaded rows in one statement: the values the instances hold,
    matched by primary key. For counters moved under the rows' lock (`select_for_update`
    first). On PostgreSQL it is one `UPDATE … FROM unnest(<one array per column>)`, whose
    cost hardly grows with the rows (`QuerySet.bulk_update` builds a CASE per row and field:
    seconds for a thousand rows; docs/operations/limits.md); elsewhere `bulk_update`. Sends no
    signal: callers write the audit entries (`audit.services.record_updated_many`)."""
    if not instances:
        return
    if connection.vendor != "postgresql":
        model.objects.bulk_update(instances, fields)
        return
    meta = model._meta
    quote = connection.ops.quote_name
    columns = [meta.pk, *(meta.get_field(name) for name in fields)]
    arrays = [
        [field.get_db_prep_value(getattr(obj, field.attname), connection) for obj in instances]
        for field in columns
    ]
    names = [f"c{index}" for index in range(len(columns))]
    unnest = ", ".join(f"%s::{field.cast_db_type(connection)}[]" for field in columns)
    assignments = ", ".join(
        f"{quote(field.column)} = v.{name}"
        for field, name in zip(columns[1:], names[1:], strict=True)
    )
    table = quote(meta.db_table)
    # Only model metadata (quoted names, column types) is interpolated; values are params.
    sql = (
        f"UPDATE {table} SET {assignments} FROM unnest({unnest}) AS v({', '.join(names)}) "  # noqa: S608
        f"WHERE {table}.{quote(meta.pk.column)} = v.c0"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, arrays)


def check_writable(changes: dict, writable: frozenset[str]) -> None:
    """400 `parameter_read_only` for a field the update may not write. The services own this
    list (docs/resources.md, says what each PATCH writes), so no caller — API, admin, agent action —
    can write around it."""
    for name in changes:
        if name not in writable:
            raise InvalidRequest(
                f"{name} cannot be changed.", code=RequestErrorCode.PARAMETER_READ_ONLY, param=name
            )


def ensure_same_account(obj: models.Model, account_id: str, *, param: str, noun: str) -> None:
    """400 `parameter_invalid` when a referenced object belongs to another account."""
    if obj.account_id != account_id:
        raise InvalidRequest(f"This {noun} belongs to another account.", param=param)


def apply_changes(instance: M, changes: dict, writable: frozenset[str]) -> bool:
    """Set the given fields (each must be `writable`); True when anything differs."""
    check_writable(changes, writable)
    changed = False
    for field, value in changes.items():
        if getattr(instance, field) != value:
            setattr(instance, field, value)
            changed = True
    return changed


def ensure_free(
    queryset: models.QuerySet,
    *,
    param: str,
    message: str,
    exclude_pk: str | None = None,
    name_clash: bool = False,
) -> None:
    """409 `resource_already_exists` with `param` when `queryset` (the rows holding the value
    in the same scope) has a row other than `exclude_pk`; `name_clash` puts the existing row's
    ID in `object` (so a client can go to it)."""
    clash = queryset.exclude(pk=exclude_pk).values_list("pk", flat=True).first()
    if clash is not None:
        raise Conflict(
            message,
            code=ResourceErrorCode.RESOURCE_ALREADY_EXISTS,
            param=param,
            object_id=clash if name_clash else None,
        )


def create_unique(factory: Callable[[], M], *, param: str, message: str) -> M:
    """Run an insert in a savepoint; a unique violation becomes 409 `resource_already_exists`."""
    try:
        with transaction.atomic():
            return factory()
    except IntegrityError as exc:
        raise Conflict(
            message, code=ResourceErrorCode.RESOURCE_ALREADY_EXISTS, param=param
        ) from exc


def not_allowed(
    obj: models.Model, verb: str = "", message: str | None = None, *, param: str | None = None
) -> Conflict:
    """The one builder of 409 `invalid_state_transition` (about `obj`, with `param` when a
    field asked for the move): `message`, or "Cannot <verb> a(n) <object> that is
    <status>."."""
    if message is None:
        noun = "RFI" if obj.OBJECT == "rfi" else obj.OBJECT.replace("_", " ")
        article = "an" if noun[0] in "aeiouAEIOU" or noun == "RFI" else "a"
        message = f"Cannot {verb} {article} {noun} that is {obj.status}."
    return Conflict(
        message, code=ResourceErrorCode.INVALID_STATE_TRANSITION, param=param, object_id=obj.pk
    )


def lock_project_first(model: type[M], pk: str, *, exclusive: bool = False) -> M:
    """Lock a project child's open project (409 `project_closed`; `FOR UPDATE` when
    `exclusive`, as `lock_open_project`), then the child row (tracked, as `lock` does): for
    the children that a write to their project locks after the project (a change order's
    approval lands on the project's draft pay app), so that every write takes the two in one
    order. The project's ID is read first, without a lock: a child never moves to another
    project."""
    project_id = model.objects.values_list("project_id", flat=True).get(pk=pk)
    lock_open_project(project_id, exclusive=exclusive)
    return lock(model, pk)


def lock_in_state(
    model: type[M],
    pk: str,
    *,
    allowed: tuple[str, ...],
    verb: str,
    message: str | None = None,
    project_first: bool = False,
    exclusive: bool = False,
) -> M:
    """Lock a project child row and its open project (409 `project_closed`), the child first
    unless `project_first` (`lock_project_first`), and check its status is one of `allowed`
    (409 `invalid_state_transition`). `exclusive` also locks a row `FOR UPDATE`, so the move
    waits for the writes holding it `FOR KEY SHARE` (`hold`): with `project_first`, the
    project, from the start (a pay app's submission waits for the receipts and codings on its
    project); else the child, once the project is locked too (`lock_exclusively`: a
    commitment's close waits for the invoices being received on it)."""
    if project_first:
        obj = lock_project_first(model, pk, exclusive=exclusive)
    else:
        obj = lock(model, pk)
        lock_open_project(obj.project_id)
        if exclusive:
            lock_exclusively(model, pk)
    if obj.status not in allowed:
        raise not_allowed(obj, verb, message)
    return obj


def transition(
    model: type[M],
    pk: str,
    *,
    allowed: tuple[str, ...],
    to: str,
    verb: str,
    action: str,
    stamp: str | None = None,
    message: str | None = None,
    project_first: bool = False,
    exclusive: bool = False,
) -> M:
    """A plain state move: `lock_in_state` (with `project_first` and `exclusive`), set
    `status = to` and the `stamp` time field, save with the audit `action`."""
    obj = lock_in_state(
        model,
        pk,
        allowed=allowed,
        verb=verb,
        message=message,
        project_first=project_first,
        exclusive=exclusive,
    )
    obj.status = to
    if stamp:
        setattr(obj, stamp, timezone.now())
    return save_audited(obj, action=action)


def day_in_words(day: datetime.date) -> str:
    """`November 6, 2026`: a date as a refusal message writes it."""
    return f"{day:%B} {day.day}, {day.year}"


def ensure_not_future(day: datetime.date, *, param: str, what: str) -> datetime.date:
    """A day that has come (the account's business day, `localdate`): 400
    `parameter_invalid` with `param` for a later one, naming `what` ("The date received")
    and today in words. Returns `day`."""
    today = timezone.localdate()
    if day > today:
        raise InvalidRequest(
            f"{what}, {day_in_words(day)}, is in the future; enter today "
            f"({day_in_words(today)}) or an earlier day.",
            param=param,
        )
    return day


def next_number(taken: set[str], prefix: str) -> str:
    """The next `<prefix>-nnn` (`SC-001`, `CO-002`, …): one past the count of the project's
    numbers with that prefix, skipping any taken, so numbers keep rising after a custom one.
    Callers hold the project's row lock, so two creates never pick the same one."""
    n = 1 + sum(1 for t in taken if t.startswith(prefix + "-"))
    while f"{prefix}-{n:03d}" in taken:
        n += 1
    return f"{prefix}-{n:03d}"


def advisory_lock_id(*parts: str) -> int:
    """The signed 64-bit PostgreSQL advisory-lock ID of `parts` (the first 8 bytes of the
    SHA-256 of the parts joined by NUL): ("budget_import", id), (API key ID, Idempotency-Key)."""
    digest = hashlib.sha256("\x00".join(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def try_advisory_lock(*parts: str) -> bool:
    """Take the transaction-scoped advisory lock of `parts` without waiting; False when
    another transaction holds it. True on SQLite, which has none (it serializes writers)."""
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [advisory_lock_id(*parts)])
        return bool(cursor.fetchone()[0])
