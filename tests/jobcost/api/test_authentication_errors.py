"""docs/keys.md, "Who may call what" authentication failures: missing, malformed, unknown and
revoked keys are 401 `unauthenticated` with `WWW-Authenticate: Bearer`, write nothing and are not
stored for idempotency."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.management import call_command

from jobcost.models import IdempotencyRecord, Owner
from tests.conftest import Api, error_of
from tests.jobcost.api.conventions_support import row_counts


def _assert_401(response, code: str) -> None:
    assert response.status_code == 401, response.content
    error = error_of(response)
    assert (error["type"], error["code"], error["param"]) == ("unauthenticated", code, None)
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert response["Request-Id"].startswith("req_")
    assert response["Jobcost-Version"] == settings.JOBCOST_API_VERSIONS[-1]


def test_missing_key_is_401_api_key_missing(db):
    _assert_401(Api(None).get("/v1/projects"), "api_key_missing")


@pytest.mark.parametrize(
    "header",
    [
        "Bearer",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        "Token jc_test_abcdefghijklmnopqrstuvwxyz0123456789ABCD",
        "Bearer sk_test_abcdefghijklmnopqrstuvwxyz",
        "Bearer jc_test_" + "a" * 300,
        "jc_test_abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    ],
)
def test_malformed_authorization_is_401_api_key_invalid(db, header):
    response = Api(None).get("/v1/projects", headers={"Authorization": header})
    _assert_401(response, "api_key_invalid")


def test_unknown_key_is_401_api_key_invalid(db):
    api = Api("jc_test_" + "Z" * 40)
    _assert_401(api.get("/v1/projects"), "api_key_invalid")


def test_key_of_the_wrong_case_is_unknown(api):
    _assert_401(Api(api.secret.upper()).get("/v1/projects"), "api_key_invalid")


def test_revoked_key_is_401_api_key_revoked(api):
    assert api.get("/v1/projects").status_code == 200
    call_command("revoke_api_key", api.key.pk)
    _assert_401(api.get("/v1/projects"), "api_key_revoked")
    before = row_counts(idempotency=True)
    _assert_401(api.post("/v1/owners", {"name": "Late"}), "api_key_revoked")
    assert row_counts(idempotency=True) == before


def test_refused_write_stores_nothing_and_the_same_key_runs_later(api):
    before = row_counts(idempotency=True)
    anonymous = Api(None)
    _assert_401(anonymous.post("/v1/owners", {"name": "Harbor"}, idem="k-401"), "api_key_missing")
    bad = Api("jc_test_" + "Q" * 40)
    _assert_401(bad.post("/v1/owners", {"name": "Harbor"}, idem="k-401"), "api_key_invalid")
    assert row_counts(idempotency=True) == before
    created = api.post("/v1/owners", {"name": "Harbor"}, idem="k-401")
    assert created.status_code == 201
    assert "Idempotent-Replayed" not in created
    assert Owner.objects.filter(name="Harbor").count() == 1
    assert IdempotencyRecord.objects.filter(key="k-401").count() == 1
