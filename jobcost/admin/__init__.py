"""The Django admin back office for project accountants (a client of the services).

Importing this package registers every job-cost model; see `base.ServiceAdmin` for how saves
and actions go through `jobcost.services`.
"""

from django.contrib import admin

from jobcost.admin import (
    accounts,
    agent_actions,
    audit,
    budgets,
    change_orders,
    commitments,
    daily_logs,
    idempotency,
    invoices,
    lien_waivers,
    parties,
    pay_apps,
    projects,
    reports,
    rfis,
)

__all__ = [
    "accounts",
    "agent_actions",
    "audit",
    "budgets",
    "change_orders",
    "commitments",
    "daily_logs",
    "idempotency",
    "invoices",
    "lien_waivers",
    "parties",
    "pay_apps",
    "projects",
    "reports",
    "rfis",
]

# The home page is the job's dashboard (`dashboard.py`, rendered by the template tag
# `backoffice_dashboard`), above Django's list of sections.
admin.site.site_header = "Job cost back office"
admin.site.site_title = "Job cost"
admin.site.index_title = "Dashboard"
admin.site.index_template = "admin/jobcost/dashboard.html"
# Reports: pages of no model, a section of their own (reports.py, docs/backoffice/reports.md).
admin.site.add_section(reports.report_urls, reports.reports_section)
