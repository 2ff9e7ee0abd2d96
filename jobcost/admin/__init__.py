"""The Django admin back office for project accountants (a client of the services).

Importing this package registers every job-cost model; see `base.ServiceAdmin` for how saves
and actions go through `jobcost.services`.
"""

from jobcost.admin import (
    accounts,
    budgets,
    change_orders,
    commitments,
    idempotency,
    invoices,
    parties,
    pay_apps,
    projects,
)

__all__ = [
    "accounts",
    "budgets",
    "change_orders",
    "commitments",
    "idempotency",
    "invoices",
    "parties",
    "pay_apps",
    "projects",
]
