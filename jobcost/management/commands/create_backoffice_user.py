"""`python manage.py create_backoffice_user --account <name-or-id> --role <role> --email <email>
[--username <name>] [--project prj_… ...] [--password-stdin]`: a back-office user of one
account (docs/backoffice/month.md), staff but never superuser. Without `--password-stdin` the user
has no usable password until `changepassword` sets one."""

import sys

from django.core.management.base import BaseCommand, CommandError

from jobcost.errors import ApiError
from jobcost.management.lookup import account_and_projects
from jobcost.models import PERSON_ROLES
from jobcost.services.backoffice_users import backoffice_user_create


class Command(BaseCommand):
    help = "Create a back-office user of one account with a role (the API's roles, no agent)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--account", required=True, help="Account name (created if new) or acct_ ID"
        )
        parser.add_argument("--role", required=True, choices=[r.value for r in PERSON_ROLES])
        parser.add_argument("--email", required=True)
        parser.add_argument("--username", default=None, help="Default: the email")
        parser.add_argument(
            "--project", action="append", default=[], help="Restrict to a project (repeatable)"
        )
        parser.add_argument(
            "--password-stdin",
            action="store_true",
            help="Read the password from the first line of standard input",
        )

    def handle(self, *args, account, role, email, username, project, password_stdin, **options):
        found, projects = account_and_projects(account, project)
        password = None
        if password_stdin:
            password = sys.stdin.readline().rstrip("\r\n")
            if not password:
                raise CommandError("No password on standard input.")
        try:
            membership = backoffice_user_create(
                account=found,
                role=role,
                email=email,
                username=username,
                projects=projects,
                password=password,
            )
        except ApiError as exc:
            raise CommandError(exc.message) from exc
        restriction = f", projects {', '.join(p.pk for p in projects)}" if projects else ""
        login = "" if password else " No usable password yet: set one with changepassword."
        self.stdout.write(
            f"Created back-office user {membership.user.username} ({role}{restriction}) of "
            f"{found.name} ({found.pk}).{login}"
        )
