"""The back office's admin site: Django's, plus sections of pages that belong to no model
(Reports, docs/backoffice/reports.md), added by the admin package with `add_section`."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.admin import AdminSite

UrlsOf = Callable[[AdminSite], list]
SectionFor = Callable[[object], dict | None]


class BackOfficeSite(AdminSite):
    """`admin.site` (config/backoffice.py makes it Django's default site)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._sections: list[tuple[UrlsOf, SectionFor]] = []

    def add_section(self, urls: UrlsOf, section: SectionFor) -> None:
        """Add a section: `urls(site)` gives its URL patterns (under /admin/), `section(request)`
        its entry on the home page and in the sidebar (an app entry as `get_app_list` builds
        them), or None where the user may not open it."""
        self._sections.append((urls, section))

    def get_urls(self):
        own = [pattern for urls, _section in self._sections for pattern in urls(self)]
        return [*own, *super().get_urls()]

    def get_app_list(self, request, app_label=None):
        apps = super().get_app_list(request, app_label)
        for _urls, section in self._sections:
            entry = section(request)
            if entry is not None and app_label in (None, entry["app_label"]):
                apps.append(entry)
        return apps
