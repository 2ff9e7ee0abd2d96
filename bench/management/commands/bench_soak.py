"""`python manage.py bench_soak [--seconds 600] [--readers 2] [--writers 2] [--interval 5]`
(`make bench-soak`)

The memory soak (docs/benchmarks.md, "Memory soak"): under a mixed load of
reads, writes and webhook deliveries for `--seconds`, does each process's resident memory stay
within `--ceiling` per cent (5) of what it was after the warm-up?

- **The processes**: gunicorn with `config/gunicorn.conf.py`, 2 workers × 4 threads (the
  settings of this 2-core machine, `bench.server`), and ONE Celery worker
  process as production runs its main worker (`--pool threads --concurrency 16`,
  docs/operations/workers.md), here consuming all three queues (default, fast and slow
  lanes, so that no delivery waits for a process the soak does not start), on private Redis
  queues. A loopback
  HTTP receiver in this process answers every webhook 200 at once, and one webhook endpoint of
  the account, subscribed to `*`, points at it: every write owes it deliveries, which the
  Celery worker sends while the load runs.
- **The load**: `--readers` threads alternating `GET /v1/invoices?project=…&limit=100` (a full
  page: the project is seeded with `--seed-invoices` coded invoices, every other one approved)
  and `GET /v1/projects/<id>`; `--writers` threads taking invoices through create → code →
  approve (as `bench_writes`) on the same project's executed commitment. Each client keeps one
  keep-alive connection; nothing is throttled.
- **The measure**: every `--interval` seconds, the RSS (`VmRSS`) of the gunicorn master and
  its workers and of the Celery process and any children it has (none with a thread pool), by
  `bench.rss`. The warm-up is the first `--warmup` seconds (default: 20 % of the
  run, 120 s of the 10-minute soak): the time in which a process imports what its first
  requests and tasks need, fills its per-process caches (compiled output serializers, resolved
  annotations, a connection per thread) and grows its allocator's arenas to the load's working
  set. Growth is measured from the first sample after the warm-up to the last sample, when the
  load stops. A process replaced or gone during the soak fails.

It prints one row per process (RSS at the start, after the warm-up, at the end and at its
peak, in MiB; growth in per cent beside the ceiling), the requests done by kind, the
deliveries owed, received and succeeded (after waiting up to `--drain-seconds` for the last
ones), the load average, and PASS or FAIL; FAIL exits non-zero (`CommandError`). FAIL also
when a request failed or a delivery was not made. The samples are written to
`var/bench_soak/rss.csv` and the worker's log to `var/bench_soak/worker.log`.

Needs PostgreSQL (`DATABASE_URL`) and Redis (`REDIS_URL`), as production. Each run adds a
project to the account "Bench Soak" (kept, as `bench_writes` does); its events, deliveries and
attempts are deleted at the end, its API key revoked and its endpoint left disabled.
"""

from __future__ import annotations

import csv
import datetime
import logging
import os
import subprocess
import threading
import time
import uuid
from collections import Counter
from contextlib import ExitStack

import httpx
from celery import current_app as celery_app
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.test.utils import override_settings

from audit.context import SYSTEM, acting_as
from bench.job import bench_job
from bench.receiver import Receiver, database_url
from bench.rss import Growth, Sampler, assess
from bench.server import gunicorn_server
from jobcost.models import Account, Commitment, CostCode, Project
from jobcost.services.api_keys import account_get_or_create, api_key_create, api_key_revoke
from jobcost.services.invoices import invoice_approve, invoice_create, invoice_update
from webhooks import services
from webhooks.lanes import PRODUCTION_WORKERS, worker_argv
from webhooks.models import DeliveryStatus, EndpointStatus, Event, WebhookDelivery, WebhookEndpoint

ACCOUNT = "Bench Soak"
DESCRIPTION = "bench_soak"
CEILING_PERCENT = 5.0
WARMUP_FRACTION = 0.2
INVOICE = 100  # cents per invoice the writers create
SEED_AMOUNT = 1_000_00  # cents per seeded invoice
LIST_LIMIT = 100
KINDS = ("list", "retrieve", "create", "code", "approve")
MIB = 1024.0


def _project(account: Account, invoices: int) -> tuple[Project, Commitment, CostCode]:
    """A fresh active project with one cost code and an executed commitment, holding
    `invoices` coded invoices (every other one approved), so that the list reads a full page
    from the first request. Returns the project, the commitment and the cost code."""
    project, commitment, code = bench_job(account, label="Memory soak", prefix="SOAK")
    day = datetime.date(2026, 1, 1)
    for n in range(invoices):
        invoice = invoice_create(
            commitment=commitment,
            number=f"SEED-{n:04d}",
            invoice_date=day + datetime.timedelta(days=n % 365),
            amount=SEED_AMOUNT,
        )
        invoice_update(
            invoice_id=invoice.pk, changes={"lines": [{"cost_code": code, "amount": SEED_AMOUNT}]}
        )
        if n % 2:
            invoice_approve(invoice_id=invoice.pk)
    return project, commitment, code


class Load:
    """The client threads: `readers` alternating the list and the project retrieve, `writers`
    taking invoices through create → code → approve (on the `commitment`, coded to `code`;
    IDs), each on its own keep-alive connection with the API key `secret`, until `stop()`.
    `done` and `failed` count requests by kind (`KINDS`; `read` or `write` for a step that
    raised before its request was counted); `errors` keeps the first few
    failures' descriptions; `receiver` is the webhook receiver whose POSTs are reported."""

    def __init__(self, receiver, secret, project, commitment, code, readers, writers) -> None:
        self.receiver, self.secret, self.base = receiver, secret, ""
        self.project, self.commitment, self.code = project, commitment, code
        self.done: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.threads = [
            threading.Thread(target=self._loop, args=(self._read,), name=f"reader-{n}")
            for n in range(readers)
        ] + [
            threading.Thread(target=self._loop, args=(self._write,), name=f"writer-{n}")
            for n in range(writers)
        ]

    def start(self, base: str) -> None:
        """Start every client thread against the server at `base` (`http://host:port`)."""
        self.base = base
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        """Ask the clients to stop after their current request, and wait for them."""
        self._stop.set()
        for thread in self.threads:
            thread.join()

    def _loop(self, step) -> None:
        with httpx.Client(
            base_url=self.base,
            headers={"Authorization": f"Bearer {self.secret}"},
            timeout=30,
        ) as client:
            while not self._stop.is_set():
                try:
                    step(client)
                except Exception as exc:  # a client that died would go uncounted: count it
                    self._fail(step.__name__.strip("_"), f"{step.__name__}: {exc!r}")

    def _call(self, client, kind, method, path, body=None) -> dict | None:
        """One request; counts it, and returns its JSON body (None when it failed)."""
        headers = {"Idempotency-Key": uuid.uuid4().hex} if method != "GET" else {}
        try:
            response = client.request(method, path, json=body, headers=headers)
        except httpx.HTTPError as exc:
            return self._fail(kind, f"{kind}: {exc!r}")
        if response.status_code not in (200, 201):
            return self._fail(kind, f"{kind}: {response.status_code} {response.text[:200]}")
        with self._lock:
            self.done[kind] += 1
        return response.json()

    def _fail(self, kind: str, error: str) -> None:
        with self._lock:
            self.failed[kind] += 1
            if len(self.errors) < 5:
                self.errors.append(error)
        time.sleep(0.1)  # a server down must not turn the client into a busy loop
        return None

    def _read(self, client) -> None:
        self._call(client, "list", "GET", f"/v1/invoices?project={self.project}&limit={LIST_LIMIT}")
        self._call(client, "retrieve", "GET", f"/v1/projects/{self.project}")

    def _write(self, client) -> None:
        invoice = self._call(
            client,
            "create",
            "POST",
            "/v1/invoices",
            {
                "commitment": self.commitment,
                "number": uuid.uuid4().hex[:12],
                "invoice_date": time.strftime("%Y-%m-%d"),
                "amount": INVOICE,
            },
        )
        if invoice is None:
            return
        lines = {"lines": [{"cost_code": self.code, "amount": INVOICE}]}
        if self._call(client, "code", "PATCH", f"/v1/invoices/{invoice['id']}", lines):
            self._call(client, "approve", "POST", f"/v1/invoices/{invoice['id']}/approve", {})


class Worker:
    """One Celery worker process as production runs the main worker (`--pool threads
    --concurrency 16`), consuming the private `queues` (all three lanes); its output goes to
    `log`."""

    def __init__(self, queues: dict[str, str], env: dict[str, str], log) -> None:
        self.node = f"{queues['celery']}-main"
        args = worker_argv(list(queues.values()), PRODUCTION_WORKERS["main"][1], f"{self.node}@%h")
        self.process = subprocess.Popen(  # noqa: S603 (our own interpreter, fixed arguments)
            args, env=env, stdout=log, stderr=subprocess.STDOUT
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Return once the worker answers a ping; `CommandError` if it exits or stays silent
        for `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise CommandError(f"The Celery worker exited on start; see {_logs()}/.")
            # Short rounds that end at the first reply (a round of 0.5 s without a limit
            # always took its whole half second).
            replies = celery_app.control.ping(timeout=0.1, limit=1) or []
            if any(name.startswith(self.node) for reply in replies for name in reply):
                return
        raise CommandError("The Celery worker did not answer a ping within a minute.")

    def stop(self) -> None:
        """Warm shutdown (SIGTERM), killed after 30 s."""
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _logs():
    path = settings.VAR_DIR / "bench_soak"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _mib(kib: int | None) -> str:
    return "-" if kib is None else f"{kib / MIB:.1f}"


def verdict(rows: list[Growth], ceiling: float) -> list[str]:
    """The reasons the memory check fails (empty when it passes): a process that grew by
    `ceiling` per cent or more after the warm-up, or was replaced or gone during the soak."""
    reasons = []
    for row in rows:
        if not row.alive:
            reasons.append(f"{row.label} {row.pid} exited during the soak")
        elif row.percent is None:
            reasons.append(f"{row.label} {row.pid} started after the warm-up (a replacement?)")
        elif row.percent >= ceiling:
            reasons.append(f"{row.label} {row.pid} grew {row.percent:+.2f} % (≥ {ceiling:g} %)")
    if not rows:
        reasons.append("no process was sampled")
    return reasons


class Command(BaseCommand):
    help = (
        "Memory soak: RSS growth of each gunicorn and Celery process after the warm-up under "
        "a mixed load of reads, writes and webhook deliveries, against a 5 % ceiling."
    )

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=float, default=600.0, help="length of the load")
        parser.add_argument(
            "--warmup",
            type=float,
            default=None,
            help="seconds of warm-up before the baseline sample (default: 20 %% of --seconds)",
        )
        parser.add_argument("--interval", type=float, default=5.0, help="seconds between samples")
        parser.add_argument("--readers", type=int, default=2)
        parser.add_argument("--writers", type=int, default=2)
        parser.add_argument("--seed-invoices", type=int, default=LIST_LIMIT)
        parser.add_argument("--ceiling", type=float, default=CEILING_PERCENT, help="per cent")
        parser.add_argument("--drain-seconds", type=float, default=120.0)

    def handle(
        self,
        *args,
        seconds: float,
        warmup: float | None,
        interval: float,
        readers: int,
        writers: int,
        seed_invoices: int,
        ceiling: float,
        drain_seconds: float,
        **options,
    ):
        if connection.vendor != "postgresql" or not settings.REDIS_URL:
            raise CommandError("bench_soak needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL).")
        if seconds <= 0 or interval <= 0 or readers < 0 or writers < 0 or readers + writers < 1:
            raise CommandError("--seconds and --interval must be positive, with a client.")
        warmup = seconds * WARMUP_FRACTION if warmup is None else warmup
        if not 0 <= warmup < seconds:
            raise CommandError("--warmup must be at least 0 and shorter than --seconds.")
        logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
        load_before = os.getloadavg()
        queue = f"soak-{uuid.uuid4().hex[:8]}"
        queues = {
            "celery": queue,
            "webhooks": f"{queue}.webhooks",
            "webhooks-slow": f"{queue}.webhooks-slow",
        }
        receiver = Receiver()
        previous_queue = celery_app.conf.task_default_queue
        celery_app.conf.task_default_queue = queue
        with (
            override_settings(
                WEBHOOKS_ALLOW_INSECURE_LOCALHOST=True,
                WEBHOOKS_QUEUE=queues["webhooks"],
                WEBHOOKS_SLOW_QUEUE=queues["webhooks-slow"],
            ),
            acting_as(SYSTEM),
        ):
            account = account_get_or_create(name=ACCOUNT)
            # The bench's own account: no token bucket in the way of the load.
            Account.objects.filter(pk=account.pk).update(
                rate_limit_per_second=1_000_000, rate_limit_burst=1_000_000
            )
            key, secret = api_key_create(account=account, role="admin", name="bench soak")
            endpoint = None
            try:
                project, commitment, code = _project(account, seed_invoices)
                endpoint = self._endpoint(account, receiver.url)
                load = Load(receiver, secret, project.pk, commitment.pk, code.pk, readers, writers)
                result = self._soak(
                    queues, load, endpoint, seconds, warmup, interval, drain_seconds
                )
            finally:
                if endpoint is not None:
                    services.endpoint_update(
                        endpoint_id=endpoint.pk, changes={"status": EndpointStatus.DISABLED}
                    )
                Event.objects.filter(account=account).delete()
                api_key_revoke(api_key_id=key.pk)
                celery_app.conf.task_default_queue = previous_queue
                self._drop_queues(queues.values())
                receiver.close()
        self._report(result, ceiling, seconds, warmup, interval, readers, writers, load_before)

    def _endpoint(self, account: Account, url: str) -> WebhookEndpoint:
        """The account's endpoint on `*`, enabled and pointing at the receiver (reused between
        runs)."""
        existing = WebhookEndpoint.objects.filter(
            account=account, description=DESCRIPTION, deleted_at__isnull=True
        ).first()
        if existing is not None:
            return services.endpoint_update(
                endpoint_id=existing.pk, changes={"url": url, "status": EndpointStatus.ENABLED}
            )
        return services.endpoint_create(
            account_id=account.pk,
            url=url,
            events=["*"],
            api_version=settings.JOBCOST_API_VERSIONS[-1],
            description=DESCRIPTION,
        )

    def _soak(self, queues, load, endpoint, seconds, warmup, interval, drain_seconds) -> dict:
        """Start the processes, run `load` for `seconds` while sampling, wait for the
        deliveries; returns what `_report` prints."""
        env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "DJANGO_SECRET_KEY": settings.SECRET_KEY,
            "JOBCOST_CELERY_QUEUE": queues["celery"],
            "JOBCOST_WEBHOOKS_QUEUE": queues["webhooks"],
            "JOBCOST_WEBHOOKS_SLOW_QUEUE": queues["webhooks-slow"],
            "WEBHOOKS_ALLOW_INSECURE_LOCALHOST": "1",
            "LOG_LEVEL": "WARNING",
            "GUNICORN_WORKERS": "2",
            "GUNICORN_THREADS": "4",
            "GUNICORN_ACCESS_LOG": "off",
        }
        with ExitStack() as stack:
            log = stack.enter_context(open(_logs() / "worker.log", "ab"))
            worker = Worker(queues, env, log)
            stack.callback(worker.stop)
            server = stack.enter_context(gunicorn_server("config.wsgi:application", env))
            worker.wait_ready()
            roots = [
                ("gunicorn master", server.pid, "gunicorn worker"),
                ("celery worker", worker.process.pid, "celery pool child"),
            ]
            sampler = Sampler(roots, interval)
            sampler.start()
            load.start(server.base)
            try:
                time.sleep(seconds)
            finally:
                load.stop()
                sampler.stop()
            received_at_end = load.receiver.count
            owed, succeeded = self._drain(endpoint, drain_seconds)
        self._write_csv(sampler)
        return {
            "rows": assess(sampler, warmup),
            "done": load.done,
            "failed": load.failed,
            "errors": load.errors,
            "received_at_end": received_at_end,
            "received": load.receiver.count,
            "distinct": len(load.receiver.ids),
            "owed": owed,
            "succeeded": succeeded,
            "sampled": sampler.last,
        }

    def _drain(self, endpoint, timeout: float) -> tuple[int, int]:
        """Wait up to `timeout` seconds for the endpoint's deliveries to leave `pending`;
        returns (deliveries owed, deliveries succeeded)."""
        deliveries = WebhookDelivery.objects.filter(endpoint=endpoint)
        deadline = time.monotonic() + timeout
        while (
            deliveries.filter(status=DeliveryStatus.PENDING).exists()
            and time.monotonic() < deadline
        ):
            time.sleep(0.1)
        return deliveries.count(), deliveries.filter(status=DeliveryStatus.SUCCEEDED).count()

    def _write_csv(self, sampler: Sampler) -> None:
        with open(_logs() / "rss.csv", "w", newline="") as file:
            out = csv.writer(file)
            out.writerow(["seconds", "process", "pid", "rss_kib"])
            for series in sampler.series.values():
                for at, kib in series.samples:
                    out.writerow([f"{at:.1f}", series.label, series.pid, kib])

    def _drop_queues(self, names) -> None:
        """Remove the private queues (and their bindings) from Redis."""
        with celery_app.connection_for_write() as conn:
            for name in names:
                conn.default_channel.queue_delete(name)

    def _report(self, result, ceiling, seconds, warmup, interval, readers, writers, load_before):
        out = self.stdout.write
        rows: list[Growth] = result["rows"]
        out(
            f"bench_soak: {seconds:g} s of mixed load (readers {readers}, writers {writers}) on "
            "gunicorn (2 workers × 4 threads) and one Celery worker (16 threads), webhooks to a "
            f"loopback receiver; RSS every {interval:g} s, warm-up {warmup:g} s"
        )
        out(
            f"{'process':<22}{'pid':>8}{'start MiB':>11}{'warm MiB':>10}{'end MiB':>9}"
            f"{'peak MiB':>10}{'growth %':>10}{'ceiling %':>11}  verdict"
        )
        for row in rows:
            growth = "-" if row.percent is None else f"{row.percent:+.2f}"
            out(
                f"{row.label:<22}{row.pid:>8}{_mib(row.start):>11}{_mib(row.base):>10}"
                f"{_mib(row.end):>9}{_mib(row.peak):>10}{growth:>10}{ceiling:>11.2f}  "
                f"{'ok' if row.passes(ceiling) else 'FAIL'}"
            )
        done, failed = result["done"], result["failed"]
        by_kind = ", ".join(f"{kind} {done[kind]:,}" for kind in KINDS)
        out(
            f"requests: {sum(done.values()):,} done ({by_kind}), "
            f"{sum(failed.values()):,} failed; {sum(done.values()) / seconds:.1f} req/s"
        )
        for error in result["errors"]:
            out(f"  failed: {error}")
        out(
            f"deliveries: {result['owed']:,} owed, {result['received_at_end']:,} received by "
            f"the end of the load, {result['received']:,} in all ({result['distinct']:,} "
            f"distinct webhook-ids), {result['succeeded']:,} succeeded"
        )
        load_after = os.getloadavg()
        out(
            "load average (1, 5, 15 min): "
            f"{' '.join(f'{x:.2f}' for x in load_before)} at the start, "
            f"{' '.join(f'{x:.2f}' for x in load_after)} at the end"
        )
        reasons = verdict(rows, ceiling)
        if sum(failed.values()):
            reasons.append(f"{sum(failed.values())} requests failed")
        if not result["owed"] or result["succeeded"] != result["owed"]:
            reasons.append(f"{result['succeeded']} of {result['owed']} deliveries succeeded")
        if reasons:
            out(f"FAIL: {'; '.join(reasons)}")
            raise CommandError("bench_soak failed: " + "; ".join(reasons))
        out(
            f"PASS: each of the {len(rows)} processes grew less than {ceiling:g} % after the "
            "warm-up"
        )
