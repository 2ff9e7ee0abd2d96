"""Errors raised outside the handlers' own rules still speak the envelope (docs/errors.md): unknown
routes, wrong methods, and unexpected exceptions (500 `api_error`, no stack trace, nothing
written, not stored for idempotency)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from jobcost.models import Commitment, IdempotencyRecord, Project
from jobcost.services import commitments as commitment_services
from tests.conftest import Api, error_of
from tests.jobcost.api.conventions_support import make_job, row_counts


def _assert_json_envelope(response, status: int, type_: str, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    assert not response.content.lstrip().startswith(b"<")
    error = error_of(response)
    assert (error["type"], error["code"]) == (type_, code), error
    assert response["Request-Id"].startswith("req_")
    assert response["Jobcost-Version"] == settings.JOBCOST_API_VERSIONS[-1]
    return error


@pytest.mark.parametrize(
    "path",
    [
        "/v1/nope",
        "/nope",
        "/v1/projects/",
        "/v1/projects/prj_abc/unknown-action",
        "/v1",
        "/v2/projects",
    ],
)
def test_unknown_route_is_a_json_404_envelope(api, path):
    for client in (api, Api(None)):
        error = _assert_json_envelope(client.get(path), 404, "not_found", "route_missing")
        assert path in error["message"]
    before = row_counts(idempotency=True)
    _assert_json_envelope(api.post(path, {"name": "x"}), 404, "not_found", "route_missing")
    assert row_counts(idempotency=True) == before


def test_wrong_method_on_a_route_is_a_405_envelope(api, account):
    job = make_job(account)
    before = row_counts(idempotency=True)
    cases = [
        ("delete", "/v1/projects", {}),
        ("delete", f"/v1/projects/{job.project.pk}", {}),
        ("put", f"/v1/projects/{job.project.pk}", {"name": "Replaced"}),
        ("post", f"/v1/projects/{job.project.pk}", {"name": "Replaced"}),
        ("patch", "/v1/commitments", {"description": "all"}),
        ("get", f"/v1/commitments/{job.commitment.pk}/execute", None),
        ("delete", f"/v1/commitments/{job.commitment.pk}", {}),
        ("post", f"/v1/commitments/{job.commitment.pk}/audit", {}),
    ]
    headers = {**api._headers({}), "Idempotency-Key": "wrong-method"}
    for method, path, body in cases:
        call = getattr(api.client, method)
        if body is None:
            response = call(path, headers=headers)
        else:
            response = call(path, body, content_type="application/json", headers=headers)
        error = _assert_json_envelope(response, 405, "invalid_request", "method_not_allowed")
        assert method.upper() in error["message"], error
    assert row_counts(idempotency=True) == before
    assert Project.objects.get(pk=job.project.pk).name == job.project.name
    assert Commitment.objects.get(pk=job.commitment.pk).status == "draft"


def test_wrong_method_without_a_key_is_401_first(db):
    response = Api(None).delete("/v1/projects")
    _assert_json_envelope(response, 401, "unauthenticated", "api_key_missing")


def test_unexpected_exception_in_a_service_is_500_api_error_and_rolls_back(
    api, account, monkeypatch
):
    job = make_job(account)
    real_create = commitment_services.commitment_create

    def create_then_explode(**kwargs):
        real_create(**kwargs)
        raise RuntimeError("secret-internal-detail: db password is hunter2")

    monkeypatch.setattr(commitment_services, "commitment_create", create_then_explode)
    body = job.commitment_body(number="SC-500")
    before = row_counts(idempotency=True)
    response = api.post("/v1/commitments", body, idem="boom")
    error = _assert_json_envelope(response, 500, "api_error", "internal_error")
    assert error["param"] is None and error["object"] is None
    for leak in (b"Traceback", b"RuntimeError", b"secret-internal-detail", b"hunter2", b".py"):
        assert leak not in response.content
    assert row_counts(idempotency=True) == before
    assert not Commitment.objects.filter(number="SC-500").exists()
    assert not IdempotencyRecord.objects.filter(key="boom").exists()

    monkeypatch.setattr(commitment_services, "commitment_create", real_create)
    retry = api.post("/v1/commitments", body, idem="boom")
    assert retry.status_code == 201, retry.content
    assert "Idempotent-Replayed" not in retry
    assert Commitment.objects.filter(number="SC-500").count() == 1


def test_unexpected_exception_in_a_transition_leaves_the_state(api, account, monkeypatch):
    job = make_job(account)
    real_execute = commitment_services.commitment_execute

    def execute_then_explode(**kwargs):
        real_execute(**kwargs)
        raise RuntimeError("boom")

    monkeypatch.setattr(commitment_services, "commitment_execute", execute_then_explode)
    before = row_counts(idempotency=True)
    response = api.post(f"/v1/commitments/{job.commitment.pk}/execute")
    _assert_json_envelope(response, 500, "api_error", "internal_error")
    assert row_counts(idempotency=True) == before
    assert Commitment.objects.get(pk=job.commitment.pk).status == "draft"
    assert job.cost_code.budget_line.__class__.objects.get(cost_code=job.cost_code).committed == 0


def test_unexpected_exception_on_a_read_is_500_api_error(api, account, monkeypatch):
    from jobcost.serializers import projects as project_serializers

    def explode(project):
        raise RuntimeError("rollup failed at line 42")

    job = make_job(account)  # before the patch: creating it renders the project for its event
    monkeypatch.setattr(project_serializers, "project_rollup", explode)
    response = api.get(f"/v1/projects/{job.project.pk}")
    _assert_json_envelope(response, 500, "api_error", "internal_error")
    assert b"line 42" not in response.content


def test_error_in_a_plain_django_view_is_a_json_500_envelope(db, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("health check internals")

    monkeypatch.setattr("jobcost.views.health.JsonResponse", explode)
    response = Client(raise_request_exception=False).get("/healthz")
    error = _assert_json_envelope(response, 500, "api_error", "internal_error")
    assert "health check internals" not in error["message"]
    assert b"Traceback" not in response.content
