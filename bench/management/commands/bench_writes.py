"""`python manage.py bench_writes [--clients 8] [--seconds 20] [--workers 2] [--threads 4]`

Write throughput through the production server (docs/benchmarks.md, "Writes"), beside its
ceiling measured in the same run:

- **The figure**: gunicorn started with `config/gunicorn.conf.py` (`--workers` × `--threads`,
  2 × 4 by default: the settings of this 2-core machine) on a free loopback port;
  `--clients` threads, each with its own keep-alive connection, take invoices through create
  → code → approve on ONE executed commitment (the hot row every approval locks), for
  `--seconds` after a 2-second warm-up.
  A run in which a worker did under half an even share of the workers' CPU (one worker held
  nearly every connection, which halves the rate at random) is run again with new
  connections, up to 5 times. It prints write requests per second, invoice cycles per second
  and each step's median and p90 milliseconds, then checks the commitment's `billed_to_date`
  equals the sum of the invoices approved (exact cents) and never passed the revised amount.
- **The ceiling**: `pgbench` with the same number of clients against the same database, each
  transaction locking one hot row, inserting a row and updating the hot row (what an approval
  does at the least), for the same time; printed as transactions per second and the ratio.
- **Queries per request**: one cycle through Django's test client with the queries counted.

Needs PostgreSQL (`DATABASE_URL`), Redis (`REDIS_URL`: the rate limiter, as in production) and
the `pgbench` program (Debian's postgresql-client). The bench account ("Bench Writes") is
kept; each run adds a project. The pgbench tables are created and dropped by the run.
"""

from __future__ import annotations

import logging
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import uuid

import httpx
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from audit.context import SYSTEM, acting_as
from bench.job import bench_job
from bench.server import balanced, gunicorn_server, worker_cpu_seconds
from jobcost.models import Account, Invoice
from jobcost.services.api_keys import account_get_or_create, api_key_create, api_key_revoke

ACCOUNT = "Bench Writes"
INVOICE = 100  # cents per invoice
PGBENCH_SCRIPT = """\
\\set n random(1, 1000000000)
BEGIN;
SELECT n FROM bench_writes_hot WHERE id = 1 FOR UPDATE;
INSERT INTO bench_writes_log (n) VALUES (:n);
UPDATE bench_writes_hot SET n = n + 1 WHERE id = 1;
COMMIT;
"""


class Cycle:
    """One client's create → code → approve loop; records each step's seconds."""

    def __init__(self, base: str, secret: str, commitment: str, code: str):
        self.client = httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {secret}"}, timeout=30
        )
        self.commitment, self.code = commitment, code
        self.steps: dict[str, list[float]] = {"create": [], "code": [], "approve": []}
        self.approved = 0

    def _call(self, step: str, method: str, path: str, body: dict, record: bool) -> dict:
        started = time.perf_counter()
        response = self.client.request(
            method, path, json=body, headers={"Idempotency-Key": uuid.uuid4().hex}
        )
        if response.status_code not in (200, 201):
            raise RuntimeError(f"{step}: {response.status_code} {response.text[:300]}")
        if record:
            self.steps[step].append(time.perf_counter() - started)
        return response.json()

    def once(self, record: bool) -> None:
        number = uuid.uuid4().hex[:12]
        invoice = self._call(
            "create",
            "POST",
            "/v1/invoices",
            {
                "commitment": self.commitment,
                "number": number,
                "invoice_date": time.strftime("%Y-%m-%d"),
                "amount": INVOICE,
            },
            record,
        )
        lines = {"lines": [{"cost_code": self.code, "amount": INVOICE}]}
        self._call("code", "PATCH", f"/v1/invoices/{invoice['id']}", lines, record)
        self._call("approve", "POST", f"/v1/invoices/{invoice['id']}/approve", {}, record)
        if record:
            self.approved += 1


def _drive(cycles: list[Cycle], warmup: float, seconds: float) -> float:
    """Run every client until the end; only cycles begun after the warm-up are recorded.
    Returns the seconds recorded."""
    start = time.monotonic()
    measure_from, stop_at = start + warmup, start + warmup + seconds
    errors: list[BaseException] = []

    def run(cycle: Cycle) -> None:
        try:
            while (now := time.monotonic()) < stop_at:
                cycle.once(record=now >= measure_from)
        except BaseException as exc:  # reported after the run
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(c,)) for c in cycles]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise CommandError(f"A client failed: {errors[0]}")
    return time.monotonic() - measure_from


# Runs at most, when the workers did not all serve (`bench.server.balanced`).
RUN_TRIES = 5


def _balanced_run(server, secret, commitment, code, clients, seconds):
    """`_drive` with new connections until both workers served (see the module docstring);
    returns the last run's cycles, its seconds and how many runs were repeated."""
    repeats = 0
    while True:
        cycles = [Cycle(server.base, secret, commitment, code) for _ in range(clients)]
        before = worker_cpu_seconds(server.pid)
        try:
            elapsed = _drive(cycles, warmup=2.0, seconds=seconds)
        finally:
            for cycle in cycles:
                cycle.client.close()
        if balanced(before, worker_cpu_seconds(server.pid)) or repeats == RUN_TRIES - 1:
            return cycles, elapsed, repeats
        repeats += 1


def _pgbench(clients: int, seconds: int) -> float:
    """pgbench's transactions per second for the hot-row script (see the module)."""
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_writes_hot, bench_writes_log")
        cursor.execute("CREATE TABLE bench_writes_hot (id int PRIMARY KEY, n bigint NOT NULL)")
        cursor.execute("CREATE TABLE bench_writes_log (id bigserial PRIMARY KEY, n bigint)")
        cursor.execute("INSERT INTO bench_writes_hot VALUES (1, 0)")
    db = settings.DATABASES["default"]
    conninfo = (
        f"host={db['HOST'] or '127.0.0.1'} port={db['PORT'] or 5432} "
        f"user={db['USER']} dbname={db['NAME']}"
    )
    env = {**os.environ, "PGPASSWORD": db.get("PASSWORD") or ""}
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".sql") as script:
            script.write(PGBENCH_SCRIPT)
            script.flush()
            pgbench = shutil.which("pgbench") or "pgbench"
            command = [pgbench, "-n", "-c", str(clients), "-j", str(clients)]
            command += ["-T", str(seconds), "-f", script.name, conninfo]
            result = subprocess.run(  # noqa: S603 (pgbench from PATH, fixed arguments)
                command, env=env, capture_output=True, text=True, timeout=seconds + 60
            )
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS bench_writes_hot, bench_writes_log")
    if result.returncode != 0:
        raise CommandError(f"pgbench failed: {result.stderr.strip()[:500]}")
    for line in result.stdout.splitlines():
        if line.startswith("tps = "):
            return float(line.split()[2])
    raise CommandError(f"pgbench printed no tps: {result.stdout[-300:]}")


def _queries_per_request(secret: str, commitment: str, code: str) -> dict[str, int]:
    """One create → code → approve through Django's test client, queries counted per step."""
    client = Client(headers={"Authorization": f"Bearer {secret}"})
    counts = {}

    def call(step, method, path, body):
        with CaptureQueriesContext(connection) as ctx:
            response = getattr(client, method)(
                path, body, content_type="application/json",
                headers={"Idempotency-Key": uuid.uuid4().hex},
            )  # fmt: skip
        assert response.status_code in (200, 201), response.content
        counts[step] = len(ctx.captured_queries)
        return response.json()

    invoice = call(
        "create",
        "post",
        "/v1/invoices",
        {
            "commitment": commitment,
            "number": uuid.uuid4().hex[:12],
            "invoice_date": time.strftime("%Y-%m-%d"),
            "amount": INVOICE,
        },
    )
    lines = {"lines": [{"cost_code": code, "amount": INVOICE}]}
    call("code", "patch", f"/v1/invoices/{invoice['id']}", lines)
    call("approve", "post", f"/v1/invoices/{invoice['id']}/approve", {})
    return counts


class Command(BaseCommand):
    help = "Invoice create → code → approve through gunicorn vs pgbench's hot-row ceiling."

    def add_arguments(self, parser):
        parser.add_argument("--clients", type=int, default=8)
        parser.add_argument("--seconds", type=int, default=20)
        parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
        parser.add_argument("--threads", type=int, default=4, help="threads per worker")

    def handle(self, *args, clients: int, seconds: int, workers: int, threads: int, **options):
        logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
        if connection.vendor != "postgresql" or not settings.REDIS_URL:
            raise CommandError("bench_writes needs PostgreSQL (DATABASE_URL) and REDIS_URL.")
        with acting_as(SYSTEM):
            account = account_get_or_create(name=ACCOUNT)
            # The bench's own account: no token bucket in the way of the measurement.
            Account.objects.filter(pk=account.pk).update(
                rate_limit_per_second=1_000_000, rate_limit_burst=1_000_000
            )
            key, secret = api_key_create(account=account, role="admin", name="bench writes")
            _project, commitment, code = bench_job(account, label="Write bench", prefix="W")
            _project, probe_commitment, probe_code = bench_job(
                account, label="Write bench", prefix="W"
            )
        try:
            counts = _queries_per_request(secret, probe_commitment.pk, probe_code.pk)
            env = {
                **os.environ,
                "GUNICORN_WORKERS": str(workers),
                "GUNICORN_THREADS": str(threads),
                "GUNICORN_ACCESS_LOG": "off",
            }
            with gunicorn_server("config.wsgi:application", env) as server:
                cycles, elapsed, repeats = _balanced_run(
                    server, secret, commitment.pk, code.pk, clients, seconds
                )
        finally:  # the run's admin key is not left usable
            with acting_as(SYSTEM):
                api_key_revoke(api_key_id=key.pk)
        commitment.refresh_from_db()
        approved_sum = sum(
            Invoice.objects.filter(commitment=commitment, status="approved").values_list(
                "amount", flat=True
            )
        )
        if commitment.billed_to_date != approved_sum or approved_sum > commitment.revised_amount:
            raise CommandError(
                f"billed_to_date {commitment.billed_to_date} != approved {approved_sum}"
            )
        invoices = sum(c.approved for c in cycles)
        writes = 3 * invoices
        tps = _pgbench(clients, seconds)
        out = self.stdout.write
        out(
            f"Write bench: {clients} clients, {seconds} s measured, "
            f"gunicorn {workers} workers × {threads} threads"
        )
        out(f"  queries per request: {counts}")
        for step in ("create", "code", "approve"):
            times = sorted(t for c in cycles for t in c.steps[step])
            p90 = times[int(len(times) * 0.9)] if times else 0.0
            out(
                f"  {step:8} median {statistics.median(times) * 1000:7.1f} ms   "
                f"p90 {p90 * 1000:7.1f} ms"
            )
        out(f"  write requests/s   {writes / elapsed:9.1f}")
        out(f"  invoices/s         {invoices / elapsed:9.1f}")
        out(f"  ceiling (pgbench hot row + insert + update, {clients} clients): {tps:9.1f} tps")
        out(f"  ratio invoices/s to ceiling: {invoices / elapsed / tps:.3f}×")
        out(f"  billed_to_date exact: {commitment.billed_to_date} cents = sum of approved")
        out(f"  runs repeated because one worker held (nearly) every connection: {repeats}")
