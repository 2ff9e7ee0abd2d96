"""A Redis that accepts connections and never answers (docs/decisions.md, "A hung Redis").

A real gunicorn serves the API with REDIS_URL pointing at a socket server that accepts and
holds every connection without a reply, and DATABASE_URL at the test database. A write that
emits an event still answers 201 within 2 s with its event and delivery rows committed and
pending (the outbox sweep sends them later); a read answers without RateLimit-* headers (the
limiter could count nothing); /readyz answers 503 naming the broker within 2 s.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest
from django.conf import settings
from django.db import connection

from tests.factories import AccountFactory, OwnerFactory, make_key
from tests.hung_server import HungServer
from tests.waiting import until
from tests.webhooks.support import make_endpoint
from webhooks.models import Event, WebhookDelivery

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BOUND_SECONDS = 2.0
RATE_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _database_url() -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def hung_redis():
    server = HungServer()
    yield server
    server.close()


@pytest.fixture
def server(hung_redis):
    """gunicorn on a free loopback port, its Redis hung; yields the base URL once /healthz
    answers."""
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "DATABASE_CONN_MAX_AGE": "0",
        "REDIS_URL": hung_redis.url,
    }
    args = [sys.executable, "-m", "gunicorn", "config.wsgi:application"]
    args += ["--bind", f"127.0.0.1:{port}", "--workers", "1", "--timeout", "60"]
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            args, cwd=Path(settings.BASE_DIR), env=env, stdout=log, stderr=subprocess.STDOUT
        )
        base = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            if process.poll() is not None:
                return True  # exited: reported below
            try:
                return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        try:
            until(healthy, timeout=30, what="gunicorn to answer /healthz")
            assert process.poll() is None, "gunicorn exited"
        except AssertionError as exc:
            process.kill()
            log.seek(0)
            raise AssertionError(f"gunicorn did not start:\n{log.read().decode()}") from exc
        yield base
        process.send_signal(signal.SIGINT)  # gunicorn's quick shutdown: nothing is in flight
        process.wait(timeout=15)


def _timed(method: str, url: str, **kwargs) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = httpx.request(method, url, timeout=30, **kwargs)
    return response, time.monotonic() - started


def test_write_read_and_readiness_answer_promptly_with_redis_hung(server, hung_redis):
    account = AccountFactory()
    _key, secret = make_key(account, "admin")
    endpoint = make_endpoint(account)
    owner = OwnerFactory(account=account)
    auth = {"Authorization": f"Bearer {secret}"}

    # The first call of the process: the limiter's Redis call times out and the read is
    # answered uncounted, without RateLimit-* headers.
    response, elapsed = _timed("GET", f"{server}/v1/projects", headers=auth)
    timings = {"read": elapsed}
    assert response.status_code == 200, response.text
    assert elapsed < BOUND_SECONDS, f"the read took {elapsed:.2f} s"
    assert response.json()["data"] == []
    assert not [name for name in RATE_HEADERS if name in response.headers]
    assert hung_redis.accepted >= 1  # the app did try Redis, and gave up

    # The write commits, then its delivery's publish times out (one retry) after commit.
    response, elapsed = _timed(
        "POST",
        f"{server}/v1/projects",
        json={"number": "J-HUNG", "name": "Hung Redis", "owner": owner.pk, "contract_amount": 1},
        headers={**auth, "Idempotency-Key": "hung-redis-write"},
    )
    timings["write"] = elapsed
    assert response.status_code == 201, response.text
    assert elapsed < BOUND_SECONDS, f"the write took {elapsed:.2f} s"
    assert not [name for name in RATE_HEADERS if name in response.headers]
    project_id = response.json()["id"]
    event = Event.objects.get(object_id=project_id, type="project.created")
    delivery = WebhookDelivery.objects.get(event=event, endpoint=endpoint)
    assert (delivery.status, delivery.attempts) == ("pending", 0)
    assert hung_redis.accepted >= 3  # and the publish tried it too, twice

    response, elapsed = _timed("GET", f"{server}/readyz")
    timings["readyz"] = elapsed
    print("with Redis hung:", ", ".join(f"{k} {v:.2f} s" for k, v in timings.items()))
    assert elapsed < BOUND_SECONDS, f"/readyz took {elapsed:.2f} s"
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["broker"].startswith("down: redis")
