"""The error types every layer raises and the one envelope they become (docs/errors.md).

Bottom layer: imports nothing of the project. Services raise `ApiError` subclasses;
`translate` maps them, DRF's exceptions and Django's own (`Http404`, `PermissionDenied`,
`ValidationError`, `ProtectedError`, parse errors, a body too large) to an `ApiError`, whose
`payload` is `{"error": {type, code, message, param, object, request_id}}`. The HTTP side
(DRF's exception handler, Django's error handlers) is `jobcost.api.errors`.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import ProtectedError
from django.http import Http404
from rest_framework import exceptions as drf


class ApiError(Exception):
    """An error with its HTTP status, envelope `type`, machine `code`, `param` and `object`."""

    status = 400
    type = "invalid_request"
    default_code = "invalid_request"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        param: str | None = None,
        object_id: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.param = param
        self.object_id = object_id
        self.headers = headers or {}

    def payload(self, request_id: str | None) -> dict[str, Any]:
        """The envelope body for this error."""
        return envelope(self.type, self.code, self.message, self.param, self.object_id, request_id)


class InvalidRequest(ApiError):
    """400: a missing, malformed, unknown or read-only parameter."""

    status, type, default_code = 400, "invalid_request", "parameter_invalid"


class PayloadTooLarge(ApiError):
    """413: the body is over 1 MiB (README "Limits")."""

    status, type, default_code = 413, "invalid_request", "body_too_large"


class UnsupportedMediaType(ApiError):
    """415: a body that is not application/json (docs/conventions.md)."""

    status, type, default_code = 415, "invalid_request", "unsupported_media_type"


class Unauthenticated(ApiError):
    """401: missing, malformed, unknown or revoked key (README "Who may call what")."""

    status, type, default_code = 401, "unauthenticated", "api_key_invalid"

    def __init__(self, message: str, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.headers.setdefault("WWW-Authenticate", 'Bearer realm="jobcost"')


class Forbidden(ApiError):
    """403: the key's role does not allow the action (README "Who may call what")."""

    status, type, default_code = 403, "forbidden", "role_forbidden"


class NotFound(ApiError):
    """404: no such object, or not visible to this key."""

    status, type, default_code = 404, "not_found", "resource_missing"


class MethodNotAllowed(ApiError):
    """405: the path exists but not with this method."""

    status, type, default_code = 405, "invalid_request", "method_not_allowed"


class Conflict(ApiError):
    """409: the object's state does not allow the operation."""

    status, type, default_code = 409, "conflict", "invalid_state_transition"


class ValidationFailed(ApiError):
    """422: a business rule failed."""

    status, type, default_code = 422, "validation_failed", "validation_failed"


class RateLimited(ApiError):
    """429: the account's token bucket is empty (README "Limits")."""

    status, type, default_code = 429, "rate_limited", "rate_limited"


class InternalError(ApiError):
    """500: something broke on our side; never carries a stack trace."""

    status, type, default_code = 500, "api_error", "internal_error"


def envelope(
    type_: str,
    code: str,
    message: str,
    param: str | None = None,
    object_id: str | None = None,
    request_id: str | None = None,
) -> dict[str, Any]:
    """The docs/errors.md error body: `param` and `object` are always present, possibly null."""
    return {
        "error": {
            "type": type_,
            "code": code,
            "message": message,
            "param": param,
            "object": object_id,
            "request_id": request_id,
        }
    }


def _first_drf_error(detail: Any, prefix: str = "") -> tuple[str | None, str, str]:
    """Walk DRF's nested error detail to the first leaf: (param, message, drf_code)."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            if key == "non_field_errors":
                param = prefix or None
            elif isinstance(key, int):
                param = f"{prefix}[{key}]"
            else:
                param = f"{prefix}.{key}" if prefix else str(key)
            return _first_drf_error(value, param or "")
    if isinstance(detail, list):
        for index, value in enumerate(detail):
            if isinstance(value, (dict, list)):
                return _first_drf_error(value, f"{prefix}[{index}]")
            return _first_drf_error(value, prefix)
    code = getattr(detail, "code", "invalid")
    return (prefix or None, str(detail), code)


_DRF_CODE_MAP = {
    "required": "parameter_missing",
    "null": "parameter_invalid",
    "blank": "parameter_invalid",
}


def translate(exc: Exception) -> ApiError | None:
    """Map any known exception to an ApiError; None for the truly unexpected."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, drf.ValidationError):
        param, message, code = _first_drf_error(exc.detail)
        if code.startswith("jc:"):
            return InvalidRequest(message, code=code[3:], param=param)
        return InvalidRequest(
            message, code=_DRF_CODE_MAP.get(code, "parameter_invalid"), param=param
        )
    if isinstance(exc, drf.ParseError):
        return InvalidRequest(str(exc.detail), code="json_invalid")
    if isinstance(exc, drf.UnsupportedMediaType):
        return UnsupportedMediaType(
            "Request bodies must be JSON: send Content-Type: application/json."
        )
    if isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):
        return Unauthenticated(str(exc.detail), code="api_key_missing")
    if isinstance(exc, (drf.PermissionDenied, DjangoPermissionDenied)):
        return Forbidden("This API key is not allowed to do that.")
    if isinstance(exc, (drf.NotFound, Http404)):
        return NotFound("No such object.")
    if isinstance(exc, drf.MethodNotAllowed):
        return MethodNotAllowed(str(exc.detail))
    if isinstance(exc, drf.NotAcceptable):
        return InvalidRequest(str(exc.detail), code="not_acceptable")
    if isinstance(exc, drf.Throttled):
        return RateLimited("Too many requests.")
    if isinstance(exc, RequestDataTooBig):
        return PayloadTooLarge("Request bodies are limited to 1 MiB.")
    if isinstance(exc, DjangoValidationError):
        param = None
        message = "; ".join(exc.messages)
        if hasattr(exc, "error_dict"):
            param = next(iter(exc.error_dict), None)
            if param == "__all__":
                param = None
        return InvalidRequest(message, param=param)
    if isinstance(exc, ProtectedError):
        return Conflict("The object is referenced by other objects.", code="resource_in_use")
    return None
