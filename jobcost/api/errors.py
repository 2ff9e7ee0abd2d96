"""The HTTP side of the error envelope (docs/errors.md): DRF's exception handler and
Django's 400/403/404/500 handlers. Anything unexpected becomes a 500 `api_error` with no
stack trace, and the transaction rolls back. The error types are `jobcost.errors`.
"""

from __future__ import annotations

import logging

from django.http import JsonResponse
from rest_framework.response import Response

from jobcost.error_codes import RequestErrorCode
from jobcost.errors import ApiError, Forbidden, InternalError, InvalidRequest, NotFound, translate

logger = logging.getLogger("jobcost.api")


def _request_id(request) -> str | None:
    return getattr(request, "request_id", None) or getattr(
        getattr(request, "_request", None), "request_id", None
    )


def exception_handler(exc: Exception, context: dict) -> Response:
    """DRF's EXCEPTION_HANDLER: every failure becomes the envelope. Rolling back is the
    viewset's job (`JobcostViewSet.run_handler` and `run_write` roll their transaction back
    before the error response is built), so an error outside it (a GET, a 401/403) never
    poisons an enclosing transaction."""
    request = context.get("request")
    error = translate(exc)
    if error is None:
        logger.exception("Unhandled error", exc_info=exc)
        error = InternalError("An internal error occurred; it was logged. Try again later.")
    response = Response(error.payload(_request_id(request)), status=error.status)
    for name, value in error.headers.items():
        response[name] = value
    return response


def json_error_response(request, error: ApiError) -> JsonResponse:
    """A plain Django JSON response carrying the envelope (for middleware and handlers)."""
    response = JsonResponse(
        error.payload(getattr(request, "request_id", None)), status=error.status
    )
    for name, value in error.headers.items():
        response[name] = value
    return response


def handler400(request, exception=None):
    return json_error_response(
        request, InvalidRequest("Bad request.", code=RequestErrorCode.BAD_REQUEST)
    )


def handler403(request, exception=None):
    return json_error_response(request, Forbidden("Forbidden."))


def handler404(request, exception=None):
    return json_error_response(
        request,
        NotFound(
            f"No route matches {request.method} {request.path}.",
            code=RequestErrorCode.ROUTE_MISSING,
        ),
    )


def handler500(request):
    return json_error_response(
        request, InternalError("An internal error occurred; it was logged. Try again later.")
    )
