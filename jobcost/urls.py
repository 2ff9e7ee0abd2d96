"""The /v1 routes. URL names are `v1:<resource>-<action>`."""

from rest_framework.routers import SimpleRouter

from jobcost.views.budgets import BudgetLineViewSet, CostCodeViewSet
from jobcost.views.commitments import CommitmentViewSet
from jobcost.views.parties import OwnerViewSet, VendorViewSet
from jobcost.views.projects import ProjectViewSet

router = SimpleRouter(trailing_slash=False)
router.register("owners", OwnerViewSet, basename="owners")
router.register("vendors", VendorViewSet, basename="vendors")
router.register("projects", ProjectViewSet, basename="projects")
router.register("cost-codes", CostCodeViewSet, basename="cost-codes")
router.register("budgets", BudgetLineViewSet, basename="budgets")
router.register("commitments", CommitmentViewSet, basename="commitments")

urlpatterns = router.urls
