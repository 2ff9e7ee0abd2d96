"""Request-level middleware: request IDs, version header, body limit (SPEC §1, §6, §7)."""

from django.conf import settings

from jobcost.api.errors import NotFound, PayloadTooLarge, json_error_response
from jobcost.api.ids import new_id


class RequestIdMiddleware:
    """Give every request a `req_` ID and put `Request-Id` and `Jobcost-Version` on every
    response, including Django's own error pages."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.request_id = new_id("req")
        response = self.get_response(request)
        response["Request-Id"] = request.request_id
        if not response.has_header("Jobcost-Version"):
            response["Jobcost-Version"] = getattr(
                request, "jobcost_version", settings.JOBCOST_API_VERSIONS[-1]
            )
        return response


class NulPathMiddleware:
    """A path holding NUL (`%00`) names no route: 404 `route_missing` before any view runs, so
    no ID lookup, idempotency record or log line carries it to PostgreSQL, whose text refuses
    NUL (README, "Errors and methods")."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path:
            shown = request.path.replace("\x00", "%00")
            return json_error_response(
                request,
                NotFound(f"No route matches {request.method} {shown}.", code="route_missing"),
            )
        return self.get_response(request)


class BodyLimitMiddleware:
    """Refuse a declared body over 1 MiB with 413 before reading it. Chunked bodies without a
    length are caught by DATA_UPLOAD_MAX_MEMORY_SIZE when the body is read."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > settings.MAX_REQUEST_BODY_BYTES:
            return json_error_response(
                request, PayloadTooLarge("Request bodies are limited to 1 MiB (1048576 bytes).")
            )
        return self.get_response(request)
