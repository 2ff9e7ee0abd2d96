"""A real gunicorn for tests that need the production server's own behaviour (keep-alive
framing, threads, workers): `config/gunicorn.conf.py` started on a free loopback port against
the test database (docs/operations/production.md, "Serving the API (gunicorn)").

Data a test writes reaches the server only once committed: such tests use
`django_db(transaction=True)`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.db import connection

from tests.waiting import until

ROOT = Path(settings.BASE_DIR)


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url() -> str:
    """The test database as a `DATABASE_URL` (call with database access unblocked). Only a
    PostgreSQL one: SQLite's test database lives in the test process's memory, out of a
    server's reach, so tests using this are marked `postgres`."""
    if connection.vendor != "postgresql":
        raise RuntimeError("a server process cannot share SQLite's test database")
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def _answers_healthz(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return sock.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


@contextlib.contextmanager
def gunicorn(
    db_url: str, *, workers: int = 1, threads: int = 2, env: dict[str, str] | None = None
) -> Iterator[int]:
    """Run gunicorn with `workers` processes of `threads` threads on `db_url`; yields its
    port once /healthz answers, and stops it (SIGINT, gunicorn's quick shutdown) after."""
    port = free_port()
    environment = {
        **os.environ,
        "DATABASE_URL": db_url,
        "GUNICORN_WORKERS": str(workers),
        "GUNICORN_THREADS": str(threads),
        "GUNICORN_ACCESS_LOG": "off",
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        **(env or {}),
    }
    command = [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py"]
    command += ["--bind", f"127.0.0.1:{port}", "config.wsgi:application"]
    # A session of its own, so that stopping it reaches every worker, even one the arbiter
    # left behind.
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )

    def healthy() -> bool:
        assert process.poll() is None, process.stderr.read().decode()
        return _answers_healthz(port)

    try:
        until(healthy, timeout=60, what="gunicorn to answer /healthz")
        yield port
    finally:
        process.send_signal(signal.SIGINT)  # gunicorn's quick shutdown
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # any worker still there
