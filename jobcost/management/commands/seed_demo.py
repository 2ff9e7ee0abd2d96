"""`python manage.py seed_demo`: load the demo job (SPEC §11), idempotently.

Creates the account "Demo Builders" with project 2026-014, a $8.4M classroom addition, its
owner, twelve vendors, CSI cost codes with scheduled values and budgets, and the bought-out
subcontracts and purchase orders (data in `jobcost.demo.school_addition`). Run again, it
finds the project and writes nothing. It never creates API keys: use `create_api_key`.
"""

from django.core.management.base import BaseCommand, CommandError

from jobcost.api.errors import ApiError
from jobcost.demo.loader import demo_job_load, demo_job_summary


def dollars(cents: int) -> str:
    """`$8,400,000.00` from integer cents, without floats."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{part:02d}"


class Command(BaseCommand):
    help = "Load the demo job (account 'Demo Builders', project 2026-014). Idempotent."

    def handle(self, *args, **options):
        try:
            project, created = demo_job_load()
        except ApiError as exc:
            raise CommandError(f"Could not load the demo job: {exc.message}") from exc
        summary = demo_job_summary(project)
        account = f"{project.account.name} ({project.account_id})"
        lines = [
            f"Loaded the demo job for {account}."
            if created
            else f"The demo job of {account} is already loaded; nothing changed.",
            f"  Project   {project.number} {project.name} ({project.pk}), {project.status}",
            f"  Owner     {project.owner.name}",
            f"  Contract  {dollars(project.contract_amount)}, "
            f"retainage {project.retainage_pct.normalize():f}%",
            f"  Schedule  {summary.cost_codes} cost codes, scheduled values "
            f"{dollars(summary.scheduled_values)}, budget {dollars(summary.budget)}",
            f"  Buyout    {summary.vendors} vendors, {summary.executed} executed commitments "
            f"({dollars(summary.committed)} committed), {summary.drafts} in draft",
            "Create an API key for it with:",
            '  .venv/bin/python manage.py create_api_key --account "Demo Builders" --role admin',
        ]
        self.stdout.write("\n".join(lines))
