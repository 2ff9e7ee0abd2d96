"""Versioning (docs/conventions.md): a key is pinned to the newest version at creation;
`Jobcost-Version` overrides per request; an unknown version is 400 `api_version_unknown`."""

from __future__ import annotations

import pytest
from django.conf import settings

from tests.conftest import Api, error_of
from tests.factories import make_key
from tests.jobcost.api.conventions_support import row_counts

OLDER = "2026-06-01-preview"
NEWEST = "2026-11-20-preview"


@pytest.fixture
def two_versions(settings):
    """A world with an older version beside today's one."""
    settings.JOBCOST_API_VERSIONS = [OLDER, NEWEST]


def test_only_version_today_is_the_dated_preview():
    assert settings.JOBCOST_API_VERSIONS[-1] == NEWEST


def test_new_key_is_pinned_to_the_newest_version(api):
    assert api.key.api_version == NEWEST
    assert api.get("/v1/owners")["Jobcost-Version"] == NEWEST


def test_default_is_the_keys_pinned_version(two_versions, account, make_api):
    api = make_api(account)
    api.key.api_version = OLDER
    api.key.save()
    assert api.get("/v1/owners")["Jobcost-Version"] == OLDER
    created = api.post("/v1/owners", {"name": "Harbor"})
    assert (created.status_code, created["Jobcost-Version"]) == (201, OLDER)
    refused = api.post("/v1/owners", {})
    assert (refused.status_code, refused["Jobcost-Version"]) == (400, OLDER)


def test_header_overrides_with_a_known_version_and_is_echoed(two_versions, account, make_api):
    api = make_api(account)
    assert api.key.api_version == NEWEST
    response = api.get("/v1/owners", headers={"Jobcost-Version": OLDER})
    assert (response.status_code, response["Jobcost-Version"]) == (200, OLDER)
    api.key.api_version = OLDER
    api.key.save()
    response = api.get("/v1/owners", headers={"Jobcost-Version": NEWEST})
    assert (response.status_code, response["Jobcost-Version"]) == (200, NEWEST)
    assert api.get("/v1/owners")["Jobcost-Version"] == OLDER


@pytest.mark.parametrize(
    "version", ["2020-01-01", "latest", "2026-11-20", "", "2026-11-20-PREVIEW"]
)
def test_unknown_version_is_400_api_version_unknown(api, version):
    before = row_counts(idempotency=True)
    for response in (
        api.get("/v1/owners", headers={"Jobcost-Version": version}),
        api.post("/v1/owners", {"name": "Harbor"}, headers={"Jobcost-Version": version}),
    ):
        assert response.status_code == 400, response.content
        error = error_of(response)
        assert (error["type"], error["code"], error["param"]) == (
            "invalid_request",
            "api_version_unknown",
            "Jobcost-Version",
        )
        assert NEWEST in error["message"]
        assert response["Jobcost-Version"] in settings.JOBCOST_API_VERSIONS
    assert row_counts(idempotency=True) == before


def test_version_is_checked_only_after_authentication(db):
    response = Api(None).get("/v1/owners", headers={"Jobcost-Version": "nope"})
    assert response.status_code == 401
    assert error_of(response)["code"] == "api_key_missing"


def test_keys_created_after_a_new_version_pin_it(settings, account, make_api):
    old_key = make_api(account)
    settings.JOBCOST_API_VERSIONS = [NEWEST, "2027-03-01"]
    key, _secret = make_key(account)
    assert key.api_version == "2027-03-01"
    assert old_key.get("/v1/owners")["Jobcost-Version"] == NEWEST
