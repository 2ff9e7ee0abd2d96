"""The error types every layer raises and the one envelope they become (docs/errors.md).

Bottom layer: imports nothing of the project but its error codes (`jobcost.error_codes`, one
enum per domain). Services raise `ApiError` subclasses, always with a code from those enums;
`translate` maps them, DRF's exceptions and Django's own (`Http404`, `PermissionDenied`,
`ValidationError`, `ProtectedError`, parse errors, a body too large) to an `ApiError`, whose
`payload` is `{"error": {type, code, message, param, object, request_id}}`. The HTTP side
(DRF's exception handler, Django's error handlers) is `jobcost.api.errors`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import ProtectedError
from django.http import Http404
from rest_framework import exceptions as drf

from jobcost.error_codes import (
    AuthErrorCode,
    BaseErrorCode,
    DocumentErrorCode,
    RateLimitErrorCode,
    RequestErrorCode,
    ResourceErrorCode,
)

# The envelope's `type`s, in the order the OpenAPI `ErrorObject` lists them: each status
# class below carries one of them.
ERROR_TYPES = (
    "invalid_request",
    "unauthenticated",
    "forbidden",
    "not_found",
    "conflict",
    "validation_failed",
    "rate_limited",
    "api_error",
)


class ApiError(Exception):
    """An error with its HTTP status, envelope `type`, machine `code`, `param` and `object`.

    `code` is a member of a domain's error-code enum (`jobcost.error_codes`,
    `webhooks.errors`); the error keeps its plain string, so the envelope, the stored
    idempotent replies and an agent action's `failure` hold exactly the documented code."""

    status = 400
    type = "invalid_request"
    default_code: StrEnum = BaseErrorCode.INVALID_REQUEST

    def __init__(
        self,
        message: str,
        *,
        code: StrEnum | str | None = None,
        param: str | None = None,
        object_id: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = str(code or self.default_code)
        self.param = param
        self.object_id = object_id
        self.headers = headers or {}

    def payload(self, request_id: str | None) -> dict[str, Any]:
        """The envelope body for this error."""
        return envelope(self.type, self.code, self.message, self.param, self.object_id, request_id)


class InvalidRequest(ApiError):
    """400: a missing, malformed, unknown or read-only parameter."""

    status, type, default_code = 400, "invalid_request", RequestErrorCode.PARAMETER_INVALID


class PayloadTooLarge(ApiError):
    """413: the body is over 1 MiB (docs/operations/limits.md)."""

    status, type, default_code = 413, "invalid_request", RequestErrorCode.BODY_TOO_LARGE


class UnsupportedMediaType(ApiError):
    """415: a body that is not application/json (docs/conventions.md)."""

    status, type, default_code = 415, "invalid_request", RequestErrorCode.UNSUPPORTED_MEDIA_TYPE


class Unauthenticated(ApiError):
    """401: missing, malformed, unknown or revoked key (docs/keys.md, "Who may call what")."""

    status, type, default_code = 401, "unauthenticated", AuthErrorCode.API_KEY_INVALID

    def __init__(self, message: str, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.headers.setdefault("WWW-Authenticate", 'Bearer realm="jobcost"')


class Forbidden(ApiError):
    """403: the key's role does not allow the action (docs/keys.md, "Who may call what")."""

    status, type, default_code = 403, "forbidden", AuthErrorCode.ROLE_FORBIDDEN


class NotFound(ApiError):
    """404: no such object, or not visible to this key."""

    status, type, default_code = 404, "not_found", ResourceErrorCode.RESOURCE_MISSING


class MethodNotAllowed(ApiError):
    """405: the path exists but not with this method."""

    status, type, default_code = 405, "invalid_request", RequestErrorCode.METHOD_NOT_ALLOWED


class Conflict(ApiError):
    """409: the object's state does not allow the operation."""

    status, type, default_code = 409, "conflict", ResourceErrorCode.INVALID_STATE_TRANSITION


class ValidationFailed(ApiError):
    """422: a business rule failed."""

    status, type, default_code = 422, "validation_failed", BaseErrorCode.VALIDATION_FAILED


class RateLimited(ApiError):
    """429: the account's token bucket is empty (docs/operations/limits.md)."""

    status, type, default_code = 429, "rate_limited", RateLimitErrorCode.RATE_LIMITED


class Unavailable(ApiError):
    """503: the work did not finish within its time limit (a PDF past its rendering limit,
    docs/operations/limits.md); retry after the `Retry-After` seconds."""

    status, type, default_code = 503, "api_error", DocumentErrorCode.RENDER_TIMED_OUT


class InternalError(ApiError):
    """500: something broke on our side; never carries a stack trace."""

    status, type, default_code = 500, "api_error", BaseErrorCode.INTERNAL_ERROR


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


# DRF's own field-error codes that are not `parameter_invalid` in the envelope.
_DRF_CODE_MAP = {
    "required": RequestErrorCode.PARAMETER_MISSING,
    "null": RequestErrorCode.PARAMETER_INVALID,
    "blank": RequestErrorCode.PARAMETER_INVALID,
}

# A DRF field error whose code starts with this carries one of ours (`field_code`).
FIELD_CODE_PREFIX = "jc:"


def field_code(code: StrEnum) -> str:
    """The DRF `ErrorDetail` code that carries our `code` through a serializer's validation:
    `translate` makes a field error of code `jc:<code>` a 400 `<code>`, where any other DRF
    code would become `parameter_invalid`."""
    return f"{FIELD_CODE_PREFIX}{code}"


def translate(exc: Exception) -> ApiError | None:
    """Map any known exception to an ApiError; None for the truly unexpected."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, drf.ValidationError):
        param, message, code = _first_drf_error(exc.detail)
        if code.startswith(FIELD_CODE_PREFIX):
            return InvalidRequest(message, code=code.removeprefix(FIELD_CODE_PREFIX), param=param)
        return InvalidRequest(
            message,
            code=_DRF_CODE_MAP.get(code, RequestErrorCode.PARAMETER_INVALID),
            param=param,
        )
    if isinstance(exc, drf.ParseError):
        return InvalidRequest(str(exc.detail), code=RequestErrorCode.JSON_INVALID)
    if isinstance(exc, drf.UnsupportedMediaType):
        return UnsupportedMediaType(
            "Request bodies must be JSON: send Content-Type: application/json."
        )
    if isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):
        return Unauthenticated(str(exc.detail), code=AuthErrorCode.API_KEY_MISSING)
    if isinstance(exc, (drf.PermissionDenied, DjangoPermissionDenied)):
        return Forbidden("This API key is not allowed to do that.")
    if isinstance(exc, (drf.NotFound, Http404)):
        return NotFound("No such object.")
    if isinstance(exc, drf.MethodNotAllowed):
        return MethodNotAllowed(str(exc.detail))
    if isinstance(exc, drf.NotAcceptable):
        return InvalidRequest(str(exc.detail), code=RequestErrorCode.NOT_ACCEPTABLE)
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
        return Conflict(
            "The object is referenced by other objects.",
            code=ResourceErrorCode.RESOURCE_IN_USE,
        )
    return None
