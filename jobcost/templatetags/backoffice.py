"""Template tags of the back office: `{% backoffice_dashboard %}` renders the job's
dashboard (jobcost/admin/dashboard.py) for the signed-in user on the admin's home page."""

from __future__ import annotations

from django import template
from django.contrib import admin

from jobcost.admin.dashboard import dashboard_context

register = template.Library()


@register.inclusion_tag("admin/jobcost/dashboard_body.html", takes_context=True)
def backoffice_dashboard(context) -> dict:
    """The dashboard's context for the request being rendered."""
    return dashboard_context(admin.site, context["request"])
