"""The test suite's settings: the project's own, in the development environment
(docs/operations/production.md), unless the caller chose one. Subprocesses the tests start
(gunicorn, Celery workers, manage.py) inherit this module's name, JOBCOST_ENV and the Redis database
chosen below, so they read what the test reads.

Beyond the project's settings:
- Under pytest-xdist each worker (`gw0`, `gw1`, …) has its own Redis database, the number of
  REDIS_URL's plus 1 plus the worker's index (`redis://…/6` gives gw0 7, gw1 8), so that the
  workers' Celery queues, broadcasts, rate-limit buckets and readiness probes never meet; their
  PostgreSQL databases are pytest-django's `test_<name>_gw0`, …
- No test reaches past loopback (tests/network.py), and webhook hosts resolve through the
  tests' own resolver, which never asks a DNS server (tests/webhooks/resolvers.py).
"""

import os
from urllib.parse import urlsplit, urlunsplit

from tests import network

os.environ.setdefault("JOBCOST_ENV", "development")

# The environment variable that says REDIS_URL is already this worker's (a child process
# inherits both and must not move again).
_REDIS_FOR_WORKER = "JOBCOST_TEST_REDIS_WORKER"
REDIS_DATABASES = 16  # Redis's default `databases`


def _worker_redis_url(url: str, worker: str) -> str:
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    number = base + 1 + int(worker.removeprefix("gw"))
    if number >= REDIS_DATABASES:
        raise RuntimeError(
            f"REDIS_URL {url} leaves no Redis database for xdist worker {worker} "
            f"(database {number}; Redis has {REDIS_DATABASES}): choose a lower base or fewer -n"
        )
    return urlunsplit(parts._replace(path=f"/{number}"))


_worker = os.environ.get("PYTEST_XDIST_WORKER")
if os.environ.get("REDIS_URL") and _worker and os.environ.get(_REDIS_FOR_WORKER) != _worker:
    os.environ["REDIS_URL"] = _worker_redis_url(os.environ["REDIS_URL"], _worker)
    os.environ[_REDIS_FOR_WORKER] = _worker

network.install()

from config.settings import *  # noqa: E402, F403

# The suite runs the benchmarks' commands in small (tests/bench), as `make bench-*` would with
# JOBCOST_BENCH=1.
if "bench" not in INSTALLED_APPS:  # noqa: F405
    INSTALLED_APPS = [*INSTALLED_APPS, "bench"]  # noqa: F405

# Literal addresses, loopback names and the tests' public names; never a DNS query.
WEBHOOKS_RESOLVER = "tests.webhooks.resolvers.offline"

# A password hash here costs 0.2 s of CPU (PBKDF2, a million rounds); the suite hashes the demo
# accountant's password on every seed and login. Django's documented speed-up for tests: a
# cheap hasher, which no stored password outlives (each test database is thrown away).
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
