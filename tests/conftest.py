"""Shared fixtures: an API client that speaks through the whole middleware stack, keys per
role, markers for the PostgreSQL- and Redis-only tests, and the failure of any test that
tried to reach past loopback (tests/network.py)."""

from __future__ import annotations

import gc
import itertools
import json
from importlib import import_module

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.test import Client
from django.test.testcases import QuietWSGIRequestHandler
from pytest_django.plugin import validate_django_db

from audit.models import AuditEntry
from jobcost.api import authentication
from tests import network
from tests.factories import AccountFactory, make_key

pytest_plugins = ("tests.emits",)

_idem = itertools.count()

# The live server of the contract and browser tests answers with TCP_NODELAY, as gunicorn does
# in production: Django's test server writes a response's head and body apart, and on a kept-
# alive connection the body then waited for the client's delayed ACK, about 40 ms a request
# (schemathesis sends thousands).
QuietWSGIRequestHandler.disable_nagle_algorithm = True


# Tests that start a live server, gunicorn or Celery worker processes: seconds each where most
# tests take milliseconds. Each runs first among the tests of its kind (pytest-django's order:
# tests in a transaction, then transactional ones, which empty the database, then those without
# one), so that pytest-xdist hands them out while the quick ones are still queued, and the run
# does not end with one worker finishing a long test while the others idle. The contract tests
# (FIRST_FIXTURES, below) go before all of these.
SLOW_FIXTURES = {"live_server", "workers", "worker", "server"}


def _django_order(item) -> int:
    """pytest-django's rank of a test (its `pytest_collection_modifyitems`, run before this)."""
    marker = item.get_closest_marker("django_db")
    transaction = reset_sequences = False
    if marker:
        transaction, reset_sequences, *_ = validate_django_db(marker)
    if (
        transaction
        or reset_sequences
        or {"transactional_db", "live_server"} & set(item.fixturenames)
    ):
        return 1
    return 0 if marker or "db" in item.fixturenames else 2


def pytest_collection_finish(session):
    """Fewer garbage collections in the test process (its live servers included): everything
    imported and collected so far is moved out of the collector's sight (`gc.freeze`), and the
    youngest generation is collected after 50,000 allocations instead of 700. The suite makes
    many short-lived objects and few cycles; this took about a tenth off its CPU. Processes the
    tests start (gunicorn, Celery workers) keep Python's defaults, as in production."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 1000)


# Tests on the seeded live server (tests/contract): schemathesis alone takes about a minute,
# a third of a worker's run. They run before everything else, so that the first worker starts
# on them while the others take the rest: run later, they ended the run with one worker busy
# for a minute and the other idle once it had nothing left to steal.
FIRST_FIXTURES = {"seeded_server"}


def pytest_collection_modifyitems(config, items):
    def rank(item):
        fixtures = set(item.fixturenames)
        return (not FIRST_FIXTURES & fixtures, _django_order(item), not SLOW_FIXTURES & fixtures)

    items.sort(key=rank)


def pytest_runtest_setup(item):
    """Skip a test marked `postgres` on SQLite and one marked `redis` without REDIS_URL. A
    marker may say why (`pytest.mark.postgres(reason="…")`): the skip shows that reason."""
    postgres = item.get_closest_marker("postgres")
    if postgres and connection.vendor != "postgresql":
        why = postgres.kwargs.get("reason", "SQLite cannot run this test")
        pytest.skip(f"needs PostgreSQL (set DATABASE_URL): {why}")
    redis = item.get_closest_marker("redis")
    if redis and not settings.REDIS_URL:
        why = redis.kwargs.get("reason", "the filesystem broker cannot run this test")
        pytest.skip(f"needs Redis (set REDIS_URL): {why}")


def pytest_unconfigure(config):
    network.remove_log()


@pytest.fixture(autouse=True)
def _loopback_only():
    """Fail the test when it, or a process it started, tried to connect off loopback (the
    connection itself was refused at once). An autouse fixture, set up before the test's other
    fixtures and so torn down after them: a receiver or worker pool stopping is covered too; a
    refusal in a module's or the session's own fixtures fails the next test."""
    _fail_on(network.take_refusals(), "before this test")
    yield
    _fail_on(network.take_refusals(), "during this test")


def _fail_on(refused: list[str], when: str) -> None:
    if refused:
        pytest.fail(f"{len(refused)} outbound connection(s) {when}:\n\n" + "\n\n".join(refused))


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """On PostgreSQL the audit table refuses TRUNCATE (audit migration 0003) unless the
    database sets `jobcost.allow_audit_truncate`; the test database does, so the teardown of
    transactional tests can empty it. Its commits do not wait for the WAL to reach the disk
    (`synchronous_commit = off`: what other sessions see is the same, only a crash of the
    server could lose the last ones, of a database made to be thrown away). Connections opened
    from here on carry both settings."""
    if connection.vendor == "postgresql":
        with django_db_blocker.unblock():
            name = connection.ops.quote_name(connection.settings_dict["NAME"])
            with connection.cursor() as cursor:
                cursor.execute(f"ALTER DATABASE {name} SET jobcost.allow_audit_truncate = 'on'")
                cursor.execute(f"ALTER DATABASE {name} SET synchronous_commit = 'off'")
            connection.close()
    yield


@pytest.fixture(autouse=True)
def _sqlite_audit_emptied(request):
    """On SQLite, a transactional test ends with the audit table already empty. The teardown
    of such a test empties every table with `DELETE FROM`, which the audit table's
    append-only trigger refuses there (audit migration 0002); on PostgreSQL the same teardown
    truncates, which the test database allows (`django_db_setup`, above). So before it, in one
    transaction, the trigger is dropped, the table emptied and the trigger made again: the
    audit rows go, and the trigger every other test meets is the migration's own."""
    if connection.vendor != "sqlite" or _django_order(request.node) != 1:
        yield
        return
    request.getfixturevalue("transactional_db")  # torn down (the flush) after this fixture
    yield
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER audit_entry_no_delete")
        cursor.execute(f"DELETE FROM {AuditEntry._meta.db_table}")
        cursor.execute(_SQLITE_NO_DELETE)


# The SQLite trigger refusing DELETE of audit rows, as its migration made it.
_SQLITE_NO_DELETE = next(
    statement
    for statement in import_module("audit.migrations.0002_append_only_triggers").SQLITE_UP
    if "audit_entry_no_delete" in statement
)


@pytest.fixture(autouse=True)
def _keys_forgotten():
    """Each test starts with no API key kept by the process (jobcost/api/authentication.py)."""
    authentication.forget_keys()


@pytest.fixture
def cold_keys(monkeypatch):
    """Every request reads its API key from the database, as the first request of a key in a
    second does (jobcost/api/authentication.py keeps a key it read for a second): for tests
    that count a request's queries, so that each counts the key's query."""
    monkeypatch.setattr(authentication, "KEY_CACHE_SECONDS", 0.0)


@pytest.fixture(autouse=True)
def _generous_rate_limit(settings):
    """Tests fire requests fast; the rate-limit tests set per-account limits themselves."""
    settings.JOBCOST_RATE_LIMIT_PER_SECOND = 10_000
    settings.JOBCOST_RATE_LIMIT_BURST = 10_000


class Api:
    """A JSON client bound to one API key. POST and PATCH get a fresh Idempotency-Key unless
    `idem=` is given (`idem=None` sends none)."""

    def __init__(self, secret: str | None, key=None):
        self.secret = secret
        self.key = key
        self.client = Client()

    def _headers(self, extra):
        headers = {}
        if self.secret:
            headers["Authorization"] = f"Bearer {self.secret}"
        headers.update(extra or {})
        return headers

    def get(self, path: str, params=None, headers=None):
        return self.client.get(path, params or {}, headers=self._headers(headers))

    def _write(self, method, path, body, idem, headers, content_type):
        headers = dict(headers or {})
        if idem is ...:
            idem = f"test-{next(_idem)}"
        if idem is not None:
            headers["Idempotency-Key"] = idem
        data = body if isinstance(body, (str, bytes)) else json.dumps(body or {})
        return getattr(self.client, method)(
            path, data=data, content_type=content_type, headers=self._headers(headers)
        )

    def post(self, path, body=None, *, idem=..., headers=None, content_type="application/json"):
        return self._write("post", path, body, idem, headers, content_type)

    def patch(self, path, body=None, *, idem=..., headers=None, content_type="application/json"):
        return self._write("patch", path, body, idem, headers, content_type)

    def delete(self, path, headers=None):
        return self.client.delete(path, headers=self._headers(headers))


@pytest.fixture
def account(db):
    return AccountFactory()


@pytest.fixture
def make_api(db):
    """`make_api(account, role="admin", projects=())` → Api bound to a new key."""

    def make(account, role="admin", projects=()):
        key, secret = make_key(account, role, projects)
        return Api(secret, key)

    return make


@pytest.fixture
def api(account, make_api):
    """An admin-role client of `account`."""
    return make_api(account, "admin")


def error_of(response) -> dict:
    """The error object of an envelope response (asserts the envelope's shape)."""
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"type", "code", "message", "param", "object", "request_id"}, error
    assert error["request_id"] == response["Request-Id"]
    return error
