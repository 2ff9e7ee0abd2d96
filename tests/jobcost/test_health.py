"""Health probes (docs/openapi.md), without a key: /healthz (process up) and
/readyz (database and broker reachable)."""

import pytest
from django.test import Client


@pytest.mark.django_db
def test_healthz_answers_without_a_key():
    response = Client().get("/healthz")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})
    assert response["Request-Id"].startswith("req_")


@pytest.mark.django_db
def test_readyz_reports_database_and_broker_ok():
    response = Client().get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "broker": "ok"}}


@pytest.mark.django_db
def test_readyz_is_503_naming_an_unreachable_broker(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = Client().get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["broker"].startswith("down: redis")
