"""The compiled rendering (jobcost/api/output.py) and the orjson encoding (renderers.py) give
exactly what DRF's serializers and `json.dumps` give: for every resource of the table, row by
row and field by field, and for every list and retrieve route with every `expand[]` path, byte
for byte."""

from __future__ import annotations

import datetime
from decimal import Decimal
from types import SimpleNamespace

import pytest

from jobcost.api import output, renderers
from jobcost.api.output import is_compiled, render_many, render_one
from jobcost.demo.loader import demo_job_load
from jobcost.models import Project
from jobcost.resources import RESOURCES
from jobcost.scope import Scope
from jobcost.serializers.pay_apps import G702_FIELDS
from jobcost.services.budget_imports import budget_import_start
from tests.conftest import Api
from tests.factories import make_key
from tests.shared import rows_for_the_module
from tests.webhooks.support import make_endpoint, owe_delivery


@pytest.fixture(scope="module")
def shared_demo(django_db_setup, django_db_blocker):
    """The demo job (every kind of record), a budget import (a dry run), a webhook endpoint
    owed a delivery (an event), and an admin key of the account: built once for the module
    (seconds), each test's changes rolled back (tests/shared.py)."""
    with rows_for_the_module(django_db_blocker):
        demo_job_load()
        project = Project.objects.get(number="2026-014")
        account = project.account
        budget_import_start(
            project=project,
            content=b"code,name,cost type,scheduled value,budget\n99-100,Extras,other,0,1\n",
            file_format="csv",
            dry_run=True,
        )
        owe_delivery(make_endpoint(account))
        key, secret = make_key(account, "admin")
        yield key, secret


@pytest.fixture
def demo(shared_demo, db):
    key, secret = shared_demo
    return key, Api(secret, key)


def assert_same(fast, drf, where: str) -> None:
    """Same keys in the same order, same values of the same types, all the way down."""
    assert type(fast) is type(drf) or (isinstance(fast, dict) and isinstance(drf, dict)), (
        f"{where}: {type(fast).__name__} != {type(drf).__name__}"
    )
    if isinstance(drf, dict):
        assert list(fast) == list(drf), f"{where}: keys {list(fast)} != {list(drf)}"
        for name in drf:
            assert_same(fast[name], drf[name], f"{where}.{name}")
    elif isinstance(drf, list):
        assert len(fast) == len(drf), where
        for index, (a, b) in enumerate(zip(fast, drf, strict=True)):
            assert_same(a, b, f"{where}[{index}]")
    else:
        assert fast == drf, f"{where}: {fast!r} != {drf!r}"


def test_the_list_and_retrieve_shapes_are_compiled():
    """The two benchmarked reads (docs/benchmarks.md) do not fall back to DRF."""
    assert is_compiled(RESOURCES["invoice"].serializer_class)
    assert is_compiled(RESOURCES["project"].serializer_class)


@pytest.mark.parametrize("name", sorted(RESOURCES))
def test_every_resource_renders_as_drf_field_by_field(demo, name):
    key, _api = demo
    resource = RESOURCES[name]
    serializer_class = resource.serializer_class
    rows = list(resource.selector(Scope.for_key(key))[:100])
    assert rows, f"the demo has no {name}"
    fast = render_many(serializer_class, rows, {})
    for row, data in zip(rows, fast, strict=True):
        drf = dict(serializer_class(row, context={}).data)
        assert_same(data, drf, f"{name} {row.pk}")
        assert renderers.dumps_bytes(data) == renderers.dumps_reference(drf).encode()


def _expand_paths(serializer_class) -> list[str]:
    """Every one- and two-level `expand[]` path of a serializer."""
    paths = []
    for field, target in serializer_class.expandable.items():
        paths.append(field)
        target_class = RESOURCES[_object_of(target)].serializer_class
        paths.extend(f"{field}.{inner}" for inner in target_class.expandable)
    return paths


def _object_of(serializer_path: str) -> str:
    return next(n for n, r in RESOURCES.items() if r.serializer == serializer_path)


def _drf_everywhere(monkeypatch) -> None:
    """Render with DRF's serializers and encode with `json.dumps`: the plain path, which the fast
    one must match."""
    monkeypatch.setattr(output, "is_compiled", lambda serializer_class: False)
    monkeypatch.setattr(renderers, "dumps_bytes", lambda d: renderers.dumps_reference(d).encode())


@pytest.mark.parametrize("name", sorted(RESOURCES))
def test_every_route_answers_the_same_bytes_as_drf(demo, name, monkeypatch):
    _key, api = demo
    serializer_class = RESOURCES[name].serializer_class
    collection = f"/v1/{RESOURCES[name].collection}"
    first = api.get(collection, {"limit": 100})
    assert first.status_code == 200, first.content
    ids = [row["id"] for row in first.json()["data"]]
    assert ids, f"{collection} lists nothing"
    requests = [(collection, {"limit": 100})]
    requests += [(f"{collection}/{ids[0]}", {}), (f"{collection}/{ids[-1]}", {})]
    for path in _expand_paths(serializer_class):
        requests.append((collection, {"limit": 100, "expand[]": f"data.{path}"}))
        requests.append((f"{collection}/{ids[0]}", {"expand[]": path}))
    fast = [api.get(path, params) for path, params in requests]
    _drf_everywhere(monkeypatch)
    for (path, params), response in zip(requests, fast, strict=True):
        reference = api.get(path, params)
        assert response.status_code == reference.status_code == 200, (path, params)
        assert response.content == reference.content, (path, params)


@pytest.mark.parametrize(
    "value",
    [
        "plain",
        '\x00\x01\x1f\x7f "quoted" back\\slash /',
        "\b\f\n\r\t",
        "é 😀 \u2028\u2029 \ufeff",
        0,
        -(2**63),
        2**63 - 1,
        2**70,
        True,
        None,
        Decimal("10.00"),
        Decimal("5.50"),
        Decimal("-12345.67"),
        Decimal("0.01"),
        Decimal("0.00001"),
        Decimal("12345678901234567.5"),
        datetime.date(2026, 1, 31),
        datetime.datetime(2026, 1, 31, 23, 59, 59, 999999, tzinfo=datetime.UTC),
        {"nested": [1, {"a": None}], 3: "int key"},
        [],
        {},
    ],
)
def test_orjson_encoding_is_byte_identical_to_json_dumps(value):
    data = {"value": value, "list": [value, value]}
    assert renderers.dumps_bytes(data) == renderers.dumps_reference(data).encode()
    assert renderers.dumps(data) == renderers.dumps_reference(data)


def test_a_field_reads_the_context_of_its_call_never_a_shared_one(demo):
    """A pay app's G702 fields read their serializer's per-request cache (`context["_g702"]`):
    each call sees its own context, so a figure cached by one request never leaks into the
    next (a PATCH's answer shows the figures it wrote)."""
    key, _api = demo
    serializer_class = RESOURCES["pay_app"].serializer_class
    pay_app = RESOURCES["pay_app"].selector(Scope.for_key(key)).first()
    seeded = {"_g702": {pay_app.pk: SimpleNamespace(**dict.fromkeys(G702_FIELDS, 1))}}
    assert {render_one(serializer_class, pay_app, seeded)[f] for f in G702_FIELDS} == {1}
    fresh = render_one(serializer_class, pay_app, {})
    assert_same(fresh, dict(serializer_class(pay_app, context={}).data), pay_app.pk)
    assert fresh["contract_sum_to_date"] > 1


def test_rows_of_other_types_and_deferred_columns_render_as_drf(demo):
    """The row function generated for a model reads its columns from `__dict__`; a deferred
    column (absent there) and a row that is no model instance go through the field's own
    function, as DRF reads them."""
    key, _api = demo
    serializer_class = RESOURCES["owner"].serializer_class
    owner = RESOURCES["owner"].selector(Scope.for_key(key)).defer("name", "created_at").first()
    drf = dict(serializer_class(owner, context={}).data)
    owner = RESOURCES["owner"].selector(Scope.for_key(key)).defer("name", "created_at").first()
    assert_same(render_one(serializer_class, owner), drf, owner.pk)
    plain = SimpleNamespace(**{**owner.__dict__, "name": "Plain", "pk": owner.pk})
    assert_same(
        render_one(serializer_class, plain), dict(serializer_class(plain).data), "namespace"
    )
