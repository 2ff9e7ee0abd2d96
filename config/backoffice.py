"""The admin app with the back office's own site as Django's default `admin.site`
(`BackOfficeSite`, jobcost/backoffice_site.py): Django's documented way to give the default
site pages that belong to no model, such as the Reports section."""

from django.contrib.admin.apps import AdminConfig


class BackOfficeAdminConfig(AdminConfig):
    default_site = "jobcost.backoffice_site.BackOfficeSite"
