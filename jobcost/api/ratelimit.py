"""Per-account token bucket (docs/operations/limits.md): Redis when REDIS_URL is set, else
in-process.

Defaults: 100 requests/s sustained, burst 200 (settings, or per account; an account limit of 0
refuses every request, docs/decisions.md). The Redis bucket is one Lua script, atomic across
processes and hosts, timed by the Redis server's clock.

Every request admitted costs one script call: there is no process-local share of the bucket,
so what RateLimit-Remaining says is what every process sees (docs/decisions.md, "One Redis
call per request").

A Redis that is down or hung costs a request at most `REDIS_TIMEOUT_SECONDS` (connect or
reply, no retry); the request is then allowed without RateLimit-* headers, since nothing was
counted, and this process leaves Redis alone for `RATE_LIMIT_REDIS_BACKOFF_SECONDS` so the
requests after it pay nothing (docs/decisions.md, "A hung Redis").
"""

from __future__ import annotations

import logging
import math
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
    """This process's client (`bounded_client`: bounded waits, no retry) and the bucket's
    script registered on it. A Redis that lost the script (a restart, `SCRIPT FLUSH`) gets it
    again from the `Script` itself."""
    client = bounded_client()
    return client, client.register_script(_LUA)


def _call(key: str, rate: int, burst: int, cost: int):
    """The bucket script's reply for `key`: [tokens granted (0 or `cost`), tokens left as
    text]. Raises `redis.RedisError` or `OSError` from a Redis that is down or answers too late
    (sent once: a hung Redis costs one `REDIS_TIMEOUT_SECONDS`, a token is never taken twice)."""
    _client, script = _redis()
    return script(keys=[key], args=[rate, burst, cost])


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
    weighted request (a PDF rendered, docs/operations/limits.md) is allowed only when the
    bucket holds all of them, and a refusal takes none; its Retry-After is the wait until it
    holds `cost`.
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
        granted, tokens = _call(f"jobcost:ratelimit:{bucket}", rate, burst, cost)
    except (redis.RedisError, OSError) as exc:
        _redis_down_until = time.monotonic() + RATE_LIMIT_REDIS_BACKOFF_SECONDS
        logger.warning("rate limiter unavailable, allowing requests uncounted: %r", exc)
        return Decision(True, burst, rate, float(burst), counted=False, cost=cost)
    return Decision(granted == cost, burst, rate, float(tokens), cost=cost)
