"""Root URLs: /v1 (API), /v1/openapi.json and /docs, /healthz and /readyz, /admin/."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularJSONAPIView

from jobcost import urls as jobcost_urls
from jobcost.views.health import healthz, readyz
from jobcost.views.swagger import SwaggerUiView
from webhooks import urls as webhook_urls

# One /v1 namespace over both apps' routes.
V1 = [*jobcost_urls.urlpatterns, *webhook_urls.urlpatterns]

urlpatterns = [
    path("v1/openapi.json", SpectacularJSONAPIView.as_view(), name="openapi"),
    path("v1/", include((V1, "v1"), namespace="v1")),
    path("docs", SwaggerUiView.as_view(url_name="openapi"), name="docs"),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("admin/", admin.site.urls),
]

# Under /admin/ the admin's HTML pages, elsewhere the API's error envelope.
handler400 = "jobcost.admin.error_pages.handler400"
handler403 = "jobcost.admin.error_pages.handler403"
handler404 = "jobcost.admin.error_pages.handler404"
handler500 = "jobcost.admin.error_pages.handler500"
