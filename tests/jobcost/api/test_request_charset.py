"""A JSON body is UTF-8 (README, "Decisions": "Request bodies"): a body declared in another
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
