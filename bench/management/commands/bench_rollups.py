"""`python manage.py bench_rollups [--invoices 100000] [--runs 30]`

Prints the time and query count to retrieve a project and to list its budget lines through
the whole API stack (middleware, auth, serialization), for a project with N approved invoices
beside an empty project. docs/computations.md: reading a rollup costs a bounded number of queries
whatever the project's size.

The large project's invoices are bulk-inserted with exactly what approval writes (approved
invoices and lines, the commitment's billed_to_date, the budget lines' actual); the command
checks those counters against the rows before measuring. The data is kept (account
"Bench Builders") so later runs reuse it.
"""

from __future__ import annotations

import datetime
import statistics
import time

from django.core.management.base import BaseCommand
from django.db import connection, transaction
from django.db.models import Sum
from django.test import Client
from django.test.utils import CaptureQueriesContext

from jobcost.models import (
    Account,
    BudgetLine,
    Commitment,
    CostCode,
    Invoice,
    InvoiceLine,
    Project,
)
from jobcost.services.api_keys import api_key_create
from jobcost.services.commitments import commitment_create, commitment_execute
from jobcost.services.cost_codes import cost_code_create
from jobcost.services.parties import owner_create, vendor_create
from jobcost.services.projects import project_create

ACCOUNT = "Bench Builders"
CODES = 20
INVOICE_AMOUNT = 1_000_00


class Command(BaseCommand):
    help = "Benchmark project and budget-line reads: a project with N invoices vs an empty one."

    def add_arguments(self, parser):
        parser.add_argument("--invoices", type=int, default=100_000)
        parser.add_argument("--runs", type=int, default=30)

    def handle(self, *args, invoices: int, runs: int, **options):
        account = Account.objects.filter(name=ACCOUNT).first()
        if account is None:
            account = Account.objects.create(
                name=ACCOUNT, rate_limit_per_second=100_000, rate_limit_burst=100_000
            )
        empty = self._project(account, "BENCH-EMPTY", 0)
        large = self._project(account, f"BENCH-{invoices}", invoices)
        _, secret = api_key_create(account=account, role="viewer", name="bench")
        client = Client(headers={"Authorization": f"Bearer {secret}"})
        rows = []
        for label, project in (("empty project", empty), (f"{invoices:,} invoices", large)):
            for what, path in (
                ("retrieve project", f"/v1/projects/{project.pk}"),
                ("list budget lines", f"/v1/budgets?project={project.pk}&limit=100"),
            ):
                rows.append((label, what, *self._measure(client, path, runs)))
        self.stdout.write(f"\nbench_rollups: {runs} runs each, median wall time through the API\n")
        header = f"{'project':<20}{'request':<20}{'median ms':>10}{'p90 ms':>9}{'queries':>9}"
        self.stdout.write(header)
        for label, what, median, p90, queries in rows:
            self.stdout.write(f"{label:<20}{what:<20}{median:>10.2f}{p90:>9.2f}{queries:>9}")
        for what in ("retrieve project", "list budget lines"):
            small = next(r for r in rows if r[1] == what and r[0] == "empty project")
            big = next(r for r in rows if r[1] == what and r[0] != "empty project")
            self.stdout.write(
                f"{what}: large/empty time ratio {big[2] / small[2]:.2f}x, "
                f"queries {big[4]} vs {small[4]}"
            )

    def _measure(self, client, path: str, runs: int) -> tuple[float, float, int]:
        response = client.get(path)
        assert response.status_code == 200, response.content
        times, counts = [], set()
        for _ in range(runs):
            with CaptureQueriesContext(connection) as queries:
                start = time.perf_counter()
                response = client.get(path)
                times.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200
            counts.add(len(queries))
        times.sort()
        return statistics.median(times), times[int(len(times) * 0.9) - 1], max(counts)

    def _project(self, account: Account, number: str, invoices: int) -> Project:
        project = Project.objects.filter(account=account, number=number).first()
        if project is None:
            project = self._build(account, number, invoices)
        self._check(project, invoices)
        return project

    @transaction.atomic
    def _build(self, account: Account, number: str, invoices: int) -> Project:
        self.stdout.write(f"Building {number} with {invoices:,} approved invoices…")
        owner = owner_create(account_id=account.pk, name=f"Owner of {number}")
        per_code = max(invoices // CODES, 1) * INVOICE_AMOUNT
        contract = per_code * CODES * 2
        project = project_create(
            account_id=account.pk,
            number=number,
            name=f"Benchmark {number}",
            owner=owner,
            contract_amount=contract,
            status="active",
        )
        vendor = vendor_create(account_id=account.pk, name=f"Vendor of {number}")
        commitments = []
        for i in range(CODES):
            code = cost_code_create(
                project=project,
                code=f"{i + 1:02d}-000",
                name=f"Code {i + 1}",
                cost_type="subcontract",
                scheduled_value=contract // CODES,
                budget_amount=per_code * 3 // 2,
            )
            commitment = commitment_create(
                project=project,
                vendor=vendor,
                type="subcontract",
                cost_code=code,
                original_amount=per_code,
            )
            commitments.append(commitment_execute(commitment_id=commitment.pk))
        day = datetime.date(2026, 1, 1)
        batch = 5_000
        for start in range(0, invoices, batch):
            chunk = range(start, min(start + batch, invoices))
            rows = [
                Invoice(
                    account=account,
                    project=project,
                    commitment=commitments[n % CODES],
                    vendor=vendor,
                    number=f"{number}-{n:07d}",
                    invoice_date=day + datetime.timedelta(days=n % 300),
                    amount=INVOICE_AMOUNT,
                    retainage_pct=0,
                    retainage_amount=0,
                    status="approved",
                )
                for n in chunk
            ]
            Invoice.objects.bulk_create(rows)
            InvoiceLine.objects.bulk_create(
                InvoiceLine(
                    invoice=inv,
                    position=1,
                    cost_code_id=inv.commitment.cost_code_id,
                    amount=INVOICE_AMOUNT,
                )
                for inv in rows
            )
        for commitment in commitments:
            billed = Invoice.objects.filter(commitment=commitment).aggregate(s=Sum("amount"))["s"]
            Commitment.objects.filter(pk=commitment.pk).update(billed_to_date=billed or 0)
            actual = InvoiceLine.objects.filter(cost_code_id=commitment.cost_code_id).aggregate(
                s=Sum("amount")
            )["s"]
            BudgetLine.objects.filter(cost_code_id=commitment.cost_code_id).update(
                actual=actual or 0
            )
        return project

    def _check(self, project: Project, invoices: int) -> None:
        """The stored counters equal the sums of the rows, as approval would leave them."""
        count = Invoice.objects.filter(project=project, status="approved").count()
        assert count == invoices, f"{project.number}: {count} invoices, expected {invoices}"
        for line in BudgetLine.objects.filter(project=project):
            posted = (
                InvoiceLine.objects.filter(
                    cost_code_id=line.cost_code_id, invoice__status="approved"
                ).aggregate(s=Sum("amount"))["s"]
                or 0
            )
            assert line.actual == posted, f"budget {line.pk}: actual {line.actual} != {posted}"
        assert CostCode.objects.filter(project=project).count() == CODES
