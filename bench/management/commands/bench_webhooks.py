"""`python manage.py bench_webhooks [--events 1000] [--endpoints 5] [--workers 1] [--no-isolation]`

Webhook delivery throughput (docs/benchmarks.md, "Webhook delivery"), end to end: N events
recorded through the outbox (`webhooks.outbox.event_record`, as every audited change does) in
account "Bench Webhooks", fanned out to M endpoints (N × M deliveries), sent by real `celery -A
config worker` processes started as production runs them (docs/operations/workers.md: `--pool
threads`, one drain task per endpoint; the `--workers` count is of main processes, each with
the fast lane, plus one slow-lane process) on private queues of the configured Redis, against
the configured PostgreSQL, to a loopback HTTP receiver running in this process (answers 200).

For each worker count the clock starts at the commit that queues the drains (the workers are
already up and idle) and stops when the database shows every delivery `succeeded`. The last
row is the ceiling: the same N × M POSTs (same bodies, same signed headers) sent by a plain
loop in this process through the same HTTP client the workers send with (one guarded
connection pool, `webhooks.transport.post`), no database and no broker. Each row gives its
rate over the ceiling's, measured in the same run (the machine's load moves both), and the
workers' rows the CPU their main processes spent a delivery over the timed span (user and
system, from `/proc`, in whole clock ticks).

Then, unless `--no-isolation`, the isolation scenario of tests/webhooks/test_isolation.py with
one main worker process: another account's endpoint answering in 9 s has 20 events queued, and
the delay from the commit of one change in the bench account to its delivery at every bench
endpoint is printed twice — while the slow endpoint's first POSTs hold fast-lane threads, and
once it goes by the slow lane. The load average is printed at the start and at the end.

Needs PostgreSQL and Redis: the claims use `SELECT … FOR UPDATE SKIP LOCKED`, and the
filesystem broker of `make run` says nothing about production. The bench accounts, their
projects and their endpoints are reused between runs; their events (with their deliveries and
attempts) are deleted at the end, and their endpoints are left disabled.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
import uuid

from celery import current_app as celery_app
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.test.utils import override_settings

from audit.context import SYSTEM
from bench.receiver import Receiver, database_url
from bench.rss import cpu_seconds
from jobcost.models import Project
from jobcost.services.api_keys import account_get_or_create
from jobcost.services.parties import owner_create
from jobcost.services.projects import project_create
from webhooks import services, signing
from webhooks.lanes import PRODUCTION_WORKERS, worker_argv
from webhooks.models import DeliveryStatus, EndpointStatus, Event, WebhookDelivery, WebhookEndpoint
from webhooks.outbox import event_record
from webhooks.transport import new_pool, new_ssl_context, post
from webhooks.versions import render_payload

ACCOUNT = "Bench Webhooks"
SLOW_ACCOUNT = "Bench Webhooks Slow"
PROJECT_NUMBER = "BENCH-WH"
TIMEOUT_SECONDS = 900
# The isolation scenario (docs/operations/workers.md, tests/webhooks/test_isolation.py).
SLOW_ANSWER_SECONDS = 9.0
SLOW_QUEUED = 20


class Workers:
    """`count` main worker processes and one slow-lane process, as production runs them
    (`webhooks.lanes.PRODUCTION_WORKERS`, docs/operations/workers.md), on private queues (as
    tests/webhooks/conftest.py does)."""

    def __init__(self, queues: dict[str, str], count: int) -> None:
        self.queue = queues["celery"]
        self.processes: list[subprocess.Popen] = []
        env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "JOBCOST_CELERY_QUEUE": queues["celery"],
            "JOBCOST_WEBHOOKS_QUEUE": queues["webhooks"],
            "JOBCOST_WEBHOOKS_SLOW_QUEUE": queues["webhooks-slow"],
            "WEBHOOKS_ALLOW_INSECURE_LOCALHOST": "1",
            "LOG_LEVEL": "WARNING",
        }
        logs = settings.VAR_DIR / "bench_webhooks"
        logs.mkdir(parents=True, exist_ok=True)
        for name in [f"main{n}" for n in range(count)] + ["slow"]:
            lanes, pool = PRODUCTION_WORKERS[name.rstrip("0123456789")]
            args = worker_argv([queues[lane] for lane in lanes], pool, f"{self.queue}-{name}@%h")
            with open(logs / f"worker-{name}.log", "ab") as log:
                self.processes.append(
                    subprocess.Popen(  # noqa: S603 (our own interpreter, fixed arguments)
                        args, env=env, stdout=log, stderr=subprocess.STDOUT
                    )
                )

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Block until every process answers a ping."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # Short rounds that end once as many replies came as there are processes: a
            # round of 0.5 s without a limit always took its whole half second.
            wanted = len(self.processes)
            replies = celery_app.control.ping(timeout=0.1, limit=wanted) or []
            names = {name for reply in replies for name in reply}
            if sum(1 for name in names if name.startswith(self.queue)) >= len(self.processes):
                return
            if any(p.poll() is not None for p in self.processes):
                raise CommandError(
                    f"A Celery worker exited on start; see {settings.VAR_DIR}/bench_webhooks/."
                )
        raise CommandError("The Celery workers did not answer a ping within a minute.")

    def cpu_seconds(self) -> float:
        """CPU seconds (user and system, from `/proc/<pid>/stat`) the main processes have used
        so far (the slow lane's has nothing to send here)."""
        return sum(cpu_seconds(process.pid) or 0.0 for process in self.processes[:-1])

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class Command(BaseCommand):
    help = (
        "Webhook deliveries per second of Celery worker processes against a plain POST loop, "
        "and a fast endpoint's delay beside a slow one."
    )

    def add_arguments(self, parser):
        parser.add_argument("--events", type=int, default=1000)
        parser.add_argument("--endpoints", type=int, default=5)
        parser.add_argument(
            "--workers", default="1", help="Main worker process counts to measure, e.g. 1,2."
        )
        parser.add_argument(
            "--isolation",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="Also measure a fast endpoint's delay beside a slow one (about 20 s).",
        )
        parser.add_argument("--slow-seconds", type=float, default=SLOW_ANSWER_SECONDS)
        parser.add_argument("--slow-queued", type=int, default=SLOW_QUEUED)

    def handle(
        self,
        *args,
        events: int,
        endpoints: int,
        workers: str,
        isolation: bool,
        slow_seconds: float,
        slow_queued: int,
        **options,
    ):
        if not settings.REDIS_URL:
            raise CommandError(
                "bench_webhooks needs REDIS_URL: the workers take their tasks from Redis, as in "
                "production (the filesystem broker of `make run` is not worth measuring)."
            )
        if connection.vendor != "postgresql":
            raise CommandError(
                "bench_webhooks needs PostgreSQL (set DATABASE_URL): concurrent workers claim "
                "deliveries with SELECT … FOR UPDATE SKIP LOCKED, which SQLite cannot do."
            )
        counts = [int(n) for n in workers.split(",") if n.strip()]
        if events < 1 or endpoints < 1 or not counts or min(counts) < 1:
            raise CommandError("--events, --endpoints and --workers must be positive.")
        load_before = os.getloadavg()
        total = events * endpoints
        receiver = Receiver()
        queue = f"bench-{uuid.uuid4().hex[:8]}"
        queues = {
            "celery": queue,
            "webhooks": f"{queue}.webhooks",
            "webhooks-slow": f"{queue}.webhooks-slow",
        }
        previous_queue = celery_app.conf.task_default_queue
        celery_app.conf.task_default_queue = queue
        rows = []
        delays: list[float] = []
        # The receiver is this process's own loopback server.
        with override_settings(
            WEBHOOKS_ALLOW_INSECURE_LOCALHOST=True,
            WEBHOOKS_QUEUE=queues["webhooks"],
            WEBHOOKS_SLOW_QUEUE=queues["webhooks-slow"],
        ):
            account, project, hooks = self._setup(receiver.url, endpoints)
            try:
                for count in counts:
                    rows.append(
                        self._run_workers(account, project, receiver, queues, count, events)
                    )
                rows.append(self._run_loop(account, receiver, total))
                if isolation:
                    delays = self._run_isolation(
                        account, project, receiver, queues, slow_seconds, slow_queued
                    )
            finally:
                Event.objects.filter(account=account).delete()
                for endpoint in hooks:
                    services.endpoint_update(
                        endpoint_id=endpoint.pk, changes={"status": EndpointStatus.DISABLED}
                    )
                celery_app.conf.task_default_queue = previous_queue
                for name in queues.values():
                    self._drop_queue(name)
                receiver.close()
        ceiling = rows[-1][2] / rows[-1][3]
        self.stdout.write(
            f"\nbench_webhooks: {events:,} events × {endpoints} endpoints = {total:,} deliveries "
            "to a loopback receiver answering 200\n"
        )
        self.stdout.write(
            f"{'mode':<28}{'processes':>10}{'deliveries':>12}{'seconds':>10}{'deliveries/s':>14}"
            f"{'× ceiling':>11}{'CPU µs/delivery':>17}"
        )
        for mode, processes, delivered, seconds, cpu in rows:
            rate = delivered / seconds
            per = "—" if cpu is None else f"{cpu / delivered * 1e6:.0f}"
            self.stdout.write(
                f"{mode:<28}{processes:>10}{delivered:>12,}{seconds:>10.2f}{rate:>14.1f}"
                f"{rate / ceiling:>11.2f}{per:>17}"
            )
        self.stdout.write(
            "\nworkers: the clock starts at the commit that queues the tasks (workers up and idle)"
            " and stops when every delivery is `succeeded` in the database; CPU: the main"
            " processes' user and system time over that span, from /proc.\nPOST loop: render,"
            " sign and POST in one process with the workers' HTTP client (one connection pool);"
            " no database, no broker (the ceiling)."
        )
        if delays:
            self.stdout.write(
                f"\nisolation (1 main worker process): another account's endpoint answers in "
                f"{slow_seconds:g} s with {slow_queued} events queued; from the commit of one "
                f"change in the bench account to its delivery at all {endpoints} endpoints:\n"
                f"  while the slow endpoint's first POSTs are in flight {delays[0]:>8.3f} s\n"
                f"  once it goes by the slow lane                      {delays[1]:>8.3f} s"
            )
        load_after = os.getloadavg()
        self.stdout.write(
            "\nload average (1, 5, 15 min): "
            f"{' '.join(f'{x:.2f}' for x in load_before)} at the start, "
            f"{' '.join(f'{x:.2f}' for x in load_after)} at the end"
        )

    def _setup(self, url: str, endpoints: int, name: str = ACCOUNT):
        """The bench account `name`, its project, and `endpoints` enabled endpoints pointing at
        the receiver (reused between runs; extra ones left disabled)."""
        account = account_get_or_create(name=name)
        Event.objects.filter(account=account).delete()
        project = Project.objects.filter(account=account, number=PROJECT_NUMBER).first()
        if project is None:
            owner = owner_create(account_id=account.pk, name="Bench Owner")
            project = project_create(
                account_id=account.pk,
                number=PROJECT_NUMBER,
                name="Webhook bench",
                owner=owner,
                contract_amount=1_000_000_00,
            )
        existing = list(
            WebhookEndpoint.objects.filter(account=account, deleted_at__isnull=True).order_by(
                "created_at", "id"
            )
        )
        hooks = []
        for n in range(endpoints):
            hook_url = f"{url}/{n}"
            if n < len(existing):
                hooks.append(
                    services.endpoint_update(
                        endpoint_id=existing[n].pk,
                        changes={"url": hook_url, "status": EndpointStatus.ENABLED},
                    )
                )
            else:
                hooks.append(
                    services.endpoint_create(
                        account_id=account.pk,
                        url=hook_url,
                        events=["*"],
                        api_version=settings.JOBCOST_API_VERSIONS[-1],
                        description="bench_webhooks",
                    )
                )
        for extra in existing[endpoints:]:
            services.endpoint_update(
                endpoint_id=extra.pk, changes={"status": EndpointStatus.DISABLED}
            )
        return account, project, hooks

    def _run_workers(self, account, project, receiver, queues, count, events):
        """Start `count` main workers (and the slow lane's), record `events` events, time the
        deliveries."""
        Event.objects.filter(account=account).delete()
        receiver.reset()
        pool = Workers(queues, count)
        try:
            pool.wait_ready()
            with transaction.atomic():
                self._record(account, project, events)
                expected = WebhookDelivery.objects.filter(account=account).count()
                if not expected:
                    raise CommandError("The events were owed to no endpoint.")
                cpu = pool.cpu_seconds()
                started = time.monotonic()
            # Committed: the on-commit hook has queued one drain per endpoint.
            seconds = self._wait_delivered(account, expected, started)
            cpu = pool.cpu_seconds() - cpu
        finally:
            pool.stop()
        if receiver.count != expected or len(receiver.ids) != expected:
            raise CommandError(
                f"The receiver got {receiver.count} POSTs ({len(receiver.ids)} distinct "
                f"webhook-ids) for {expected} deliveries."
            )
        return ("celery workers", count, expected, seconds, cpu)

    def _record(self, account, project, count: int) -> None:
        """`count` `project.updated` events of the project, in one transaction (its drains are
        queued when it commits)."""
        with transaction.atomic():
            for _ in range(count):
                event_record(
                    type_="project.updated",
                    object_name="project",
                    account_id=account.pk,
                    object_id=project.pk,
                    changes={},
                    actor=SYSTEM,
                    created=False,
                )

    def _run_isolation(
        self, account, project, receiver, queues, slow_seconds: float, slow_queued: int
    ) -> list[float]:
        """The delay of one change's deliveries to the bench endpoints beside another account's
        slow endpoint with a backlog: while its first POSTs are in flight, then once it goes by
        the slow lane (as tests/webhooks/test_isolation.py)."""
        slow = Receiver(delay=slow_seconds)
        slow_account, slow_project, slow_hooks = self._setup(slow.url, 1, name=SLOW_ACCOUNT)
        Event.objects.filter(account=account).delete()
        pool = Workers(queues, 1)
        delays = []
        try:
            pool.wait_ready()
            self._record(slow_account, slow_project, slow_queued)
            self._wait_for(lambda: slow.count >= 1, "the slow endpoint's first POST")
            delays.append(self._delay(account, project, receiver))
            # Its first answers came back (slow): its next POSTs go by the slow lane.
            self._wait_for(lambda: slow.count >= 3, "the slow endpoint's third POST")
            delays.append(self._delay(account, project, receiver))
        finally:
            pool.stop()
            Event.objects.filter(account=slow_account).delete()
            services.endpoint_update(
                endpoint_id=slow_hooks[0].pk, changes={"status": EndpointStatus.DISABLED}
            )
            slow.close()
        return delays

    def _delay(self, account, project, receiver) -> float:
        """Seconds from the commit of one change in the bench account to its POST arriving at
        every bench endpoint."""
        receiver.reset()
        expected = WebhookEndpoint.objects.filter(
            account=account, status=EndpointStatus.ENABLED, deleted_at__isnull=True
        ).count()
        self._record(account, project, 1)
        started = time.monotonic()
        self._wait_for(lambda: receiver.count >= expected, "the fast deliveries")
        return time.monotonic() - started

    def _wait_for(self, predicate, what: str, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise CommandError(f"Timed out waiting for {what}.")
            time.sleep(0.005)

    def _wait_delivered(self, account, expected: int, started: float) -> float:
        deliveries = WebhookDelivery.objects.filter(account=account)
        while True:
            done = deliveries.filter(status=DeliveryStatus.SUCCEEDED).count()
            if done == expected:
                return time.monotonic() - started
            if deliveries.exclude(
                status__in=[DeliveryStatus.SUCCEEDED, DeliveryStatus.PENDING]
            ).exists():
                raise CommandError("A delivery failed or was cancelled; see its attempts.")
            if time.monotonic() - started > TIMEOUT_SECONDS:
                raise CommandError(f"Only {done} of {expected} deliveries succeeded in time.")
            time.sleep(0.05)

    def _run_loop(self, account, receiver, expected: int):
        """The ceiling: the last run's deliveries POSTed again in a loop, through the HTTP
        client the workers send with (`webhooks.transport.post` over one guarded pool)."""
        deliveries = list(
            WebhookDelivery.objects.filter(account=account)
            .select_related("event", "endpoint")
            .order_by("created_at", "id")
        )
        receiver.reset()
        started = time.monotonic()
        with new_pool(ssl_context=new_ssl_context()) as pool:
            for delivery in deliveries:
                endpoint = delivery.endpoint
                body = json.dumps(
                    render_payload(delivery.event, endpoint.api_version), separators=(",", ":")
                ).encode()
                headers = signing.headers(
                    endpoint.signing_secrets(), delivery.pk, int(time.time()), body
                )
                status = post(pool, endpoint.url, content=body, headers=headers, timeout=10.0)
                if not 200 <= status < 300:
                    raise CommandError(f"The receiver answered {status}.")
        seconds = time.monotonic() - started
        if receiver.count != len(deliveries):
            raise CommandError(f"The receiver got {receiver.count} of {len(deliveries)} POSTs.")
        return ("POST loop (ceiling)", 1, len(deliveries), seconds, None)

    def _drop_queue(self, queue: str) -> None:
        """Remove the private queue (and its binding) from Redis."""
        with celery_app.connection_for_write() as conn:
            conn.default_channel.queue_delete(queue)
