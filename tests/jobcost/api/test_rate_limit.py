"""docs/operations/limits.md rate limit: one Redis token bucket per account (all its keys together),
set per account; RateLimit-* headers on every response, 429 `rate_limited` with Retry-After ≥ 1."""

from __future__ import annotations

import ipaddress
import secrets
import threading
import time

import pytest
from django.conf import settings
from django.test import Client

from jobcost.api import ratelimit
from jobcost.redis_client import bounded_client
from tests.conftest import Api, error_of
from tests.factories import AccountFactory
from tests.hung_server import ScriptsHungServer
from tests.jobcost.api.conventions_support import row_counts

pytestmark = pytest.mark.redis


@pytest.fixture
def tight_account(account):
    """The test account limited to a burst of 3 and 1 request/s."""
    account.rate_limit_burst = 3
    account.rate_limit_per_second = 1
    account.save()
    return account


def _assert_limited(response) -> int:
    assert response.status_code == 429, response.content
    error = error_of(response)
    assert (error["type"], error["code"], error["param"]) == ("rate_limited", "rate_limited", None)
    retry_after = int(response["Retry-After"])
    assert retry_after >= 1
    assert response["RateLimit-Limit"] == "3"
    assert response["RateLimit-Remaining"] == "0"
    assert response["Request-Id"].startswith("req_")
    assert response["Jobcost-Version"] == settings.JOBCOST_API_VERSIONS[-1]
    return retry_after


def test_burst_then_429_with_headers(tight_account, make_api):
    api = make_api(tight_account)
    remaining, resets = [], []
    for _ in range(3):
        response = api.get("/v1/owners")
        assert response.status_code == 200
        assert response["RateLimit-Limit"] == "3"
        assert "Retry-After" not in response
        remaining.append(response["RateLimit-Remaining"])
        resets.append(int(response["RateLimit-Reset"]))
    assert remaining == ["2", "1", "0"]
    assert all(1 <= reset <= 3 for reset in resets)
    assert resets == sorted(resets)
    _assert_limited(api.get("/v1/owners"))


def test_a_limited_write_writes_nothing_and_is_not_stored(tight_account, make_api):
    api = make_api(tight_account)
    for _ in range(3):
        assert api.get("/v1/owners").status_code == 200
    before = row_counts(idempotency=True)
    _assert_limited(api.post("/v1/owners", {"name": "Harbor"}, idem="limited"))
    assert row_counts(idempotency=True) == before
    client, _script = ratelimit._redis()
    client.delete(f"jobcost:ratelimit:{tight_account.pk}")
    retry = api.post("/v1/owners", {"name": "Harbor"}, idem="limited")
    assert retry.status_code == 201
    assert "Idempotent-Replayed" not in retry


def test_keys_of_one_account_share_the_bucket(tight_account, make_api):
    first, second = make_api(tight_account), make_api(tight_account, "viewer")
    assert first.get("/v1/owners").status_code == 200
    assert second.get("/v1/owners").status_code == 200
    assert first.get("/v1/vendors")["RateLimit-Remaining"] == "0"
    _assert_limited(second.get("/v1/owners"))
    _assert_limited(first.get("/v1/projects"))


def test_another_account_is_unaffected(tight_account, make_api):
    api = make_api(tight_account)
    for _ in range(3):
        api.get("/v1/owners")
    _assert_limited(api.get("/v1/owners"))
    other = make_api(AccountFactory())
    response = other.get("/v1/owners")
    assert response.status_code == 200
    assert response["RateLimit-Limit"] == str(settings.JOBCOST_RATE_LIMIT_BURST)
    assert int(response["RateLimit-Remaining"]) == settings.JOBCOST_RATE_LIMIT_BURST - 1


def test_settings_defaults_apply_without_an_account_override(api, settings):
    settings.JOBCOST_RATE_LIMIT_BURST = 2
    settings.JOBCOST_RATE_LIMIT_PER_SECOND = 1
    assert api.get("/v1/owners")["RateLimit-Limit"] == "2"
    assert api.get("/v1/owners").status_code == 200
    response = api.get("/v1/owners")
    assert response.status_code == 429
    assert error_of(response)["code"] == "rate_limited"
    assert int(response["Retry-After"]) >= 1


def test_unauthenticated_responses_carry_rate_limit_headers(db):
    response = Api(None).get("/v1/owners")
    assert response.status_code == 401
    assert int(response["RateLimit-Limit"]) >= 1
    assert "RateLimit-Remaining" in response and "RateLimit-Reset" in response


@pytest.mark.parametrize(
    "limits",
    [
        {"rate_limit_per_second": 0},
        {"rate_limit_burst": 0},
        {"rate_limit_per_second": 0, "rate_limit_burst": 0},
    ],
)
def test_an_account_limit_of_zero_refuses_every_request(account, make_api, limits):
    for field, value in limits.items():
        setattr(account, field, value)
    account.save()
    api = make_api(account)
    before = row_counts(idempotency=True)
    for response in (api.get("/v1/owners"), api.post("/v1/owners", {"name": "Blocked"})):
        assert response.status_code == 429, response.content
        error = error_of(response)
        assert (error["code"], error["param"]) == ("rate_limited", None)
        assert "rate limit is 0" in error["message"]
        assert response["RateLimit-Remaining"] == "0"
        assert "Retry-After" not in response and "RateLimit-Reset" not in response
    assert row_counts(idempotency=True) == before


def test_a_null_account_limit_means_the_settings_default(account, make_api, settings):
    settings.JOBCOST_RATE_LIMIT_BURST = 5
    assert (account.rate_limit_per_second, account.rate_limit_burst) == (None, None)
    response = make_api(account).get("/v1/owners")
    assert response.status_code == 200
    assert response["RateLimit-Limit"] == "5"


@pytest.fixture
def roomy_account(account):
    """An account limited to 10,000 requests/s with a burst of 100,000."""
    account.rate_limit_per_second = 10_000
    account.rate_limit_burst = 100_000
    account.save()
    return account


def _bucket(account) -> tuple:
    client, _script = ratelimit._redis()
    return client, f"jobcost:ratelimit:{account.pk}"


def _hold_refill(account, tokens: str) -> None:
    """Sets the account's Redis bucket to `tokens`, last counted an hour ahead of Redis's
    clock, so that nothing refills before the next script call."""
    client, key = _bucket(account)
    seconds, _micros = client.time()
    client.hset(key, mapping={"tokens": tokens, "ts": str(seconds + 3600)})


def test_a_high_limit_takes_one_token_from_redis_per_request(roomy_account, make_api):
    """However high the limit, each request takes its one token from the Redis bucket itself:
    the bucket holds one token fewer after each request, and the headers say what it holds.
    (The bucket is held from refilling before each request: at 10,000 tokens/s it would
    refill between them.)"""
    api = make_api(roomy_account)
    client, key = _bucket(roomy_account)
    for held in (50, 40, 30):
        _hold_refill(roomy_account, str(held))
        response = api.get("/v1/owners")
        assert response.status_code == 200
        assert response["RateLimit-Remaining"] == str(held - 1)
        assert response["RateLimit-Limit"] == "100000"
        assert "Retry-After" not in response
        assert client.hget(key, "tokens") == str(held - 1).encode()


def test_every_take_is_one_script_call(roomy_account, monkeypatch):
    """Fifty requests of a high-limit account are fifty calls of the bucket's script, one
    token each: no process keeps a share of the bucket for itself."""
    calls = []
    call = ratelimit._call

    def counted(*args):
        reply = call(*args)
        calls.append(reply[0])
        return reply

    monkeypatch.setattr(ratelimit, "_call", counted)
    decisions = [ratelimit.take(roomy_account.pk, rate=10_000, burst=100_000) for _ in range(50)]
    assert calls == [1] * 50
    assert all(decision.allowed and decision.counted for decision in decisions)


def test_an_empty_bucket_refuses_a_high_limit_account(roomy_account, make_api):
    _hold_refill(roomy_account, "0.5")
    response = make_api(roomy_account).get("/v1/owners")
    assert response.status_code == 429, response.content
    assert error_of(response)["code"] == "rate_limited"
    assert (response["RateLimit-Limit"], response["RateLimit-Remaining"]) == ("100000", "0")
    assert response["Retry-After"] == "1"


def test_a_changed_limit_applies_at_the_next_request(roomy_account, make_api):
    """The limit is read at each request: lowered, the next take counts against the new
    burst, and raised again, against the old one, from what the bucket holds."""
    api = make_api(roomy_account)
    _hold_refill(roomy_account, "50")
    assert api.get("/v1/owners")["RateLimit-Remaining"] == "49"
    lowered = ratelimit.take(roomy_account.pk, rate=1, burst=3)
    assert (lowered.allowed, lowered.limit, lowered.tokens) == (True, 3, 2.0)
    _hold_refill(roomy_account, "50")
    again = ratelimit.take(roomy_account.pk, rate=10_000, burst=100_000)
    assert (again.allowed, again.tokens) == (True, 49.0)


def _anonymous(remote_addr: str, forwarded_for: str):
    """An unauthenticated request from `remote_addr` carrying X-Forwarded-For."""
    return Client(REMOTE_ADDR=remote_addr).get(
        "/v1/owners", headers={"X-Forwarded-For": forwarded_for}
    )


def _fresh_address() -> str:
    return str(ipaddress.IPv4Address(0x0A000000 + secrets.randbelow(2**24)))  # 10.0.0.0/8


def test_forwarded_for_is_ignored_without_trusted_proxies(db, settings):
    """A client cannot pick its own unauthenticated bucket by sending X-Forwarded-For."""
    settings.JOBCOST_RATE_LIMIT_BURST, settings.JOBCOST_RATE_LIMIT_PER_SECOND = 2, 1
    settings.JOBCOST_TRUSTED_PROXIES = 0
    remote = _fresh_address()
    statuses = [_anonymous(remote, _fresh_address()).status_code for _ in range(3)]
    assert statuses == [401, 401, 429]


def test_with_one_trusted_proxy_the_bucket_is_the_address_it_forwarded(db, settings):
    """Behind one proxy the client is the rightmost X-Forwarded-For entry: what a client
    claims to the left of it does not change its bucket, another client has its own."""
    settings.JOBCOST_RATE_LIMIT_BURST, settings.JOBCOST_RATE_LIMIT_PER_SECOND = 2, 1
    settings.JOBCOST_TRUSTED_PROXIES = 1
    proxy, client, other = _fresh_address(), _fresh_address(), _fresh_address()
    statuses = [_anonymous(proxy, f"{_fresh_address()}, {client}").status_code for _ in range(3)]
    assert statuses == [401, 401, 429]
    assert _anonymous(proxy, other).status_code == 401
    assert _anonymous(proxy, f"{client}, {other}").status_code == 401


def test_with_two_trusted_proxies_the_client_is_second_from_the_right(db, settings):
    settings.JOBCOST_RATE_LIMIT_BURST, settings.JOBCOST_RATE_LIMIT_PER_SECOND = 1, 1
    settings.JOBCOST_TRUSTED_PROXIES = 2
    inner, outer, client, other = (_fresh_address() for _ in range(4))
    assert _anonymous(inner, f"spoofed, {client}, {outer}").status_code == 401
    assert _anonymous(inner, f"{_fresh_address()}, {client}, {outer}").status_code == 429
    # another client, claiming the first one's address to the left of its own
    assert _anonymous(inner, f"{client}, {other}, {outer}").status_code == 401


def test_the_bucket_survives_a_redis_that_forgot_its_script(tight_account, make_api):
    """After `SCRIPT FLUSH` (as after a Redis restart) the next request loads the script again
    and is counted: the bucket goes on from where it was."""
    api = make_api(tight_account)
    assert api.get("/v1/owners")["RateLimit-Remaining"] == "2"
    client, _script = ratelimit._redis()
    client.script_flush()
    assert api.get("/v1/owners")["RateLimit-Remaining"] == "1"
    assert api.get("/v1/owners")["RateLimit-Remaining"] == "0"
    _assert_limited(api.get("/v1/owners"))


def _limiter_connection_id() -> int:
    """The Redis client ID of the limiter's pooled connection: in one thread the pool holds
    that one connection, and `CLIENT ID` is sent on it."""
    client, _script = ratelimit._redis()
    return client.client_id()


def test_the_bucket_survives_redis_dropping_the_connection(tight_account, make_api):
    """Redis closing the limiter's pooled connection (`CLIENT KILL`) between two requests
    costs nothing: the pool finds it closed before sending and the request counts on a new
    one."""
    api = make_api(tight_account)
    assert api.get("/v1/owners")["RateLimit-Remaining"] == "2"
    dropped = _limiter_connection_id()
    assert bounded_client().client_kill_filter(_id=dropped) == 1
    assert api.get("/v1/owners")["RateLimit-Remaining"] == "1"
    assert _limiter_connection_id() != dropped
    assert api.get("/v1/owners")["RateLimit-Remaining"] == "0"


def test_the_bucket_survives_a_restart_that_drops_both_connection_and_script(
    tight_account, make_api
):
    """A Redis restart closes the connection and forgets the script at once: the next request
    still counts."""
    api = make_api(tight_account)
    assert api.get("/v1/owners")["RateLimit-Remaining"] == "2"
    dropped = _limiter_connection_id()
    other = bounded_client()
    other.script_flush()
    assert other.client_kill_filter(_id=dropped) == 1
    assert api.get("/v1/owners")["RateLimit-Remaining"] == "1"


def test_every_thread_of_a_long_lived_process_is_counted():
    """A server that starts a thread per request (runserver): each request borrows a pooled
    connection and gives it back, so 150 threads in turn are all counted."""
    bucket = f"test:threads:{secrets.token_hex(4)}"
    decisions = []

    def one_request():
        decisions.append(ratelimit.take(bucket, rate=1, burst=1000))

    for _ in range(150):
        thread = threading.Thread(target=one_request)
        thread.start()
        thread.join()
    assert len(decisions) == 150
    assert all(d.counted and d.allowed for d in decisions)
    assert min(d.tokens for d in decisions) < 1000 - 149


@pytest.fixture
def redis_hung_on_scripts(settings):
    """The limiter pointed at a Redis that answers the connection's handshake but never a
    script, with a 0.3 s timeout; the limiter's client is rebuilt before and after."""
    server = ScriptsHungServer()
    settings.REDIS_URL = server.url
    settings.REDIS_TIMEOUT_SECONDS = 0.3
    ratelimit._redis.cache_clear()
    ratelimit._redis_down_until = 0.0
    yield server
    ratelimit._redis.cache_clear()
    ratelimit._redis_down_until = 0.0
    server.close()


def test_a_redis_that_hangs_once_connected_costs_one_timeout(redis_hung_on_scripts):
    """A Redis that stops answering after the limiter's connection is made (the handshake
    answered, the script never) costs one `REDIS_TIMEOUT_SECONDS`, then the request is allowed
    uncounted (fail open), and no thread is left waiting."""
    decisions, elapsed = [], []

    def one_request():
        started = time.monotonic()
        decisions.append(ratelimit.take(f"test:hung:{secrets.token_hex(4)}", rate=1, burst=5))
        elapsed.append(time.monotonic() - started)

    thread = threading.Thread(target=one_request, daemon=True)
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive(), "the limiter waited on a hung Redis past its timeout"
    assert redis_hung_on_scripts.commands[-1] == "EVALSHA"  # sent after the handshake
    assert 0.29 <= elapsed[0] < 2
    assert decisions[0].allowed and not decisions[0].counted
    assert decisions[0].headers() == {}
