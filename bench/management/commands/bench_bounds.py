"""`python manage.py bench_bounds [--runs 3]`

Create and approve of maximum-size objects through the whole API stack (docs/operations/limits.md):
each run builds, in the account "Bench Bounds", a fresh active project with
`CHANGE_ORDER_LINES_MAX` cost codes (bulk inserted, outside the timing) and a webhook endpoint
subscribed to every event (disabled after the run; `--no-endpoint` leaves it disabled, so no
delivery is queued), then times with Django's test client,
against the configured database:

- POST /v1/change-orders with `CHANGE_ORDER_LINES_MAX` lines on as many distinct cost codes,
  then POST …/approve (every budget line moves, each with its audit entry and event);
- PATCH /v1/invoices/{id} coding `INVOICE_LINES_MAX` lines, then POST …/approve;
- POST /v1/daily-logs with `MANPOWER_ROWS_MAX` manpower rows;
- PATCH /v1/pay-apps/{id} with `PAY_APP_LINE_ENTRIES_MAX` entries (a pay app of that many
  rows).

The command lives in `webhooks`, the top app, because it wires a webhook endpoint to the
job-cost API it times (docs/architecture.md: apps import downwards only). It prints, per
request, the milliseconds and the number of queries of each run. Needs
PostgreSQL (`DATABASE_URL`); the bench account and its projects are kept, the endpoint's
deliveries are deleted after each run (the queued tasks then find nothing to send).
"""

from __future__ import annotations

import argparse
import datetime
import time
import uuid
from decimal import Decimal

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from audit.context import SYSTEM, acting_as
from jobcost.limits import (
    CHANGE_ORDER_LINES_MAX,
    INVOICE_LINES_MAX,
    MANPOWER_ROWS_MAX,
    PAY_APP_LINE_ENTRIES_MAX,
)
from jobcost.models import Account, BudgetLine, CostCode, Project
from jobcost.services.api_keys import account_get_or_create, api_key_create
from jobcost.services.commitments import commitment_create, commitment_execute
from jobcost.services.parties import owner_create, vendor_create
from jobcost.services.projects import project_create
from webhooks.models import EndpointStatus, WebhookDelivery, WebhookEndpoint

ACCOUNT = "Bench Bounds"
CODE_VALUE = 1_000_00  # each cost code's scheduled value and budget, cents


def big_project(account: Account, codes: int, *, number: str | None = None) -> Project:
    """An active project whose `codes` cost codes (`C-0001`, …) each carry a scheduled value
    and a budget of `CODE_VALUE`, so the schedule of values balances the contract. The cost
    codes and budget lines are bulk inserted (setup for benchmarks and tests of maximum-size
    requests, not a path of the API)."""
    owner = owner_create(account_id=account.pk, name="Bench Owner")
    project = project_create(
        account_id=account.pk,
        number=number or f"BIG-{uuid.uuid4().hex[:8]}",
        name="Maximum-size requests",
        owner=owner,
        contract_amount=codes * CODE_VALUE,
        retainage_pct=Decimal(10),
        status="active",
    )
    cost_codes = CostCode.objects.bulk_create(
        CostCode(
            account_id=account.pk,
            project=project,
            code=f"C-{n:04d}",
            name=f"Code {n}",
            cost_type="subcontract",
            scheduled_value=CODE_VALUE,
        )
        for n in range(1, codes + 1)
    )
    BudgetLine.objects.bulk_create(
        BudgetLine(
            account_id=account.pk, project=project, cost_code=code, original_amount=CODE_VALUE
        )
        for code in cost_codes
    )
    return project


class Bench:
    """One run's requests through the API, each timed and its queries counted."""

    def __init__(self, secret: str, out) -> None:
        self.client = Client()
        self.secret = secret
        self.out = out
        self.results: list[tuple[str, float, int]] = []

    def call(self, label: str, method: str, path: str, body: dict | None = None) -> dict:
        headers = {
            "HTTP_AUTHORIZATION": f"Bearer {self.secret}",
            "HTTP_IDEMPOTENCY_KEY": uuid.uuid4().hex,
        }
        send = getattr(self.client, method)
        with CaptureQueriesContext(connection) as ctx:
            start = time.perf_counter()
            response = send(path, body or {}, content_type="application/json", **headers)
            elapsed = (time.perf_counter() - start) * 1000
        assert response.status_code in (200, 201), response.content[:500]
        self.results.append((label, elapsed, len(ctx.captured_queries)))
        return response.json()


def run_once(account: Account, secret: str, out, *, endpoint: bool) -> list[tuple[str, float, int]]:
    """Build a fresh project and time the maximum-size requests on it; with `endpoint`, an
    enabled webhook endpoint subscribed to `*` receives a delivery of every event."""
    size = max(CHANGE_ORDER_LINES_MAX, INVOICE_LINES_MAX, PAY_APP_LINE_ENTRIES_MAX)
    with acting_as(SYSTEM):
        project = big_project(account, size)
        vendor = vendor_create(account_id=account.pk, name="Bench Vendor")
        codes = list(CostCode.objects.filter(project=project).order_by("code"))
        commitment = commitment_create(
            project=project,
            vendor=vendor,
            type="subcontract",
            original_amount=10**9,
            cost_code=codes[0],
        )
        commitment_execute(commitment_id=commitment.pk)
        hook = WebhookEndpoint.objects.create(
            account=account,
            url="https://bench.example.com/hook",
            events=["*"],
            api_version=settings.JOBCOST_API_VERSIONS[-1],
            secret="whsec_" + "x" * 32,
            status=EndpointStatus.ENABLED if endpoint else EndpointStatus.DISABLED,
        )
    bench = Bench(secret, out)
    lines = [
        {"cost_code": code.pk, "amount": 100, "budget_amount": 90}
        for code in codes[:CHANGE_ORDER_LINES_MAX]
    ]
    change_order = bench.call(
        f"create change order, {len(lines)} lines",
        "post",
        "/v1/change-orders",
        {
            "project": project.pk,
            "kind": "owner",
            "title": "Bench",
            "amount": 100 * len(lines),
            "lines": lines,
        },
    )
    bench.call(
        f"approve change order, {len(lines)} budget lines",
        "post",
        f"/v1/change-orders/{change_order['id']}/approve",
    )
    invoice = bench.call(
        "receive invoice",
        "post",
        "/v1/invoices",
        {
            "commitment": commitment.pk,
            "number": f"B-{uuid.uuid4().hex[:8]}",
            "invoice_date": "2026-01-15",
            "amount": INVOICE_LINES_MAX,
        },
    )
    bench.call(
        f"code invoice, {INVOICE_LINES_MAX} lines",
        "patch",
        f"/v1/invoices/{invoice['id']}",
        {"lines": [{"cost_code": c.pk, "amount": 1} for c in codes[:INVOICE_LINES_MAX]]},
    )
    bench.call(
        f"approve invoice, {INVOICE_LINES_MAX} budget lines",
        "post",
        f"/v1/invoices/{invoice['id']}/approve",
    )
    bench.call(
        f"create daily log, {MANPOWER_ROWS_MAX} manpower rows",
        "post",
        "/v1/daily-logs",
        {
            "project": project.pk,
            "date": datetime.date(2026, 1, 15).isoformat(),
            "manpower": [
                {"trade": f"Trade {n}", "vendor": vendor.pk, "headcount": 2, "hours": 16}
                for n in range(MANPOWER_ROWS_MAX)
            ],
        },
    )
    pay_app = bench.call(
        "create pay app",
        "post",
        "/v1/pay-apps",
        {"project": project.pk, "period_start": "2026-02-01", "period_end": "2026-02-28"},
    )
    bench.call(
        f"pay-app PATCH, {PAY_APP_LINE_ENTRIES_MAX} entries",
        "patch",
        f"/v1/pay-apps/{pay_app['id']}",
        {
            "lines": [
                {"item": str(n), "this_period": 100, "materials_stored": 10}
                for n in range(1, PAY_APP_LINE_ENTRIES_MAX + 1)
            ]
        },
    )
    WebhookEndpoint.objects.filter(pk=hook.pk).update(status=EndpointStatus.DISABLED)
    # The queued tasks find no delivery to send: nothing leaves for the made-up URL.
    WebhookDelivery.objects.filter(endpoint=hook).delete()
    return bench.results


class Command(BaseCommand):
    help = (
        "Time create and approve of maximum-size objects through the API "
        "(docs/operations/limits.md)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--runs", type=int, default=3)
        parser.add_argument(
            "--endpoint",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="an enabled endpoint subscribed to every event (each event queues a delivery)",
        )

    def handle(self, *args, runs: int, endpoint: bool, **options):
        account = account_get_or_create(name=ACCOUNT)
        _key, secret = api_key_create(account=account, role="admin", projects=[])
        table: dict[str, list[tuple[float, int]]] = {}
        for _ in range(runs):
            for label, ms, queries in run_once(account, secret, self.stdout, endpoint=endpoint):
                table.setdefault(label, []).append((ms, queries))
        self.stdout.write("| request | ms per run | queries |")
        self.stdout.write("|---|---:|---:|")
        for label, rows in table.items():
            times = ", ".join(f"{ms:.0f}" for ms, _q in rows)
            queries = sorted({q for _ms, q in rows})
            self.stdout.write(f"| {label} | {times} | {', '.join(map(str, queries))} |")
