"""`python manage.py create_api_key --account <name-or-id> --role <role> [--project prj_… ...]
[--name <label>]`: prints the secret alone on its last line (docs/keys.md, "Who may call what")."""

from django.core.management.base import BaseCommand, CommandError

from jobcost.errors import ApiError
from jobcost.management.lookup import account_and_projects
from jobcost.models import Role
from jobcost.services.api_keys import api_key_create


class Command(BaseCommand):
    help = "Create an API key; the secret is printed once, alone on the last line."

    def add_arguments(self, parser):
        parser.add_argument(
            "--account", required=True, help="Account name (created if new) or acct_ ID"
        )
        parser.add_argument("--role", required=True, choices=Role.values)
        parser.add_argument(
            "--project", action="append", default=[], help="Restrict to a project (repeatable)"
        )
        parser.add_argument("--name", default="", help="A label for the key")
        parser.add_argument("--env", choices=["test", "live"], default=None)

    def handle(self, *args, account, role, project, name, env, **options):
        found, projects = account_and_projects(account, project)
        try:
            key, secret = api_key_create(
                account=found, role=role, name=name, projects=projects, env=env
            )
        except ApiError as exc:
            raise CommandError(exc.message) from exc
        self.stderr.write(
            f"Created {key.pk} ({role}) for {found.name} ({found.pk}). "
            "Store the secret now; it is not shown again."
        )
        self.stdout.write(secret)
