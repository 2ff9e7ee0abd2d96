"""A resource's list read with its SQL compiled once per shape (jobcost/api/list_pages.py)
answers exactly what the ORM's reading of the same request answers: for every list route of
the resource table, first and later pages, each filter alone (strings, choices, timestamps),
a key restricted to one project, and a shape run again with other values."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection

from jobcost.api import viewsets
from jobcost.api.list_pages import selector_page
from jobcost.demo.loader import demo_job_load
from jobcost.filters import InvoiceFilter
from jobcost.models import Project
from jobcost.resources import RESOURCES
from jobcost.scope import Scope
from jobcost.selectors import prepared
from tests.conftest import Api
from tests.factories import AccountFactory, ProjectFactory, make_invoice, make_job, make_key
from tests.shared import rows_for_the_module


@pytest.fixture(scope="module")
def shared_demo(django_db_setup, django_db_blocker):
    """The demo job and two keys of its account (one restricted to the demo project), built
    once for the module (tests/shared.py)."""
    with rows_for_the_module(django_db_blocker):
        demo_job_load()
        project = Project.objects.get(number="2026-014")
        _, secret = make_key(project.account, "admin")
        _, restricted = make_key(project.account, "viewer", [project])
        yield secret, restricted


@pytest.fixture
def apis(shared_demo, db):
    secret, restricted = shared_demo
    return Api(secret), Api(restricted)


def _lists(api) -> dict[str, type]:
    """{collection path: the viewset's FilterSet} for every resource whose collection is a
    list route that reads its selector."""
    found = {}
    for resource in list(RESOURCES.values()):
        path = f"/v1/{resource.collection}"
        response = api.get(path, {"limit": "1"})
        if response.status_code == 200:
            found[path] = response.renderer_context["view"].filterset_class
    return found


def _requests(api, path: str, filterset_class) -> list[dict]:
    """A first page, its next page, and each filter set alone to the value of the list's
    first row (its ID field, choice or `created_at`); the first page alone for a list the key
    may not read (its refusal is compared too)."""
    response = api.get(path, {"limit": "2"})
    requests = [{"limit": "2"}]
    if response.status_code != 200:
        return requests
    first = response.json()
    if first["next_cursor"]:
        requests.append({"limit": "2", "cursor": first["next_cursor"]})
    row = first["data"][0] if first["data"] else {}
    for name in filterset_class.base_filters if filterset_class else ():
        field = name.split("[")[0]
        value = row.get("created_at" if field == "created" else field)
        if isinstance(value, str):
            requests.append({name: value, "limit": "3"})
    return requests


def _body(response) -> bytes | dict:
    """A list's bytes; a refusal's error without its request ID (each request has its own)."""
    if response.status_code == 200:
        return response.content
    error = response.json()["error"]
    return {name: value for name, value in error.items() if name != "request_id"}


def _carries_a_datetime(filters, after_values, keys, **_) -> bool:
    """Whether a page's reading holds a datetime value: a `created` filter's, or a cursor's
    `created_at`."""
    return any(isinstance(value, datetime.datetime) for *_, value in filters) or (
        after_values is not None and "created_at" in keys
    )


def test_every_list_answers_as_the_orm_reads_it(apis, monkeypatch):
    taken = []  # (whether the prepared reading answered, whether it held a datetime value)
    page = viewsets.selector_page

    def spy(serializer_class, filterset_class, filters, scope, **kwargs):
        rows = page(serializer_class, filterset_class, filters, scope, **kwargs)
        taken.append((rows is not None, _carries_a_datetime(filters, **kwargs)))
        return rows

    monkeypatch.setattr(viewsets, "selector_page", spy)
    admin, restricted = apis
    lists = _lists(admin)
    assert len(lists) >= 14
    compared = 0
    for api in (admin, restricted):
        for path, filterset_class in lists.items():
            for params in _requests(api, path, filterset_class):
                fast = api.get(path, params)
                with monkeypatch.context() as orm_only:
                    orm_only.setattr(viewsets, "selector_page", lambda *a, **k: None)
                    slow = api.get(path, params)
                assert (fast.status_code, _body(fast)) == (slow.status_code, _body(slow)), (
                    path,
                    params,
                )
                compared += 1
    assert compared > 60
    if connection.vendor == "postgresql":
        # The prepared reading answered almost all.
        assert [answered for answered, _ in taken].count(True) >= compared * 0.9
    else:
        # SQLite's backend turns a datetime into text on its way to the SQL, so a reading
        # holding one is never kept (jobcost/selectors/prepared.py): the ORM answered those,
        # and the prepared reading almost all the rest.
        assert {answered for answered, datetimes in taken if datetimes} == {False}
        rest = [answered for answered, datetimes in taken if not datetimes]
        assert rest.count(True) >= len(rest) * 0.9


def _orm_only(api, path, params, monkeypatch):
    with monkeypatch.context() as orm_only:
        orm_only.setattr(viewsets, "selector_page", lambda *a, **k: None)
        return api.get(path, params)


def test_a_kept_shape_reads_other_values(apis, monkeypatch):
    admin, _ = apis
    projects = list(Project.objects.values_list("pk", flat=True))
    prepared._cache.clear()
    seen = 0
    for pk in [*projects, *projects]:
        response = admin.get("/v1/invoices", {"project": pk, "limit": "5"})
        assert response.status_code == 200
        rows = response.json()["data"]
        assert {row["project"] for row in rows} <= {pk}
        seen += len(rows)
        orm = _orm_only(admin, "/v1/invoices", {"project": pk, "limit": "5"}, monkeypatch)
        assert response.content == orm.content
    assert seen > 0
    shapes = [key for key in prepared._cache if isinstance(key, tuple) and key[0] == "list_page"]
    assert len(shapes) == 1
    assert prepared._cache[shapes[0]] is not prepared._UNPREPARABLE


def test_keys_of_two_accounts_and_two_restrictions_share_a_shape_and_see_only_their_rows(
    monkeypatch, db
):
    """One kept shape (a key restricted to one project, listing invoices) serves keys of two
    accounts, each restricted to a project of its own: each sees its project's rows only."""
    jobs = [make_job(AccountFactory()) for _ in range(2)]
    keys = []
    for job in jobs:
        make_invoice(job.commitment, amount=100, number=f"N-{job.project.pk}")
        other = ProjectFactory(account=job.project.account)
        _, secret = make_key(job.project.account, "viewer", [job.project])
        keys.append((Api(secret), job.project.pk, other.pk))
    prepared._cache.clear()
    for api, mine, _other in keys * 2:
        response = api.get("/v1/invoices", {"limit": "5"})
        rows = response.json()["data"]
        assert rows and {row["project"] for row in rows} == {mine}
        orm = _orm_only(api, "/v1/invoices", {"limit": "5"}, monkeypatch)
        assert response.content == orm.content
    for api, _mine, other in keys:
        assert api.get("/v1/invoices", {"project": other}).json()["data"] == []
    shapes = [key for key in prepared._cache if isinstance(key, tuple) and key[0] == "list_page"]
    assert len(shapes) == 2  # unfiltered and filtered by project, each shared by both keys
    assert all(prepared._cache[shape] is not prepared._UNPREPARABLE for shape in shapes)


@pytest.mark.postgres(
    reason="on SQLite no datetime value is kept, aware or naive: its backend turns a datetime "
    "into text on its way to the SQL (jobcost/selectors/prepared.py)"
)
def test_a_naive_timestamp_is_read_by_the_orm_not_a_kept_shape(shared_demo, db):
    """The ORM makes a naive datetime aware on its way to the SQL, which a kept statement
    would not do: such a value is never prepared."""
    project = Project.objects.get(number="2026-014")
    serializer_class = RESOURCES["invoice"].serializer_class
    filterset_class = InvoiceFilter
    gte = filterset_class.base_filters["created[gte]"]
    scope = Scope(project.account_id)
    page = {"limit": 3, "keys": ("created_at", "id"), "ascending": False, "after_values": None}
    aware = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    naive = aware.replace(tzinfo=None)
    assert selector_page(
        serializer_class, filterset_class, [("created[gte]", gte, aware)], scope, **page
    )
    assert (
        selector_page(
            serializer_class, filterset_class, [("created[gte]", gte, naive)], scope, **page
        )
        is None
    )
