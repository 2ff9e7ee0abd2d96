"""The back office's admin site: Django's, plus the Reports section (docs/backoffice/reports.md)
in its URLs, on the home page and in the sidebar, shown to whoever may read reports."""

from __future__ import annotations

from django.contrib.admin import AdminSite


class BackOfficeSite(AdminSite):
    """`admin.site`. The report pages are read-only pages of no model, so they are added here
    rather than under a ModelAdmin."""

    def get_urls(self):
        from jobcost.admin.reports import report_urls  # the admin package imports models

        return [*report_urls(self), *super().get_urls()]

    def get_app_list(self, request, app_label=None):
        from jobcost.admin.reports import reports_section

        apps = super().get_app_list(request, app_label)
        if app_label in (None, "reports"):
            section = reports_section(request)
            if section is not None:
                apps.append(section)
        return apps
