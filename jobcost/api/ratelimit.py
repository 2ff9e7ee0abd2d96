"""Per-account token bucket (README "Limits"): Redis when REDIS_URL is set, else in-process.

Defaults: 100 requests/s sustained, burst 200 (settings, or per account; an account limit of 0
refuses every request, README "Decisions"). The Redis bucket is one Lua script, atomic across
processes and hosts, timed by the Redis server's clock.

Every request admitted costs one script call: there is no process-local share of the bucket,
so what RateLimit-Remaining says is what every process sees (README "Decisions": "One Redis
call per request").

A Redis that is down or hung costs a request at most `REDIS_TIMEOUT_SECONDS` (connect or
reply, no retry); the request is then allowed without RateLimit-* headers, since nothing was
counted, and this process leaves Redis alone for `RATE_LIMIT_REDIS_BACKOFF_SECONDS` so the
requests after it pay nothing (README, "Decisions": a hung Redis).
"""

from __future__ import annotations

import logging
import math
import os
import select
import threading
import time
from dataclasses import dataclass
from functools import cache

import redis
from django.conf import settings

from jobcost.redis_client import bounded_client

logger = logging.getLogger("jobcost.ratelimit")

_LUA = """
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil then
  tokens = burst
  ts = now
end
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate)
local cost = tonumber(ARGV[3])
local granted = 0
if tokens >= cost then
  granted = cost
  tokens = tokens - cost
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 1)
return {granted, tostring(tokens)}
"""


# Seconds this process skips Redis after a failed call (fail open at once meanwhile).
RATE_LIMIT_REDIS_BACKOFF_SECONDS = 5.0


@dataclass(frozen=True)
class Decision:
    """Outcome of taking `cost` tokens (one, for a plain request); `tokens` is what is left
    (may be fractional). `counted` is false when the limiter could not count (Redis
    unreachable)."""

    allowed: bool
    limit: int
    rate: int
    tokens: float
    counted: bool = True
    cost: int = 1

    @property
    def blocked(self) -> bool:
        """An account limit of 0: no request is ever allowed, so no reset time exists."""
        return self.rate == 0 or self.limit == 0

    def headers(self) -> dict[str, str]:
        """RateLimit-Limit / -Remaining / -Reset (seconds until the bucket is full), plus
        Retry-After (whole seconds, at least 1, until the bucket holds `cost` tokens) when
        refused. No header at all when nothing was counted; only -Limit and -Remaining for a
        blocked account (it never refills)."""
        if not self.counted:
            return {}
        if self.blocked:
            return {"RateLimit-Limit": str(self.limit), "RateLimit-Remaining": "0"}
        headers = {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(max(0, math.floor(self.tokens))),
            "RateLimit-Reset": str(max(0, math.ceil((self.limit - self.tokens) / self.rate))),
        }
        if not self.allowed:
            wait = (self.cost - self.tokens) / self.rate
            headers["Retry-After"] = str(max(1, math.ceil(wait)))
        return headers


@cache
def _redis():
    client = bounded_client()
    return client, client.register_script(_LUA)


# Each thread's own connection to `_redis()`'s server, with the client and process it was made
# for (a forked child never writes on its parent's socket).
_thread = threading.local()


def _connection(client: redis.Redis):
    """This thread's connection, made with the client pool's connection class and settings
    (timeouts, protocol, address) but not counted against the pool's `max_connections`: it is
    never given back, and a server that starts a thread per request would otherwise use the
    pool up. A kept connection that Redis has closed since its last reply (a restart,
    `CLIENT KILL`), or that holds stray data, is dropped before it is used, as the pool's
    checkout does; the send then opens a new one."""
    held = getattr(_thread, "held", None)
    if held is None or held[0] is not client or held[1] != os.getpid():
        pool = client.connection_pool
        held = _thread.held = (client, os.getpid(), pool.connection_class(**pool.connection_kwargs))
    connection = held[2]
    # `can_read`, which the pool's checkout calls, cost 70 µs; a poll of the socket does the
    # same check (anything readable before a command is sent is an end of file or stray
    # data). `_sock` is the socket `is_connected` reads (redis is pinned in requirements.txt).
    sock = connection._sock
    if sock is not None and select.select([sock], [], [], 0)[0]:
        connection.disconnect()
    return connection


def _evalsha(key: str, rate: int, burst: int, cost: int = 1):
    """The bucket script's reply for `key`, sent once on this thread's own connection
    (`_connection`): the same connection class, timeouts and reply parser as
    `script(keys=…, args=…)`, without the client's per-call pool checkout, retry wrapper and
    command dispatch, which were half of the limiter's CPU (README "Reads under gunicorn").
    A Redis that lost the script (a restart, `SCRIPT FLUSH`) gets it again through the
    client's `Script`. Raises `redis.RedisError` or `OSError` as the client would (never
    sending twice, so a hung Redis costs one `REDIS_TIMEOUT_SECONDS` and a token is never
    taken twice); the connection is then dropped and the next call opens a new one."""
    client, script = _redis()
    connection = _connection(client)
    try:
        connection.send_command(
            "EVALSHA", script.sha, 1, key, rate, burst, cost, check_health=False
        )
        return connection.read_response()
    except redis.exceptions.NoScriptError:  # a whole reply was read: the connection is fine
        return script(keys=[key], args=[rate, burst, cost])
    except BaseException:
        connection.disconnect()
        raise


_redis_down_until = 0.0


_local_lock = threading.Lock()
_local_buckets: dict[str, tuple[float, float]] = {}


def _take_local(bucket: str, rate: int, burst: int, cost: int = 1) -> tuple[bool, float]:
    now = time.monotonic()
    with _local_lock:
        tokens, ts = _local_buckets.get(bucket, (float(burst), now))
        tokens = min(float(burst), tokens + max(0.0, now - ts) * rate)
        allowed = tokens >= cost
        if allowed:
            tokens -= cost
        _local_buckets[bucket] = (tokens, now)
    return allowed, tokens


def take(
    bucket: str, *, rate: int | None = None, burst: int | None = None, cost: int = 1
) -> Decision:
    """Take one token from `bucket` (e.g. `acct_…`), or `cost` tokens all or nothing: a
    weighted request (a PDF rendered, README "Limits") is allowed only when the bucket holds
    all of them, and a refusal takes none; its Retry-After is the wait until it holds `cost`.
    A `cost` over the bucket's `burst` is the whole burst (it could never be met). `rate`
    (tokens/s) and `burst` (tokens) default to the settings when None; 0 in either refuses
    every request (`blocked`).

    With Redis, each take is one call of the bucket's script, whatever the limit. A
    configured but unreachable Redis fails open (logged, `counted=False`): refusing all
    traffic because the limiter is down would be worse. Never waits on Redis longer than
    `REDIS_TIMEOUT_SECONDS`.
    """
    global _redis_down_until
    rate = settings.JOBCOST_RATE_LIMIT_PER_SECOND if rate is None else rate
    burst = settings.JOBCOST_RATE_LIMIT_BURST if burst is None else burst
    if rate == 0 or burst == 0:
        return Decision(False, burst, rate, 0.0)
    cost = max(1, min(cost, burst))
    if not settings.REDIS_URL:
        allowed, tokens = _take_local(bucket, rate, burst, cost)
        return Decision(allowed, burst, rate, tokens, cost=cost)
    if time.monotonic() < _redis_down_until:
        return Decision(True, burst, rate, float(burst), counted=False, cost=cost)
    try:
        granted, tokens = _evalsha(f"jobcost:ratelimit:{bucket}", rate, burst, cost)
    except (redis.RedisError, OSError) as exc:
        _redis_down_until = time.monotonic() + RATE_LIMIT_REDIS_BACKOFF_SECONDS
        logger.warning("rate limiter unavailable, allowing requests uncounted: %r", exc)
        return Decision(True, burst, rate, float(burst), counted=False, cost=cost)
    return Decision(granted == cost, burst, rate, float(tokens), cost=cost)
