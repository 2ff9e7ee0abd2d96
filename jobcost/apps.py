from django.apps import AppConfig


class JobcostConfig(AppConfig):
    name = "jobcost"
    verbose_name = "Job cost"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from jobcost.database import connect_loaders

        connection_created.connect(connect_loaders, dispatch_uid="jobcost.database")

        # The admin modules were imported by django.contrib.admin's ready() (listed first in
        # INSTALLED_APPS): now put every registered admin under the back-office policy.
        from django.contrib import admin

        from jobcost.admin.base import enforce_tenancy

        enforce_tenancy(admin.site)
