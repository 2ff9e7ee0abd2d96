"""The two delivery lanes (docs/operations/workers.md).

Deliveries to a healthy endpoint go by the fast lane; deliveries to an endpoint that is slow
(its last attempt took `SLOW_AFTER_MS` or more) or failing (`failing_since` set) go by the slow
lane. Each lane is a Celery queue consumed by worker threads of its own, so endpoints that
answer in 9 s, or never, can only ever occupy the slow lane's threads and never delay a
healthy endpoint's delivery. The queue names are settings (`WEBHOOKS_QUEUE`,
`WEBHOOKS_SLOW_QUEUE`) so that tests can run their workers on private queues.
"""

from __future__ import annotations

import sys

from django.conf import settings

FAST = "fast"
SLOW = "slow"
LANES = (FAST, SLOW)
# An attempt this long (or longer) moves the endpoint to the slow lane until one is quicker.
# Healthy receivers answer in well under a second; 2 s leaves room for a cold start.
SLOW_AFTER_MS = 2000


def lane_for(endpoint) -> str:
    """FAST or SLOW for a `WebhookEndpoint` (only `failing_since` and `slow_since` are read)."""
    return lane_of(endpoint.failing_since, endpoint.slow_since)


def lane_of(failing_since, slow_since) -> str:
    """FAST or SLOW from the two columns, for queries that read them without the model."""
    return SLOW if failing_since is not None or slow_since is not None else FAST


def queue_for(lane: str) -> str:
    """The Celery queue of a lane (settings `WEBHOOKS_QUEUE` / `WEBHOOKS_SLOW_QUEUE`)."""
    return settings.WEBHOOKS_SLOW_QUEUE if lane == SLOW else settings.WEBHOOKS_QUEUE


# The production worker processes (docs/operations/workers.md): the queues each consumes, by
# their default names, and its pool. Sending is I/O-bound, so one process runs many threads;
# the slow lane has threads of its own so that slow or dead endpoints never take the main
# worker's. tests/webhooks/conftest.py and `manage.py bench_webhooks` start these on private
# queue names; tests/webhooks/test_worker_commands.py keeps docs/operations/workers.md's commands
# equal.
PRODUCTION_WORKERS = {
    "main": (("celery", "webhooks"), ("--pool", "threads", "--concurrency", "16")),
    "slow": (("webhooks-slow",), ("--pool", "threads", "--concurrency", "8")),
}


def worker_argv(queues: list[str], pool: tuple[str, ...], node: str) -> list[str]:
    """The command line of one Celery worker process of this project on `queues` (their
    names), with `pool` (as in PRODUCTION_WORKERS) and node name `node` (`name@%h`): warnings
    only, and no gossip, mingle or heartbeat (nothing here reads them). For the processes the
    benchmarks and tests start as production runs them."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--loglevel=WARNING",
        *pool,
        "-Q",
        ",".join(queues),
        "-n",
        node,
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
