"""Lists (docs/conventions.md): newest first by (created_at, id), `limit` 1–100 (default 25),
signed keyset cursors that never repeat or skip a row whatever is written meanwhile, audit trails
oldest
first."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jobcost.models import Owner
from tests.conftest import error_of
from tests.factories import OwnerFactory, ProjectFactory

# Query counts are those of a request that reads its key (the first of a key in a second).
pytestmark = pytest.mark.usefixtures("cold_keys")


def _walk(api, path: str, **params) -> list[dict]:
    """Every row of a list, following next_cursor; checks each page's shape."""
    rows, cursor = [], None
    for _ in range(200):
        query = {**params, **({"cursor": cursor} if cursor else {})}
        response = api.get(path, query)
        assert response.status_code == 200, response.content
        page = response.json()
        assert set(page) == {"object", "url", "has_more", "next_cursor", "data"}
        assert (page["object"], page["url"]) == ("list", path)
        rows.extend(page["data"])
        if not page["has_more"]:
            assert page["next_cursor"] is None
            return rows
        assert page["next_cursor"].startswith("cur_")
        cursor = page["next_cursor"]
    raise AssertionError("pagination did not end")


def _newest_first(queryset) -> list[str]:
    return list(queryset.order_by("-created_at", "-id").values_list("id", flat=True))


def test_list_is_newest_first_with_default_limit_25(api, account):
    for _ in range(30):
        OwnerFactory(account=account)
    page = api.get("/v1/owners").json()
    expected = _newest_first(Owner.objects.filter(account=account))
    assert [row["id"] for row in page["data"]] == expected[:25]
    assert page["has_more"] is True
    assert page["next_cursor"].startswith("cur_")
    assert page["object"] == "list"
    assert page["url"] == "/v1/owners"
    rest = api.get("/v1/owners", {"cursor": page["next_cursor"]}).json()
    assert [row["id"] for row in rest["data"]] == expected[25:]
    assert (rest["has_more"], rest["next_cursor"]) == (False, None)


@pytest.mark.parametrize("limit", [1, 7, 100])
def test_limit_is_respected(api, account, limit):
    for _ in range(12):
        OwnerFactory(account=account)
    page = api.get("/v1/owners", {"limit": limit}).json()
    assert len(page["data"]) == min(limit, 12)
    assert page["has_more"] is (limit < 12)


def test_walking_all_pages_yields_every_row_exactly_once(api, account):
    for _ in range(23):
        OwnerFactory(account=account)
    tied = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    for _ in range(9):
        OwnerFactory(account=account, created_at=tied)
    rows = _walk(api, "/v1/owners", limit=4)
    ids = [row["id"] for row in rows]
    assert ids == _newest_first(Owner.objects.filter(account=account))
    assert len(ids) == len(set(ids)) == 32


def test_rows_inserted_between_pages_neither_repeat_nor_cause_skips(api, account):
    for _ in range(12):
        OwnerFactory(account=account)
    snapshot = _newest_first(Owner.objects.filter(account=account))
    first = api.get("/v1/owners", {"limit": 5}).json()
    seen = [row["id"] for row in first["data"]]
    cursor = first["next_cursor"]
    newer = []
    while cursor:
        newer += [api.post("/v1/owners", {"name": "Meanwhile"}).json()["id"] for _ in range(3)]
        page = api.get("/v1/owners", {"limit": 5, "cursor": cursor}).json()
        seen += [row["id"] for row in page["data"]]
        cursor = page["next_cursor"]
    assert seen == snapshot
    assert not set(newer) & set(seen)
    assert len(newer) == 6
    latest = api.get("/v1/owners", {"limit": 9}).json()["data"]
    assert [row["id"] for row in latest] == newer[::-1] + snapshot[:3]


def test_lists_filter_and_paginate_together(api, account):
    for status in ["active"] * 7 + ["bid"] * 4:
        ProjectFactory(account=account, status=status)
    rows = _walk(api, "/v1/projects", limit=3, status="active")
    assert len(rows) == 7
    assert {row["status"] for row in rows} == {"active"}


def test_audit_trail_is_oldest_first_and_paginates(api, account):
    owner_id = api.post("/v1/owners", {"name": "Name 0"}).json()["id"]
    for n in range(1, 6):
        assert api.patch(f"/v1/owners/{owner_id}", {"name": f"Name {n}"}).status_code == 200
    path = f"/v1/owners/{owner_id}/audit"
    rows = _walk(api, path, limit=2)
    assert [row["action"] for row in rows] == ["created"] + ["updated"] * 5
    assert [row["changes"]["name"]["after"] for row in rows] == [f"Name {n}" for n in range(6)]
    assert [row["created_at"] for row in rows] == sorted(row["created_at"] for row in rows)
    assert all(row["object"] == "audit_entry" and row["target"] == owner_id for row in rows)


@pytest.mark.parametrize("limit", ["0", "101", "abc", "-1", "1.5", "", "1e1", "²", " 5"])
def test_limit_outside_1_to_100_is_400_parameter_invalid(api, limit):
    response = api.get("/v1/owners", {"limit": limit})
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert (error["type"], error["code"], error["param"]) == (
        "invalid_request",
        "parameter_invalid",
        "limit",
    )


def _cursor(api, account, path="/v1/owners") -> str:
    for _ in range(3):
        OwnerFactory(account=account)
    return api.get(path, {"limit": 1}).json()["next_cursor"]


def _assert_cursor_invalid(response) -> None:
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert (error["code"], error["param"]) == ("cursor_invalid", "cursor")


def test_tampered_cursor_is_400_cursor_invalid(api, account):
    cursor = _cursor(api, account)
    middle = len(cursor) // 2
    flipped = cursor[:middle] + ("A" if cursor[middle] != "A" else "B") + cursor[middle + 1 :]
    for bad in (flipped, cursor[:-3], cursor + "xx", "cur_", "cur_!!!", "abc", cursor[4:]):
        _assert_cursor_invalid(api.get("/v1/owners", {"cursor": bad}))
    assert api.get("/v1/owners", {"cursor": cursor}).status_code == 200


def test_cursor_from_another_list_is_400_cursor_invalid(api, account):
    cursor = _cursor(api, account)
    _assert_cursor_invalid(api.get("/v1/vendors", {"cursor": cursor}))
    _assert_cursor_invalid(api.get("/v1/projects", {"cursor": cursor}))
    owner = Owner.objects.filter(account=account).first()
    for n in range(3):
        api.patch(f"/v1/owners/{owner.pk}", {"name": f"N{n}"})
    audit_cursor = api.get(f"/v1/owners/{owner.pk}/audit", {"limit": 1}).json()["next_cursor"]
    _assert_cursor_invalid(api.get("/v1/owners", {"cursor": audit_cursor}))


def test_list_query_count_does_not_grow_with_the_page(api, account):
    for _ in range(5):
        ProjectFactory(account=account)
    with CaptureQueriesContext(connection) as small:
        assert len(api.get("/v1/projects").json()["data"]) == 5
    for _ in range(20):
        ProjectFactory(account=account)
    with CaptureQueriesContext(connection) as large:
        assert len(api.get("/v1/projects").json()["data"]) == 25
    assert len(large.captured_queries) == len(small.captured_queries)
