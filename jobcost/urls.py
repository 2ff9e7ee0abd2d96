"""The job-cost /v1 routes (`config/urls.py` mounts them with the webhooks' under the `v1`
namespace). URL names are `v1:<resource>-<action>`."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from jobcost.views.agent_actions import AgentActionViewSet
from jobcost.views.budget_imports import BudgetImportViewSet
from jobcost.views.budgets import BudgetLineViewSet, CostCodeViewSet
from jobcost.views.change_orders import ChangeOrderViewSet
from jobcost.views.commitments import CommitmentViewSet
from jobcost.views.daily_logs import DailyLogViewSet
from jobcost.views.invoices import InvoiceViewSet, LienWaiverViewSet
from jobcost.views.parties import OwnerViewSet, VendorViewSet
from jobcost.views.pay_apps import PayAppViewSet
from jobcost.views.projects import ProjectViewSet
from jobcost.views.reports import ReportViewSet
from jobcost.views.rfis import RfiViewSet

router = SimpleRouter(trailing_slash=False)
router.register("owners", OwnerViewSet, basename="owners")
router.register("vendors", VendorViewSet, basename="vendors")
router.register("projects", ProjectViewSet, basename="projects")
router.register("cost-codes", CostCodeViewSet, basename="cost-codes")
router.register("budgets", BudgetLineViewSet, basename="budgets")
router.register("budget-imports", BudgetImportViewSet, basename="budget-imports")
router.register("commitments", CommitmentViewSet, basename="commitments")
router.register("change-orders", ChangeOrderViewSet, basename="change-orders")
router.register("invoices", InvoiceViewSet, basename="invoices")
router.register("lien-waivers", LienWaiverViewSet, basename="lien-waivers")
router.register("pay-apps", PayAppViewSet, basename="pay-apps")
router.register("rfis", RfiViewSet, basename="rfis")
router.register("daily-logs", DailyLogViewSet, basename="daily-logs")
router.register("agents/actions", AgentActionViewSet, basename="agent-actions")

# Reports are read-only routes with no collection or object behind them (docs/reports.md).
REPORTS = (
    ("wip", "wip"),
    ("job-cost", "job_cost"),
    ("job-cost/transactions", "job_cost_transactions"),
    ("ap-aging", "ap_aging"),
    ("ar-aging", "ar_aging"),
    ("retainage", "retainage"),
)
report_urls = [
    path(
        f"reports/{route}",
        ReportViewSet.as_view({"get": action}, basename="reports", detail=False),
        name=f"reports-{route.replace('/', '-')}",
    )
    for route, action in REPORTS
]

urlpatterns = router.urls + report_urls
