"""The Django admin back office for project accountants (a client of the services).

Importing this package registers every job-cost model; see `base.ServiceAdmin` for how saves
and actions go through `jobcost.services`.
"""

from jobcost.admin import (
    accounts,
    agent_actions,
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
    rfis,
)

__all__ = [
    "accounts",
    "agent_actions",
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
    "rfis",
]
