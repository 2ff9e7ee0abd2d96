"""The one way the web process talks to Redis outside Celery (docs/operations/configuration.md:
`JOBCOST_REDIS_TIMEOUT`): a client whose connect and each reply wait at most the timeout and
that never retries, so a down or hung Redis costs a request one bounded wait, not a hang."""

from __future__ import annotations

import redis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.retry import Retry


def bounded_client() -> redis.Redis:
    """A client of `REDIS_URL` with `REDIS_TIMEOUT_SECONDS` connect and read timeouts and no
    retry; raises `redis.RedisError` (and its timeouts) from the call that could not finish."""
    timeout = settings.REDIS_TIMEOUT_SECONDS
    return redis.Redis.from_url(
        settings.REDIS_URL,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
    )
