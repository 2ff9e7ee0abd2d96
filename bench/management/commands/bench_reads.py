"""`python manage.py bench_reads [--duration 4] [--rounds 5] [--connections 8]` (`make bench-reads`)

Throughput of two reads through the API served as production serves it — gunicorn with
`config/gunicorn.conf.py`, 2 workers × 4 threads — each beside its ceiling measured in the
same run: the same rows read with raw psycopg and `json.dumps` by a bare WSGI app
(`bench.ceiling`) under the same gunicorn config.

    list      GET /v1/invoices?project=…&limit=100  (100 invoices, 3 lines each)
    retrieve  GET /v1/projects/<id>                 (with its rollups)

The project is built once through the real services (owner, project, vendor, cost codes,
executed commitments, invoices received, coded with their lines, half of them approved) in the
account "Bench Reads", kept, and checked on every run. The ceiling runs the SQL the API's own
selectors compile for the same request (bound by Django, so the same rows and columns).

The load is Debian's `wrk` (`apt-get install wrk`): `--connections` keep-alive connections,
one case at a time. Each server of a case is warmed up for 2 seconds, then the API and its
ceiling take turns, `--rounds` runs of `--duration` seconds each (A B A B …), so that both see
the machine as it drifts (a shared host's speed moved twofold within a minute); the ratio is
the median of the rounds' ratios. A gunicorn worker accepts every connection of a burst it
can, so wrk's connections, opened at once, often all land on one worker and the other idles,
halving the rate: a round in which a worker did under half an even share of the workers' CPU
(a quarter of it with two workers, read from `/proc`) is run again, up to 5 times, so that
every server is measured as configured. Prints, per case and server, the median req/s and p50
and p99 latency (ms) of the rounds, the body sizes, the API's ratio to its ceiling with the
rounds' lowest and highest, and how many runs were repeated. Needs PostgreSQL
(`DATABASE_URL`) and Redis (`REDIS_URL`), as production does.

The account's rate limit is 1,000,000 requests/s (so the benchmark is never refused); every
request still takes its token from the account's Redis bucket with one script call, as at any
limit (docs/decisions.md, "One Redis call per request").
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from bench.server import balanced, gunicorn_server, worker_cpu_seconds
from jobcost.models import Account, Invoice, InvoiceLine, Project
from jobcost.scope import Scope
from jobcost.selectors import visible
from jobcost.services.api_keys import api_key_create, api_key_revoke
from jobcost.services.commitments import commitment_create, commitment_execute
from jobcost.services.cost_codes import cost_code_create
from jobcost.services.invoices import invoice_approve, invoice_create, invoice_update
from jobcost.services.parties import owner_create, vendor_create
from jobcost.services.projects import project_create

ACCOUNT = "Bench Reads"
NUMBER = "READS-100"
INVOICES = 100
LINES = 3
CODES = 3
LINE_AMOUNT = 1_000_00
WARMUP_SECONDS = 2
# Runs of a round at most, when its workers did not all serve (`bench.server.balanced`).
ROUND_TRIES = 5


@dataclass
class Figure:
    """One wrk run: requests per second and latency percentiles in milliseconds."""

    rps: float
    p50: float
    p99: float


def _ms(text: str) -> float:
    """wrk's latency (`812.00us`, `3.41ms`, `1.02s`) in milliseconds."""
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}[unit]


def parse_wrk(output: str) -> Figure:
    """req/s, p50 and p99 from `wrk --latency` output; refuses a run with errors or non-2xx."""
    if "Non-2xx" in output or "Socket errors" in output:
        raise CommandError(f"wrk saw errors:\n{output}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p50 = _ms(re.search(r"\s50%\s+(\S+)", output).group(1))
    p99 = _ms(re.search(r"\s99%\s+(\S+)", output).group(1))
    return Figure(rps, p50, p99)


class Command(BaseCommand):
    help = "Benchmark list and retrieve reads under gunicorn against a raw psycopg ceiling."

    def add_arguments(self, parser):
        parser.add_argument("--duration", type=int, default=4, help="seconds per run")
        parser.add_argument("--rounds", type=int, default=5, help="runs of each server per case")
        parser.add_argument("--connections", type=int, default=8)
        parser.add_argument("--workers", type=int, default=2)
        parser.add_argument("--threads", type=int, default=4)

    def handle(
        self, *args, duration: int, rounds: int, connections: int, workers: int, threads: int, **_
    ):
        if connection.vendor != "postgresql" or not os.environ.get("REDIS_URL"):
            raise CommandError("bench_reads needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL).")
        wrk = shutil.which("wrk")
        if wrk is None:
            raise CommandError("bench_reads drives the load with wrk: apt-get install wrk.")
        account, project = self._project()
        key, secret = api_key_create(account=account, role="viewer", name="bench-reads")
        try:
            self._run(project, key, secret, wrk, duration, rounds, connections, workers, threads)
        finally:
            api_key_revoke(api_key_id=key.pk)

    def _run(self, project, key, secret, wrk, duration, rounds, connections, workers, threads):
        scope = Scope.for_key(key)
        cases = [
            ("list", f"/v1/invoices?project={project.pk}&limit={INVOICES}", "/invoices"),
            ("retrieve", f"/v1/projects/{project.pk}", "/project"),
        ]
        with tempfile.TemporaryDirectory() as tmp:
            routes = Path(tmp) / "routes.json"
            routes.write_text(json.dumps(self._ceiling_routes(scope, project)))
            env = {
                **os.environ,
                "GUNICORN_WORKERS": str(workers),
                "GUNICORN_THREADS": str(threads),
                "GUNICORN_ACCESS_LOG": "off",
                "BENCH_READS_CEILING": str(routes),
            }
            results = {}
            load = os.getloadavg()
            with (
                gunicorn_server("config.wsgi:application", env) as api,
                gunicorn_server("bench.ceiling:application", env) as ceiling,
            ):
                # Each case: both servers warmed up, then the API and its ceiling in turns.
                for name, path, ceiling_path in cases:
                    targets = {"api": (api, path), "ceiling": (ceiling, ceiling_path)}
                    for server, (process, target) in targets.items():
                        results[name, server, "size"] = self._warm(
                            wrk, process.base, target, secret, connections
                        )
                    for _ in range(rounds):
                        for server, (process, target) in targets.items():
                            figure, repeats = self._round(
                                wrk, process, target, secret, duration, connections
                            )
                            results.setdefault((name, server), []).append(figure)
                            results["repeats"] = results.get("repeats", 0) + repeats
        self._print(results, cases, duration, rounds, connections, workers, threads, load)

    # --- the data -------------------------------------------------------------------------
    def _project(self) -> tuple[Account, Project]:
        account = Account.objects.filter(name=ACCOUNT).first()
        if account is None:
            account = Account.objects.create(
                name=ACCOUNT, rate_limit_per_second=1_000_000, rate_limit_burst=1_000_000
            )
        project = Project.objects.filter(account=account, number=NUMBER).first()
        if project is None:
            project = self._build(account)
        self._check(project)
        return account, project

    def _build(self, account: Account) -> Project:
        self.stdout.write(f"Building {NUMBER}: {INVOICES} invoices of {LINES} lines…")
        owner = owner_create(account_id=account.pk, name="Reads Owner")
        amount = INVOICES * LINES * LINE_AMOUNT
        project = project_create(
            account_id=account.pk,
            number=NUMBER,
            name="Reads benchmark",
            owner=owner,
            contract_amount=amount * 4,
            status="active",
        )
        vendor = vendor_create(account_id=account.pk, name="Reads Vendor")
        codes = []
        for i in range(CODES):
            code = cost_code_create(
                project=project,
                code=f"{i + 1:02d}-100",
                name=f"Code {i + 1}",
                cost_type="subcontract",
                scheduled_value=amount * 4 // CODES,
                budget_amount=amount,
            )
            codes.append(code)
        commitment = commitment_execute(
            commitment_id=commitment_create(
                project=project,
                vendor=vendor,
                type="subcontract",
                cost_code=codes[0],
                original_amount=amount,
            ).pk
        )
        day = datetime.date(2026, 1, 1)
        for n in range(INVOICES):
            invoice = invoice_create(
                commitment=commitment,
                number=f"R-{n:04d}",
                invoice_date=day + datetime.timedelta(days=n),
                due_date=day + datetime.timedelta(days=n + 30),
                amount=LINES * LINE_AMOUNT,
            )
            lines = [{"cost_code": codes[i % CODES], "amount": LINE_AMOUNT} for i in range(LINES)]
            invoice_update(invoice_id=invoice.pk, changes={"lines": lines})
            if n % 2:
                invoice_approve(invoice_id=invoice.pk)
        return project

    def _check(self, project: Project) -> None:
        invoices = list(Invoice.objects.filter(project=project).prefetch_related("lines"))
        if len(invoices) != INVOICES:
            raise CommandError(f"{NUMBER} holds {len(invoices)} invoices, not {INVOICES}.")
        for invoice in invoices:
            lines = list(invoice.lines.all())
            if len(lines) != LINES or sum(line.amount for line in lines) != invoice.amount:
                raise CommandError(f"{invoice.pk}: its lines do not add up to its amount.")

    def _ceiling_routes(self, scope: Scope, project: Project) -> dict:
        """The SQL the API's selectors run for the two requests, bound by Django."""
        invoices = (
            visible.invoice_list(scope).filter(project=project).order_by("-created_at", "-id")
        )
        invoices = invoices[: INVOICES + 1]
        ids = [invoice.pk for invoice in invoices]
        lines = InvoiceLine.objects.filter(invoice_id__in=ids)
        projects = visible.project_list(scope).filter(pk=project.pk)
        return {
            "/invoices": {
                "sql": self._bound(invoices.prefetch_related(None)),
                "children": {"sql": self._bound(lines), "parent": "invoice_id", "key": "lines"},
                "list": True,
            },
            "/project": {"sql": self._bound(projects), "list": False},
        }

    @staticmethod
    def _bound(queryset) -> str:
        sql, params = queryset.query.sql_with_params()
        return connection.ops.compose_sql(sql, params)

    # --- the servers and the load ---------------------------------------------------------
    def _wrk(self, wrk, secret, connections) -> list[str]:
        return [
            wrk,
            "-t1",
            f"-c{connections}",
            "--timeout",
            "30s",
            "-H",
            f"Authorization: Bearer {secret}",
        ]

    def _warm(self, wrk, base, path, secret, connections) -> int:
        """One request (its body's size is returned), then wrk for the warm-up."""
        request = urllib.request.Request(  # noqa: S310 (our own loopback server)
            base + path, headers={"Authorization": f"Bearer {secret}"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            size = len(response.read())
        subprocess.run(  # noqa: S603 (wrk, fixed arguments)
            [*self._wrk(wrk, secret, connections), f"-d{WARMUP_SECONDS}s", base + path],
            check=True,
            capture_output=True,
        )
        return size

    def _round(self, wrk, server, path, secret, duration, connections) -> tuple[Figure, int]:
        """One measured run in which every worker served (see the module docstring); returns
        its figure and how many runs were repeated for it."""
        repeats = 0
        while True:
            before = worker_cpu_seconds(server.pid)
            figure = self._drive(wrk, server.base, path, secret, duration, connections)
            if balanced(before, worker_cpu_seconds(server.pid)) or repeats == ROUND_TRIES - 1:
                return figure, repeats
            repeats += 1

    def _drive(self, wrk, base, path, secret, duration, connections) -> Figure:
        output = subprocess.run(  # noqa: S603 (wrk, fixed arguments)
            [*self._wrk(wrk, secret, connections), f"-d{duration}s", "--latency", base + path],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        return parse_wrk(output)

    def _print(self, results, cases, duration, rounds, connections, workers, threads, load):
        self.stdout.write(
            f"\nbench_reads: gunicorn {workers} workers × {threads} threads, wrk {connections} "
            f"connections, {rounds} rounds of {duration} s per server and case, API and ceiling "
            f"in turns; load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; one "
            "rate-limit script call per request\n"
        )
        self.stdout.write(
            f"{'case':<10}{'server':<10}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'bytes':>8}"
            "   (medians of the rounds)"
        )
        for name, _, _ in cases:
            for server in ("api", "ceiling"):
                figures = results[name, server]
                median = Figure(
                    statistics.median(f.rps for f in figures),
                    statistics.median(f.p50 for f in figures),
                    statistics.median(f.p99 for f in figures),
                )
                self.stdout.write(
                    f"{name:<10}{server:<10}{median.rps:>9.1f}{median.p50:>9.2f}"
                    f"{median.p99:>9.2f}{results[name, server, 'size']:>8}"
                )
        for name, _, _ in cases:
            ratios = [
                api.rps / ceiling.rps
                for api, ceiling in zip(results[name, "api"], results[name, "ceiling"], strict=True)
            ]
            self.stdout.write(
                f"{name}: API / ceiling = {statistics.median(ratios):.3f}x "
                f"(rounds {min(ratios):.3f}x to {max(ratios):.3f}x)"
            )
        self.stdout.write(
            f"runs repeated because one worker held (nearly) every connection: {results['repeats']}"
        )
