"""A JSON body is UTF-8 (docs/decisions.md, "Request bodies"): a body declared in another
charset is 415 `unsupported_media_type`, never decoded as UTF-8 regardless, and nothing is
written or stored for replay."""

from __future__ import annotations

import json

import pytest

from jobcost.models import Owner
from tests.conftest import error_of
from tests.jobcost.api.conventions_support import row_counts


@pytest.mark.parametrize("charset", ["latin-1", "ISO-8859-1", "utf-16", "windows-1252", "cp1252"])
def test_a_body_in_another_charset_is_415(api, charset):
    before = row_counts(idempotency=True)
    # The test client encodes a str body in the declared charset, as a real client would.
    body = json.dumps({"name": "Café Owner"}, ensure_ascii=False)
    response = api.post("/v1/owners", body, content_type=f"application/json; charset={charset}")
    assert response.status_code == 415, response.content
    error = error_of(response)
    assert (error["type"], error["code"]) == ("invalid_request", "unsupported_media_type")
    assert charset.lower() in error["message"]
    assert row_counts(idempotency=True) == before


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "application/json;charset=UTF8"],
)
def test_a_utf8_body_is_read(api, content_type):
    body = json.dumps({"name": "Café Owner"}, ensure_ascii=False).encode()
    response = api.post("/v1/owners", body, content_type=content_type)
    assert response.status_code == 201, response.content
    assert Owner.objects.get(pk=response.json()["id"]).name == "Café Owner"


def test_a_patch_in_another_charset_is_415(api, account):
    owner = api.post("/v1/owners", {"name": "Owner"}).json()
    response = api.patch(
        f"/v1/owners/{owner['id']}",
        json.dumps({"name": "Renamed"}),
        content_type="application/json; charset=latin-1",
    )
    assert response.status_code == 415, response.content
    assert Owner.objects.get(pk=owner["id"]).name == "Owner"


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json; charset=latin-1",
        "application/x-www-form-urlencoded; charset=shift_jis",
        "text/plain; charset=utf-16",
        'application/json; charset="iso-8859-1"',
        "application/json; charset=",
    ],
)
@pytest.mark.parametrize(
    "path",
    [
        "/v1/projects?status=active&created[gte]=2026-01-01",
        "/v1/reports/wip?as_of=2026-01-31",
        "/v1/openapi.json",
        "/docs",
        "/healthz",
    ],
)
def test_a_query_in_another_charset_is_415_before_it_is_read(api, path, content_type):
    """The query string is never decoded in the declared charset (it was garbled into a
    mojibake 400 `param`): 415, whatever the route and method."""
    # The test client sends no Content-Type without a body unless it is given as a header.
    headers = api._headers({"Content-Type": content_type})
    for method in ("GET", "HEAD", "DELETE", "OPTIONS"):
        response = api.client.generic(method, path, headers=headers)
        if method == "HEAD":
            assert (response.status_code, response.content) == (415, b""), path
            continue
        assert response.status_code == 415, (method, path, response.content)
        error = error_of(response)
        assert (error["code"], error["param"]) == ("unsupported_media_type", None)
        assert "charset=" in error["message"]


def test_the_charset_is_refused_before_the_key_is_read(api):
    response = api.client.get(
        "/v1/projects?status=é", headers={"Content-Type": "application/json; charset=latin-1"}
    )
    assert response.status_code == 415
    assert error_of(response)["code"] == "unsupported_media_type"


def test_a_form_body_in_another_charset_is_415_and_writes_nothing(api):
    before = row_counts(idempotency=True)
    response = api.post(
        "/v1/owners",
        "name=Caf%82",
        content_type="application/x-www-form-urlencoded; charset=shift_jis",
    )
    assert response.status_code == 415, response.content
    assert "shift_jis" in error_of(response)["message"]
    assert row_counts(idempotency=True) == before


@pytest.mark.parametrize("charset", ["utf-8", "UTF-8", "utf8", '"utf-8"'])
def test_a_query_with_a_utf8_charset_is_read(api, charset):
    api.post("/v1/owners", {"name": "Café Owner"})
    headers = api._headers({"Content-Type": f"application/json; charset={charset}"})
    response = api.client.get("/v1/projects?status=active", headers=headers)
    assert response.status_code == 200, response.content
