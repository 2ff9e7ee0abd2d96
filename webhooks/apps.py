from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from audit.services import entries_recorded, entry_recorded
        from webhooks.outbox import on_entries_recorded, on_entry_recorded

        entry_recorded.connect(on_entry_recorded, dispatch_uid="webhooks.outbox")
        entries_recorded.connect(on_entries_recorded, dispatch_uid="webhooks.outbox:bulk")
