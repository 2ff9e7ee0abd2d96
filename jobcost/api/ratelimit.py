"""Per-account token bucket (SPEC §6): Redis when REDIS_URL is set, else in-process.

Defaults: 100 requests/s sustained, burst 200 (settings, or per account). The Redis bucket is
one Lua script, atomic across processes and hosts, timed by the Redis server's clock.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass
from functools import cache

from django.conf import settings

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
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 1)
return {allowed, tostring(tokens)}
"""


@dataclass(frozen=True)
class Decision:
    """Outcome of taking one token; `tokens` is what is left (may be fractional)."""

    allowed: bool
    limit: int
    rate: int
    tokens: float

    def headers(self) -> dict[str, str]:
        """RateLimit-Limit / -Remaining / -Reset (seconds until the bucket is full), plus
        Retry-After (whole seconds, at least 1) when refused."""
        headers = {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(max(0, math.floor(self.tokens))),
            "RateLimit-Reset": str(max(0, math.ceil((self.limit - self.tokens) / self.rate))),
        }
        if not self.allowed:
            headers["Retry-After"] = str(max(1, math.ceil((1 - self.tokens) / self.rate)))
        return headers


@cache
def _redis():
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=0.5)
    return client, client.register_script(_LUA)


_local_lock = threading.Lock()
_local_buckets: dict[str, tuple[float, float]] = {}


def _take_local(bucket: str, rate: int, burst: int) -> tuple[bool, float]:
    now = time.monotonic()
    with _local_lock:
        tokens, ts = _local_buckets.get(bucket, (float(burst), now))
        tokens = min(float(burst), tokens + max(0.0, now - ts) * rate)
        allowed = tokens >= 1
        if allowed:
            tokens -= 1
        _local_buckets[bucket] = (tokens, now)
    return allowed, tokens


def take(bucket: str, *, rate: int | None = None, burst: int | None = None) -> Decision:
    """Take one token from `bucket` (e.g. `acct_…`). A configured but unreachable Redis fails
    open (logged): refusing all traffic because the limiter is down would be worse."""
    rate = rate or settings.JOBCOST_RATE_LIMIT_PER_SECOND
    burst = burst or settings.JOBCOST_RATE_LIMIT_BURST
    if settings.REDIS_URL:
        try:
            _client, script = _redis()
            allowed, tokens = script(keys=[f"jobcost:ratelimit:{bucket}"], args=[rate, burst])
            return Decision(bool(allowed), burst, rate, float(tokens))
        except Exception:  # redis.RedisError and connection failures
            logger.warning("rate limiter unavailable; allowing request", exc_info=True)
            return Decision(True, burst, rate, float(burst))
    allowed, tokens = _take_local(bucket, rate, burst)
    return Decision(allowed, burst, rate, tokens)
