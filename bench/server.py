"""The benchmarks' production server: gunicorn with `config/gunicorn.conf.py` on a free
loopback port (docs/benchmarks.md), shared by `bench_reads`, `bench_writes` and `bench_soak`."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from bench.rss import cpu_seconds, descendants


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class Server:
    """A running gunicorn: its base URL (`http://127.0.0.1:<port>`) and its master's pid (the
    workers are the master's children)."""

    base: str
    pid: int


@contextmanager
def gunicorn(app: str, env: dict[str, str]) -> Iterator[str]:
    """Serve the WSGI `app` (`config.wsgi:application`) with the repository's gunicorn config
    and `env` (GUNICORN_WORKERS, GUNICORN_THREADS, …) on a free loopback port; yields its base
    URL once it answers HTTP (30 s at most, else `CommandError`), stops it on exit. gunicorn's
    start and stop lines stay out of the report; its warnings and errors reach stderr."""
    with gunicorn_server(app, env) as server:
        yield server.base


@contextmanager
def gunicorn_server(app: str, env: dict[str, str]) -> Iterator[Server]:
    """`gunicorn`, yielding the `Server` (base URL and master pid) instead of the URL alone;
    the same start (30 s at most, else `CommandError`) and stop."""
    port = free_port()
    env = {**env, "GUNICORN_BIND": f"127.0.0.1:{port}"}
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "-c",
        str(Path(settings.BASE_DIR) / "config" / "gunicorn.conf.py"),
        app,
        "--log-level",
        "warning",
    ]
    process = subprocess.Popen(  # noqa: S603 (our own gunicorn, fixed arguments)
        command, env=env, cwd=settings.BASE_DIR
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(base + "/nowhere", timeout=1)  # noqa: S310 (loopback http)
            except urllib.error.HTTPError:
                break  # any HTTP answer: the server is up
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise CommandError(f"gunicorn {app} did not start") from None
                time.sleep(0.2)
        yield Server(base, process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:  # never leave a server behind
            process.kill()
            process.wait()


def worker_cpu_seconds(master_pid: int) -> dict[int, float]:
    """CPU seconds (user and system) each of the master's worker processes has used, from
    `/proc/<pid>/stat`; a worker gone meanwhile is left out."""
    used = {}
    for pid in descendants(master_pid):
        if (seconds := cpu_seconds(pid)) is not None:
            used[pid] = seconds
    return used


# A run counts when each worker did at least this fraction of an even share of the workers'
# CPU (a quarter of it with two workers); `balanced` tells.
BALANCED_SHARE = 0.5


def balanced(before: dict[int, float], after: dict[int, float]) -> bool:
    """Whether every worker served during a run, from `worker_cpu_seconds` read before and
    after it: a gunicorn worker accepts every connection of a burst it can, so a client's
    few keep-alive connections, opened at once, often all land on one worker and the others
    idle, halving the rate at random (docs/benchmarks.md)."""
    used = [after[pid] - before[pid] for pid in after if pid in before]
    return len(used) < 2 or min(used) >= BALANCED_SHARE * sum(used) / len(used)
