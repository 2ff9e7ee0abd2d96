"""`python manage.py seed_demo`: load the demo job (docs/development.md), idempotently.

Creates the account "Demo Builders" with project 2026-014, a $8.4M classroom addition, its
owner, twelve vendors, CSI cost codes with scheduled values and budgets, and the bought-out
subcontracts and purchase orders (data in `jobcost.demo.school_addition`); then the job in
progress: three monthly billing periods of change orders, vendor invoices, lien waivers and
G702/G703 pay apps (`jobcost.demo.progress`); and its field records: six RFIs, the daily logs
of 2–19 November 2026 and four agent proposals awaiting approval
(`jobcost.demo.field_records`). Run again, it finds the project and writes nothing.

It also loads the demo's project accountant (`jobcost.demo.accountant`): user `accountant`,
role manager of "Demo Builders", with the password of docs/backoffice/index.md in development only.

The only API key it creates is the demo's agent (role `agent`, restricted to the demo
project), so that the pending proposals have a real proposer; its secret is discarded unseen
and never printed. Create keys to use with `create_api_key`.
"""

from django.core.management.base import BaseCommand, CommandError

from jobcost.demo.accountant import USERNAME, demo_accountant_ensure
from jobcost.demo.loader import DemoSummary, demo_job_load, demo_job_summary
from jobcost.errors import ApiError


def dollars(cents: int) -> str:
    """`$8,400,000.00` from integer cents, without floats."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{part:02d}"


def counts(by_status: dict[str, int]) -> str:
    """`2 approved, 1 pending` from a status → count mapping."""
    return ", ".join(f"{n} {status}" for status, n in by_status.items()) or "none"


def hours(value) -> str:
    """`2,146` or `2,146.5` (worker-hours, an exact Decimal)."""
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def field_lines(summary: DemoSummary) -> list[str]:
    """The field-record lines: RFIs, daily logs, pending agent proposals."""
    if summary.daily_logs:
        logs = (
            f"{summary.daily_logs} daily logs, {summary.first_log} to {summary.last_log} "
            f"({hours(summary.worker_hours)} worker-hours)"
        )
    else:
        logs = "no daily logs"
    by = f" by {', '.join(summary.proposed_by)}" if summary.proposed_by else ""
    return [
        f"  RFIs      {counts(summary.rfis)}",
        f"  Site      {logs}",
        f"  Agent     {summary.proposals} actions proposed{by}, awaiting approval",
    ]


def progress_lines(summary: DemoSummary) -> list[str]:
    """The job-in-progress lines: pay apps, change orders, invoices, waivers, rollups."""
    rollup = summary.rollup
    pay_apps = ", ".join(f"#{number} {status}" for number, status in summary.pay_apps)
    return [
        f"  Pay apps  {pay_apps or 'none'}",
        f"  Changes   {counts(summary.change_orders)} change orders",
        f"  Invoices  {counts(summary.invoices)}",
        f"  Waivers   {summary.waivers_open} not received",
        f"  To date   cost {dollars(rollup.cost_to_date)} "
        f"({rollup.percent_complete.normalize():f}% complete), "
        f"billed {dollars(rollup.billed_to_date)}, "
        f"earned {dollars(rollup.earned_revenue)}, "
        f"revised contract {dollars(rollup.revised_contract)}",
    ]


class Command(BaseCommand):
    help = "Load the demo job (account 'Demo Builders', project 2026-014). Idempotent."

    def handle(self, *args, **options):
        try:
            loaded = demo_job_load()
        except ApiError as exc:
            raise CommandError(f"Could not load the demo job: {exc.message}") from exc
        project = loaded.project
        try:
            _membership, accountant_added = demo_accountant_ensure(project.account)
        except (ApiError, ValueError) as exc:
            raise CommandError(f"Could not load the demo accountant: {exc}") from exc
        summary = demo_job_summary(project)
        account = f"{project.account.name} ({project.account_id})"
        added = [
            name
            for name, done in (
                ("the billing periods", loaded.progress),
                ("the RFIs, daily logs and agent proposals", loaded.field),
            )
            if done
        ]
        if loaded.setup:
            headline = f"Loaded the demo job for {account}."
        elif added:
            headline = f"Added {' and '.join(added)} to the demo job of {account}."
        elif accountant_added:
            headline = f"The demo job of {account} is already loaded; added its accountant."
        else:
            headline = f"The demo job of {account} is already loaded; nothing changed."
        lines = [
            headline,
            f"  Project   {project.number} {project.name} ({project.pk}), {project.status}",
            f"  Owner     {project.owner.name}",
            f"  Contract  {dollars(project.contract_amount)}, "
            f"retainage {project.retainage_pct.normalize():f}%",
            f"  Schedule  {summary.cost_codes} cost codes, scheduled values "
            f"{dollars(summary.scheduled_values)}, budget {dollars(summary.budget)}",
            f"  Buyout    {summary.vendors} vendors, {summary.executed} executed commitments "
            f"({dollars(summary.committed)} committed), {summary.drafts} in draft",
            *progress_lines(summary),
            *field_lines(summary),
        ]
        lines += [
            f"Back office: /admin/ as {USERNAME} (manager of {project.account.name}; "
            "password in docs/backoffice/index.md, in development only).",
            "Create an API key for it with:",
            '  .venv/bin/python manage.py create_api_key --account "Demo Builders" --role admin',
        ]
        self.stdout.write("\n".join(lines))
