"""`/docs`: Swagger UI over `/v1/openapi.json` (docs/openapi.md)."""

from django.http import HttpResponse
from drf_spectacular.views import SpectacularSwaggerView


class SwaggerUiView(SpectacularSwaggerView):
    """drf-spectacular's Swagger UI page. Its HTML renderer has no template for an OPTIONS
    answer (a 500), so OPTIONS answers 204 with the `Allow` header every APIView sets."""

    def options(self, request, *args, **kwargs):
        return HttpResponse(status=204)
