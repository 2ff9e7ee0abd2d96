"""The webhooks' /v1 routes: `webhooks` (endpoints) and `events`, mounted by `config/urls.py`
beside the job-cost routes under the `v1` namespace."""

from rest_framework.routers import SimpleRouter

from webhooks.views import EventViewSet, WebhookEndpointViewSet

router = SimpleRouter(trailing_slash=False)
router.register("webhooks", WebhookEndpointViewSet, basename="webhooks")
router.register("events", EventViewSet, basename="events")

urlpatterns = router.urls
