"""Webhook fixtures: a loopback receiver, loopback http allowed (development setting), and a
real Celery worker process on Redis that reads the test database."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

import pytest
from django.conf import settings as django_settings
from django.db import connection

from config.celery import app as celery_app
from tests.webhooks import resolvers
from tests.webhooks.receiver import Receiver


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
    """Start Celery worker processes on a private queue; stop them at teardown."""

    def __init__(self, queue: str):
        self.queue = queue
        self.processes: list[subprocess.Popen] = []

    def start(self, count: int = 1, beat: bool = False) -> None:
        env = {
            **os.environ,
            "DATABASE_URL": _database_url(),
            "REDIS_URL": django_settings.REDIS_URL,
            "WEBHOOKS_ALLOW_INSECURE_LOCALHOST": "1",
            "JOBCOST_CELERY_QUEUE": self.queue,
            "DATABASE_CONN_MAX_AGE": "0",
        }
        for n in range(count):
            args = [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--loglevel=WARNING",
                "--concurrency=1",
                "--pool=solo",
                "-Q",
                self.queue,
                "-n",
                f"{self.queue}-{n}@%h",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ]
            self.processes.append(
                subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            replies = celery_app.control.ping(timeout=0.5) or []
            names = {name for reply in replies for name in reply}
            if sum(1 for name in names if name.startswith(self.queue)) >= len(self.processes):
                return
            time.sleep(0.2)
        raise AssertionError("the Celery workers did not start")

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        self.processes = []


@pytest.fixture
def workers():
    """Real workers on a queue of their own; this process publishes to that queue too."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = queue
    pool = Workers(queue)
    yield pool
    pool.stop()
    celery_app.conf.task_default_queue = previous


@pytest.fixture
def dns(settings):
    """Webhook hosts resolve from a script (tests/webhooks/resolvers.py) instead of the
    system resolver; names not scripted do not resolve."""
    settings.WEBHOOKS_RESOLVER = "tests.webhooks.resolvers.scripted"
    resolvers.SCRIPT = resolvers.Script()
    yield resolvers.SCRIPT
