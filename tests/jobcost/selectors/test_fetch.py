"""`fetch` (jobcost/selectors/fetch.py) reads what `list(queryset)` reads — the same instances
in the same order, the same field values, annotations, `select_related` objects and prefetched
relations, with the same number of queries — and `fetch.first` what `.first()` reads, from SQL
compiled once per shape (jobcost/selectors/prepared.py) that is the ORM's SQL, and `fetch.many`
what `list()` reads the same way."""

from __future__ import annotations

from collections import Counter

import pytest
from django.db import connection
from django.db.models import Max, Model, Sum
from django.db.models.functions import Abs
from django.db.models.signals import post_init
from django.test.utils import CaptureQueriesContext

from jobcost.demo.loader import demo_job_load
from jobcost.models import BudgetLine, Invoice, Project
from jobcost.resources import RESOURCES
from jobcost.scope import Scope
from jobcost.selectors import fetch, prepared
from jobcost.services.budget_imports import budget_import_start
from tests.factories import ProjectFactory
from tests.shared import rows_for_the_module
from tests.webhooks.support import make_endpoint


@pytest.fixture(scope="module")
def shared_demo(django_db_setup, django_db_blocker):
    """The demo job (every kind of record), two budget imports (dry runs, one refused) and a
    webhook endpoint, built once for the module."""
    with rows_for_the_module(django_db_blocker):
        demo_job_load()
        project = Project.objects.get(number="2026-014")
        header = b"code,name,cost type,scheduled value,budget\n"
        for rows in (b"99-100,Extras,other,0,1\n", b"99-200,Bad,nonsense,0,1\n"):
            budget_import_start(
                project=project, content=header + rows, file_format="csv", dry_run=True
            )
        make_endpoint(project.account)
        yield project


@pytest.fixture
def project(shared_demo, db):
    return shared_demo


def state(obj, depth: int = 0):
    """An instance's loaded values, its cached relations and prefetched lists, compared by
    value two levels down (a child's cached parent by its pk, so no cycle)."""
    if not isinstance(obj, Model):
        return obj
    if depth > 1:
        return (type(obj).__name__, obj.pk)
    values = {"type": type(obj).__name__, "adding": obj._state.adding, "db": obj._state.db}
    for name, value in obj.__dict__.items():
        if name == "_state":
            continue
        if name == "_prefetched_objects_cache":
            value = {k: [state(o, depth + 1) for o in v] for k, v in value.items()}
        elif isinstance(value, list):
            value = [state(item, depth + 1) for item in value]
        values[name] = value
    cache = obj._state.__dict__.get("fields_cache", {})
    values["cached"] = {name: state(value, depth + 1) for name, value in cache.items()}
    return values


def _scopes(project):
    return [Scope(project.account_id), Scope(project.account_id, frozenset({project.pk}))]


@pytest.mark.parametrize("name", sorted(RESOURCES))
def test_fetch_reads_what_list_reads_with_as_many_queries(project, name):
    selector = RESOURCES[name].selector
    for scope in _scopes(project):
        queryset = selector(scope).order_by("-created_at", "-id")[:101]
        with CaptureQueriesContext(connection) as django_queries:
            expected = [state(obj) for obj in queryset.all()]
        # Every resource has rows for the account (a project-restricted scope sees no
        # account-wide ones, e.g. webhook endpoints).
        assert expected or scope.project_ids is not None, f"{name}: no row to compare"
        with CaptureQueriesContext(connection) as fetch_queries:
            got = [state(obj) for obj in fetch.fetch(queryset.all())]
        assert got == expected, name
        assert len(fetch_queries) == len(django_queries), name


@pytest.mark.parametrize("name", sorted(RESOURCES))
def test_first_reads_what_first_reads_from_the_orms_sql(project, name):
    selector = RESOURCES[name].selector

    def build(account_id, project_ids, pk):
        ids = None if project_ids is None else frozenset(project_ids)
        return selector(Scope(account_id, ids)).filter(pk=pk)

    for scope in _scopes(project):
        ids = scope.project_ids
        key = ("test", selector, None if ids is None else len(ids))
        pks = [*selector(scope).values_list("pk", flat=True)[:5], "nope_1"]
        for pk in pks:
            expected = selector(scope).filter(pk=pk).first()
            got = fetch.first(key, build, account_id=scope.account_id, project_ids=ids, pk=pk)
            assert state(got) == state(expected), (name, pk)
        kept = prepared._cache[key]
        orm = prepared.first_queryset(build(scope.account_id, ids, pks[0]))
        sql, params = orm.query.sql_with_params()
        filled = list(kept.params)
        for index, value_name, position in kept.slots:
            value = {"account_id": scope.account_id, "pk": pks[0]}.get(value_name)
            filled[index] = value if position is None else sorted(ids)[position]
        assert (kept.sql, Counter(map(repr, filled))) == (sql, Counter(map(repr, params)))


@pytest.mark.parametrize("name", sorted(RESOURCES))
def test_many_reads_what_list_reads_for_any_set_of_ids(project, name):
    """`fetch.many` as the outbox renders events: the rows of IDs in any order (an unknown
    one among them), each count of IDs compiled once and reused for other IDs."""
    selector = RESOURCES[name].selector
    scope = Scope(project.account_id)

    def build(account_id, ids):
        return selector(Scope(account_id)).filter(pk__in=ids)

    pks = list(selector(scope).order_by("id").values_list("pk", flat=True)[:6])
    for chosen in (pks[:1], pks[1:2], [*reversed(pks[:3]), "nope_1"], pks[3:6]):
        key = ("test-many", selector, len(chosen))
        got = fetch.many(key, build, account_id=scope.account_id, ids=chosen)
        expected = list(build(scope.account_id, chosen))
        assert sorted(map(state, got), key=repr) == sorted(map(state, expected), key=repr), name
        assert {obj.pk for obj in got} == set(pks) & set(chosen)


def test_a_value_the_sql_transforms_is_never_prepared(db):
    def build(name):
        return Project.objects.filter(name__icontains=name)

    assert prepared.instances(("test", "icontains"), build, name="x") is None
    assert fetch.first(("test", "icontains"), build, name="no such name") is None


def test_a_value_escaped_on_its_way_is_never_prepared(db):
    """As SQLite's `iexact` escapes `%`, `_` and `\\` (PostgreSQL's does not): kept, the SQL
    would take later values unescaped."""

    def build(name):
        return Project.objects.filter(name=connection.ops.prep_for_like_query(name))

    assert prepared.instances(("test", "escaped"), build, name="50%_off") is None


@pytest.mark.postgres(
    reason="SQLite's backend turns every datetime into text on its way to the SQL, so no "
    "datetime value is kept there (jobcost/selectors/prepared.py)"
)
def test_datetime_values_are_prepared_and_a_converted_one_is_not(db):
    project = ProjectFactory()
    moment = Project.objects.values_list("created_at", flat=True).get(pk=project.pk)

    def build(when):
        return Project.objects.filter(created_at=when)

    assert [p.pk for p in prepared.instances(("test", "at"), build, when=moment)[0]] == [project.pk]
    assert prepared.instances(("test", "at"), build, when=moment.replace(year=2000))[0] == []

    def on_the_day(when):
        return Project.objects.filter(created_at__date=when)  # the value becomes a date

    assert prepared.instances(("test", "day"), on_the_day, when=moment) is None


def test_a_model_with_init_receivers_is_read_by_django(project):
    def receiver(sender, instance, **kwargs):
        instance.seen = True

    post_init.connect(receiver, sender=Project)
    try:
        (read,) = fetch.fetch(Project.objects.filter(pk=project.pk))
        invoices = fetch.fetch(Invoice.objects.select_related("project")[:1])
    finally:
        post_init.disconnect(receiver, sender=Project)
    assert read.seen
    assert all(invoice.project.seen for invoice in invoices)


def test_values_and_evaluated_querysets_are_read_by_django(project):
    rows = Project.objects.filter(pk=project.pk).values("number")
    assert fetch.fetch(rows) == [{"number": project.number}]
    evaluated = Project.objects.filter(pk=project.pk)
    list(evaluated)
    with CaptureQueriesContext(connection) as queries:
        assert fetch.fetch(evaluated) == [project]
    assert len(queries) == 0


def test_rows_reads_what_values_list_reads_compiling_once(shared_demo, db):
    """`prepared.rows` (the budget totals every budget write checks, jobcost/services/totals.py)
    reads the rows the ORM reads, in one query, building the queryset only the first time."""
    built = []

    def build(project_id):
        built.append(project_id)
        lines = BudgetLine.objects.filter(project_id=project_id).values("project_id").order_by()
        totals = lines.annotate(committed=Sum("committed"), biggest=Max(Abs("original_amount")))
        return totals.values_list("committed", "biggest")

    empty = ProjectFactory(account=shared_demo.account)
    key = ("test", "rows", object())  # new to the process-wide cache
    for project in (shared_demo, empty, shared_demo):
        with CaptureQueriesContext(connection) as queries:
            found = prepared.rows(key, build, project_id=project.pk)
        assert len(queries) == 1
        assert [tuple(map(int, row)) for row in found] == list(build(project.pk))
    assert found and found[0][0] > 0  # the demo's budget has commitments
    assert prepared.rows(key, build, project_id=empty.pk) == []
    # Once with placeholders, then only the comparisons above.
    assert len(built) == 1 + 3


def test_statement_compiles_once_and_fills_the_values_the_orm_would(shared_demo, db):
    """`prepared.statement` (the outbox's read of the endpoints, inside its INSERT's statement,
    webhooks/outbox.py) gives the SQL and parameters the ORM compiles for the same values,
    with a collection's values in any order, building the queryset only the first time."""
    built = []

    def build(accounts):
        built.append(accounts)
        return Project.objects.filter(account_id__in=accounts, status="active").only("id")

    key = ("test", "statement", object())  # new to the process-wide cache
    other = ProjectFactory().account_id
    for accounts in ([shared_demo.account_id, other], [other, shared_demo.account_id]):
        sql, params = prepared.statement(key, build, accounts=accounts)
        orm_sql, orm_params = build(sorted(accounts)).query.sql_with_params()
        assert (sql, list(params)) == (orm_sql, list(orm_params))
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            found = {row[0] for row in cursor.fetchall()}
        assert found == set(build(accounts).values_list("id", flat=True))
        assert shared_demo.pk in found
    # Once with placeholders, then only the comparisons above.
    assert len(built) == 1 + 4
