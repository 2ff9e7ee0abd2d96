from django.apps import AppConfig


class JobcostConfig(AppConfig):
    name = "jobcost"
    verbose_name = "Job cost"
    default_auto_field = "django.db.models.BigAutoField"
