"""Waiting in tests for something another thread or process does, by watching for it: a
condition polled until it holds (or the test fails, naming what it waited for), and a
PostgreSQL backend seen waiting on a lock the test holds. Never a fixed sleep to let another
thread "get there": that passes by luck on a fast machine and fails on a loaded one."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# Seconds between two looks at a condition: short next to anything a test waits for.
INTERVAL = 0.02


def until(
    condition: Callable[[], T],
    *,
    timeout: float = 30.0,
    what: str | Callable[[], str] = "",
) -> T:
    """Return `condition()`'s first truthy value, looking every INTERVAL seconds; fail after
    `timeout` seconds naming `what` (the awaited state, or a function that describes what was
    seen instead)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            described = what() if callable(what) else what
            raise AssertionError(f"waited {timeout:g} s for {described or condition!r}")
        time.sleep(INTERVAL)


def backend_pid(connection) -> int:
    """The PostgreSQL backend of a connection (Django's or psycopg's)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def until_blocked_by(
    probe, holder_pid: int, *, alive: Callable[[], bool] | None = None, timeout: float = 30.0
) -> None:
    """Return once some backend waits on a lock that backend `holder_pid` holds, as the lock
    manager says (`pg_locks`, `pg_blocking_pids`: live, not a statistics snapshot). `probe`
    is a third connection; `alive` (e.g. the waiting thread's `is_alive`) fails the wait at
    once if the work that should block has finished instead."""

    def blocked() -> bool:
        if alive is not None and not alive():
            raise AssertionError(f"the work ended without waiting on backend {holder_pid}'s lock")
        with probe.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_locks "
                "WHERE NOT granted AND %s = ANY(pg_blocking_pids(pid))",
                [holder_pid],
            )
            return cursor.fetchone()[0] > 0

    until(blocked, timeout=timeout, what=f"a backend waiting on a lock of backend {holder_pid}")
