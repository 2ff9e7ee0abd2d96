"""`python manage.py revoke_api_key <key_id>` (docs/keys.md, "Who may call what")."""

from django.core.management.base import BaseCommand, CommandError

from jobcost.models import ApiKey
from jobcost.services.api_keys import api_key_revoke


class Command(BaseCommand):
    help = "Revoke an API key: later requests with it get 401 api_key_revoked."

    def add_arguments(self, parser):
        parser.add_argument("key_id")

    def handle(self, *args, key_id, **options):
        if not ApiKey.objects.filter(pk=key_id).exists():
            raise CommandError(f"No API key {key_id}.")
        key = api_key_revoke(api_key_id=key_id)
        self.stdout.write(f"Revoked {key.pk} at {key.revoked_at:%Y-%m-%dT%H:%M:%SZ}.")
