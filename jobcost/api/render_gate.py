"""At most `JOBCOST_RENDERS_PER_ACCOUNT` PDFs rendering for one account at once, across
processes and hosts (docs/operations/limits.md, "Rendering PDFs").

With Redis, an account's renderings in flight are the members of a sorted set scored by the
Redis server's clock; one Lua script drops the members older than the slot's lifetime (a
worker killed mid-render never gives its slot back, so a slot lives at most twice the
rendering time limit), then adds one only if fewer than the cap remain. Leaving removes the
member. Without Redis, or when it does not answer (`REDIS_TIMEOUT_SECONDS`, no retry, logged),
the count is this process's own.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Iterator
from functools import cache

import redis
from django.conf import settings

from jobcost.error_codes import RateLimitErrorCode
from jobcost.errors import RateLimited
from jobcost.redis_client import bounded_client

logger = logging.getLogger("jobcost.render_gate")

_ENTER = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local lifetime = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - lifetime)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('EXPIRE', KEYS[1], math.ceil(lifetime) + 1)
return 1
"""

_local_lock = threading.Lock()
_local_counts: dict[str, int] = {}


@cache
def _redis():
    client = bounded_client()
    return client, client.register_script(_ENTER)


def _key(account_id: str) -> str:
    return f"jobcost:renders:{account_id}"


# After Redis failed to answer, this process counts on its own for this many seconds, so
# the renderings behind the failure do not each wait for it (as the rate limiter does).
REDIS_BACKOFF_SECONDS = 5.0
_redis_down_until = 0.0


def _enter_redis(account_id: str, cap: int, member: str) -> bool | None:
    """True/False from Redis; None when Redis could not answer (or failed lately)."""
    global _redis_down_until
    if time.monotonic() < _redis_down_until:
        return None
    client, script = _redis()
    lifetime = 2 * settings.JOBCOST_RENDER_TIME_LIMIT
    try:
        return bool(script(keys=[_key(account_id)], args=[lifetime, cap, member], client=client))
    except (redis.RedisError, OSError) as exc:
        _redis_down_until = time.monotonic() + REDIS_BACKOFF_SECONDS
        logger.warning("render gate: Redis unavailable, counting in this process: %r", exc)
        return None


def _leave_redis(account_id: str, member: str) -> None:
    client, _ = _redis()
    try:
        client.zrem(_key(account_id), member)
    except (redis.RedisError, OSError) as exc:  # the slot expires with its lifetime
        logger.warning("render gate: could not leave: %r", exc)


def _enter_local(account_id: str, cap: int) -> bool:
    with _local_lock:
        held = _local_counts.get(account_id, 0)
        if held >= cap:
            return False
        _local_counts[account_id] = held + 1
        return True


def _leave_local(account_id: str) -> None:
    with _local_lock:
        held = _local_counts.get(account_id, 1) - 1
        if held > 0:
            _local_counts[account_id] = held
        else:
            _local_counts.pop(account_id, None)


@contextlib.contextmanager
def render_slot(account_id: str) -> Iterator[None]:
    """Hold one of the account's `JOBCOST_RENDERS_PER_ACCOUNT` rendering slots for the
    block; when all are taken, 429 `too_many_renders` with `Retry-After: 1`, before anything
    renders."""
    cap = settings.JOBCOST_RENDERS_PER_ACCOUNT
    member = uuid.uuid4().hex
    held_in_redis = _enter_redis(account_id, cap, member) if settings.REDIS_URL else None
    entered = held_in_redis if held_in_redis is not None else _enter_local(account_id, cap)
    if not entered:
        raise RateLimited(
            f"This account already has {cap} PDFs rendering, the most at once; retry after "
            "the Retry-After seconds.",
            code=RateLimitErrorCode.TOO_MANY_RENDERS,
            headers={"Retry-After": "1"},
        )
    try:
        yield
    finally:
        if held_in_redis is None:
            _leave_local(account_id)
        else:
            _leave_redis(account_id, member)
