"""Webhook fixtures: a loopback receiver, loopback http allowed (development setting), and real
Celery worker processes on Redis, started as production runs them, that read the test
database."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test import override_settings

from config.celery import app as celery_app
from tests.waiting import until
from tests.webhooks import resolvers
from tests.webhooks.receiver import Receiver
from webhooks.lanes import PRODUCTION_WORKERS, worker_argv


@pytest.fixture(autouse=True)
def _insecure_localhost(settings):
    settings.WEBHOOKS_ALLOW_INSECURE_LOCALHOST = True


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.close()


def _database_url() -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


class Workers:
    """Start Celery worker processes as production runs them (`PRODUCTION_WORKERS`), on
    private queues; stop them at teardown."""

    def __init__(self, queue: str):
        self.queue = queue
        self.queues = {
            "celery": queue,
            "webhooks": f"{queue}.webhooks",
            "webhooks-slow": f"{queue}.webhooks-slow",
        }
        self.processes: list[subprocess.Popen] = []
        self.nodes: list[str] = []  # their node names, once started
        self.logs = Path(tempfile.mkdtemp(prefix=f"{queue}-"))

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "DATABASE_URL": _database_url(),
            "REDIS_URL": django_settings.REDIS_URL,
            "WEBHOOKS_ALLOW_INSECURE_LOCALHOST": "1",
            "JOBCOST_CELERY_QUEUE": self.queues["celery"],
            "JOBCOST_WEBHOOKS_QUEUE": self.queues["webhooks"],
            "JOBCOST_WEBHOOKS_SLOW_QUEUE": self.queues["webhooks-slow"],
            "DATABASE_CONN_MAX_AGE": "0",
        }

    def _spawn(self, name: str) -> None:
        queues, pool = PRODUCTION_WORKERS[name.rstrip("0123456789")]
        args = worker_argv([self.queues[q] for q in queues], pool, f"{self.queue}-{name}@%h")
        # A file, not a pipe nobody reads (a full pipe would block the worker).
        with open(self.logs / f"{name}.log", "ab") as log:
            self.processes.append(
                subprocess.Popen(args, env=self.env(), stdout=log, stderr=subprocess.STDOUT)
            )

    def start(self, count: int = 1, slow_lane: bool = True) -> None:
        """`count` main workers (default queue and fast lane) and one slow-lane worker;
        returns once every one answers a ping. A test whose endpoints never fail nor answer
        slowly, so that nothing can go by the slow lane, passes `slow_lane=False` and saves a
        process start (about 1.2 s of CPU); anything queued there all the same stays in its
        queue, which `wait_idle` counts."""
        for n in range(count):
            self._spawn(f"main{n}")
        if slow_lane:
            self._spawn("slow")
        self._wait_ready()

    def kill_main(self) -> None:
        """SIGKILL the first main worker (no warm shutdown: its claims stay leased)."""
        main = next(p for p in self.processes if "main" in p.args[p.args.index("-n") + 1])
        main.kill()
        main.wait()
        self.processes.remove(main)
        name = main.args[main.args.index("-n") + 1].split("@")[0]
        self.nodes = [node for node in self.nodes if not node.startswith(name + "@")]

    def add_main(self) -> None:
        """Start one more main worker and wait until every worker answers."""
        self._spawn(f"main{len(self.processes)}")
        self._wait_ready()

    def _wait_ready(self) -> None:
        """Return once every started worker answers a ping; keeps their node names."""

        def all_up() -> set[str] | None:
            exited = any(process.poll() is not None for process in self.processes)
            assert not exited, f"a Celery worker exited on start; see {self.logs}"
            wanted = len(self.processes)
            replies = celery_app.control.ping(timeout=0.1, limit=wanted) or []
            names = {name for reply in replies for name in reply if name.startswith(self.queue)}
            return names if len(names) >= wanted else None

        self.nodes = sorted(until(all_up, timeout=30, what=f"the Celery workers ({self.logs})"))

    def wait_idle(self, timeout: float = 30.0) -> None:
        """Return once these workers have nothing left to do: their queues are empty and none
        of them holds a task (running, or fetched and waiting). Then whatever the tasks queued
        so far were going to do is done, and a test can assert that something did *not*
        happen without sleeping on it. (A worker takes a message off the list and registers
        it in one step of its event loop, which also answers the inspection after it.)"""

        seen: dict[str, object] = {}

        def idle() -> bool:
            with celery_app.connection_for_write() as connection:
                channel = connection.default_channel
                seen["queued"] = {q: channel._size(q) for q in self.queues.values()}
                if any(seen["queued"].values()):
                    return False
            inspect = celery_app.control.inspect(
                destination=self.nodes, timeout=1.0, limit=len(self.nodes)
            )
            for kind, held in (("active", inspect.active()), ("reserved", inspect.reserved())):
                seen[kind] = held
                if held is None or len(held) < len(self.nodes) or any(held.values()):
                    return False
            return True

        until(
            idle,
            timeout=timeout,
            what=lambda: f"the Celery workers to be idle with empty queues; last seen: {seen}",
        )

    def stop(self) -> None:
        """Kill the workers (the test is over: nothing it asserted waits on a graceful stop,
        which took ~3 s a test) and delete their queues from Redis."""
        for process in self.processes:
            process.kill()
        for process in self.processes:
            process.wait()
        self.processes = []
        with celery_app.connection_for_write() as connection:
            for queue in self.queues.values():
                connection.default_channel.queue_delete(queue)
        shutil.rmtree(self.logs, ignore_errors=True)


@pytest.fixture
def workers():
    """Real workers on queues of their own; this process publishes to those queues too."""
    yield from worker_pool()


def worker_pool():
    """The `workers` fixture's body, for fixtures of other folders (a generator: the pool,
    then its teardown)."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    pool = Workers(queue)
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = pool.queues["celery"]
    lanes = override_settings(
        WEBHOOKS_QUEUE=pool.queues["webhooks"], WEBHOOKS_SLOW_QUEUE=pool.queues["webhooks-slow"]
    )
    lanes.enable()
    yield pool
    pool.stop()
    lanes.disable()
    celery_app.conf.task_default_queue = previous


@pytest.fixture
def dns(settings):
    """Webhook hosts resolve from a script (tests/webhooks/resolvers.py) instead of the
    suite's offline resolver; names not scripted do not resolve."""
    settings.WEBHOOKS_RESOLVER = "tests.webhooks.resolvers.scripted"
    resolvers.SCRIPT = resolvers.Script()
    yield resolvers.SCRIPT
    resolvers.SCRIPT.release()  # a stalled lookup's thread ends with the test
