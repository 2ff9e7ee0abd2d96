from django.apps import AppConfig


class JobcostConfig(AppConfig):
    name = "jobcost"
    verbose_name = "Job cost"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from jobcost.database import connect_loaders

        connection_created.connect(connect_loaders, dispatch_uid="jobcost.database")

        # The API's authentication keeps the keys it read for a second: any change to a key,
        # its project restriction or an account empties it (jobcost/api/authentication.py).
        from django.db.models.signals import m2m_changed, post_delete, post_save

        from jobcost.api.authentication import forget_keys
        from jobcost.models import Account, ApiKey

        for model in (ApiKey, Account):
            post_save.connect(forget_keys, sender=model, dispatch_uid=f"forget_keys.{model}")
            post_delete.connect(forget_keys, sender=model, dispatch_uid=f"forget_keys.d.{model}")
        m2m_changed.connect(
            forget_keys, sender=ApiKey.projects.through, dispatch_uid="forget_keys.projects"
        )

        # The admin modules were imported by django.contrib.admin's ready() (listed first in
        # INSTALLED_APPS): now put every registered admin under the back-office policy.
        from django.contrib import admin

        from jobcost.admin.base import enforce_tenancy

        enforce_tenancy(admin.site)
