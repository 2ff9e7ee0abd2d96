"""`python manage.py bench_import [--rows 5000] [--runs 1]`

A clean budget file imported through the whole API stack (docs/budget-import.md), timed
against a ceiling measured in the same run. Each run builds, in the account "Bench Imports", a
fresh `bid` project and a CSV of `--rows` distinct cost codes, then times with Django's test
client against the configured database:

- the dry run, `POST /v1/projects/{id}/budget-import?dry_run=true`, run within the request
  (the sync threshold raised past `--rows` for the timing);
- the import run within the request the same way (201, every row created, audited, with its
  `cost_code.created` event);
- the import as production runs a file over the threshold: the POST (202 `pending`), then the
  Celery task's body in this process, as a worker runs it, until the import is `succeeded`;
- the ceiling: the same cost codes and budget lines written with PostgreSQL `COPY` on the raw
  psycopg cursor (no checks, no audit, no events), rolled back.

It prints the seconds of each and each over the ceiling. Needs PostgreSQL (`DATABASE_URL`).
The bench account and its projects are kept; the webhooks of the account are none, so no
delivery is queued.
"""

from __future__ import annotations

import time
import uuid

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.test import Client, override_settings
from django.utils import timezone

from audit.context import SYSTEM, acting_as
from audit.ids import new_id
from jobcost.models import BudgetImport, CostCode
from jobcost.services.api_keys import account_get_or_create, api_key_create
from jobcost.services.parties import owner_create
from jobcost.services.projects import project_create
from jobcost.tasks import budget_import_run

ACCOUNT = "Bench Imports"
HEADER = "code,name,cost type,scheduled value,budget\n"
CSV = "text/csv"


def bench_file(rows: int) -> bytes:
    """`rows` distinct codes, amounts typed as people type them."""
    lines = [HEADER]
    for n in range(rows):
        lines.append(f'{n:06d},Cost code {n},labor,"1,{n % 1000:03d}.{n % 100:02d}",${n}.50\n')
    return "".join(lines).encode()


class Command(BaseCommand):
    help = "Time a clean budget import through the API beside a raw COPY ceiling."

    def add_arguments(self, parser):
        parser.add_argument("--rows", type=int, default=5000)
        parser.add_argument("--runs", type=int, default=1)

    def handle(self, *args, rows: int, runs: int, **options):
        if connection.vendor != "postgresql":
            raise CommandError("bench_import needs PostgreSQL: set DATABASE_URL.")
        content = bench_file(rows)
        with acting_as(SYSTEM):
            account = account_get_or_create(name=ACCOUNT)
            owner = owner_create(account_id=account.pk, name="Bench Owner")
            _key, secret = api_key_create(account=account, role="admin", projects=[])
        client = Client()
        headers = {"Authorization": f"Bearer {secret}"}
        self.stdout.write(f"{rows:,} rows, {len(content):,} bytes of CSV")
        self.stdout.write(f"{'mode':<44} {'run':>3} {'seconds':>8} {'x ceiling':>9}")
        for run in range(1, runs + 1):
            results = {}
            results["raw COPY, rolled back (ceiling)"] = self._copy(account, owner, rows)
            with override_settings(BUDGET_IMPORT_SYNC_MAX_ROWS=rows):
                project = self._project(account, owner)
                results["dry run, in the request"] = self._post(
                    client, headers, project, content, dry_run=True, status=201
                )
                results["import, in the request (201)"] = self._post(
                    client, headers, project, content, status=201
                )
                assert CostCode.objects.filter(project=project).count() == rows
            project = self._project(account, owner)
            results["import, queued: POST 202 + the task"] = self._queued(
                client, headers, project, content
            )
            assert CostCode.objects.filter(project=project).count() == rows
            ceiling = results["raw COPY, rolled back (ceiling)"]
            for mode, seconds in results.items():
                self.stdout.write(f"{mode:<44} {run:>3} {seconds:>8.2f} {seconds / ceiling:>9.1f}")

    def _project(self, account, owner):
        with acting_as(SYSTEM):
            return project_create(
                account_id=account.pk,
                number=f"BI-{uuid.uuid4().hex[:8]}",
                name="Bench import",
                owner=owner,
                contract_amount=0,
                currency="usd",
                retainage_pct=0,
                status="bid",
            )

    def _post(self, client, headers, project, content, *, dry_run=False, status):
        url = f"/v1/projects/{project.pk}/budget-import" + ("?dry_run=true" if dry_run else "")
        started = time.perf_counter()
        response = client.post(
            url,
            data=content,
            content_type=CSV,
            headers={**headers, "Idempotency-Key": uuid.uuid4().hex},
        )
        seconds = time.perf_counter() - started
        body = response.json()
        if response.status_code != status or body.get("status") != "succeeded":
            raise CommandError(f"{url}: {response.status_code} {str(body)[:500]}")
        return seconds

    def _queued(self, client, headers, project, content):
        started = time.perf_counter()
        response = client.post(
            f"/v1/projects/{project.pk}/budget-import",
            data=content,
            content_type=CSV,
            headers={**headers, "Idempotency-Key": uuid.uuid4().hex},
        )
        if response.status_code != 202:
            raise CommandError(f"expected 202: {response.status_code} {response.content[:500]}")
        import_id = response.json()["id"]
        # A worker would pick it up from the broker; run the same task body here.
        budget_import_run.run(import_id)
        seconds = time.perf_counter() - started
        status = BudgetImport.objects.get(pk=import_id).status
        if status != "succeeded":
            raise CommandError(f"the queued import ended {status}")
        return seconds

    def _copy(self, account, owner, rows: int) -> float:
        project = self._project(account, owner)
        now = timezone.now()
        started = time.perf_counter()
        with transaction.atomic():
            raw = connection.cursor().cursor
            codes = [new_id("cc") for _ in range(rows)]
            with raw.copy(
                "COPY jobcost_costcode (id, account_id, project_id, code, name, cost_type, "
                "scheduled_value, created_at, updated_at) FROM STDIN"
            ) as copy:
                for n, code_id in enumerate(codes):
                    copy.write_row(
                        (
                            code_id,
                            account.pk,
                            project.pk,
                            f"{n:06d}",
                            f"Cost code {n}",
                            "labor",
                            100_000 + n,
                            now,
                            now,
                        )
                    )
            with raw.copy(
                "COPY jobcost_budgetline (id, account_id, project_id, cost_code_id, "
                "original_amount, approved_changes, committed, actual, created_at, updated_at) "
                "FROM STDIN"
            ) as copy:
                for n, code_id in enumerate(codes):
                    copy.write_row(
                        (
                            new_id("bl"),
                            account.pk,
                            project.pk,
                            code_id,
                            n * 100 + 50,
                            0,
                            0,
                            0,
                            now,
                            now,
                        )
                    )
            transaction.set_rollback(True)
        return time.perf_counter() - started
